/* The device plan: llama.cpp's layer-to-device rule on hand-worked cases,
 * its parsers (-ts, --gpus, CUDA_VISIBLE_DEVICES), and real two-GPU lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/util.h"
#include "llm/estimate.h"
#include "llm/ggml_types.h"
#include "llm/gguf.h"
#include "llm/llama_flags.h"
#include "llm/split_plan.h"
#include "replicas.h"
#include "testutil.h"


static char *tmp_dir;

static struct gguf_header *load(const struct replica_spec *s, const char *file)
{
	char path[512], err[256];
	struct gguf_header *h = NULL;
	snprintf(path, sizeof path, "%s/%s", tmp_dir, file);
	assert_int_equal(replica_write(s, path), 0);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	return h;
}

/* Plans h under a space-separated flag string on devices of free sizes. */
static struct split_plan plan(const struct gguf_header *h, const char *args, const uint64_t *free_b, size_t n,
			      struct estimate *e_out)
{
	char *copy = xstrdup(args), *argv[64], *save = NULL, err[256] = "";
	int argc = 0;
	struct llama_flags f;
	struct estimate e;
	struct split_device_in d[SPLIT_MAX_DEVICES];
	struct split_plan p;
	for (char *t = strtok_r(copy, " ", &save); t && argc < 64; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	llama_flags_init(&f);
	assert_true(llama_flags_parse(&f, argc, argv, 0));
	assert_true(estimate_plan(h, &f, &e, err, sizeof err));
	memset(d, 0, sizeof d);
	for (size_t i = 0; i < n; i++) {
		snprintf(d[i].name, sizeof d[i].name, "GPU %zu", i);
		d[i].free_bytes = free_b[i];
	}
	assert_true(split_plan_make(h, &f, &e, d, n, &p, err, sizeof err));
	llama_flags_free(&f);
	free(copy);
	if (e_out)
		*e_out = e;
	return p;
}

static void layers_are(const struct split_device *d, int first, int last, bool output)
{
	assert_int_equal(d->first_layer, first);
	assert_int_equal(d->last_layer, last);
	assert_int_equal(d->n_layers, first < 0 ? 0 : last - first + 1);
	assert_int_equal(d->output, output);
}

/* Qwen3-0.6B: 28 repeating layers, one layer = 16,720,896 B, KV 16 MiB a
 * layer at -c 4096, output = output_norm 4,096 B + the tied token_embd copy
 * 165,306,368 B (llm-memory.md §4). */
#define QWEN_LAYER 16720896ull
#define QWEN_OUTPUT (4096ull + 165306368ull)
#define QWEN_KV_LAYER (16ull * MIB)

/* -ts 3,1: points 0.75, 1; layer il at il/29 (29 = 28 + output): il <= 21
 * is below 0.75 (21/29 = 0.724, 22/29 = 0.759), so 22 layers on GPU 0 and
 * layers 22-27 plus the output (28/29) on GPU 1. */
static void test_two_devices_ts(void **state)
{
	(void)state;
	struct gguf_header *h = load(&replica_qwen3_0_6b_q8_0, "q.gguf");
	uint64_t sizes[] = {24 * GIB, 8 * GIB};
	struct estimate e;
	struct split_plan p = plan(h, "-c 4096 -ngl 99 -ts 3,1", sizes, 2, &e);
	layers_are(&p.dev[0], 0, 21, false);
	layers_are(&p.dev[1], 22, 27, true);
	assert_int_equal(p.host_layers, 0);
	assert_false(p.output_on_host);
	assert_int_equal(p.layers_by, SPLIT_BY_TS);
	assert_int_equal(p.dev[0].weights, 22 * QWEN_LAYER);
	assert_int_equal(p.dev[1].weights, 6 * QWEN_LAYER + QWEN_OUTPUT);
	assert_int_equal(p.dev[0].kv, 22 * QWEN_KV_LAYER);
	assert_int_equal(p.dev[1].kv, 6 * QWEN_KV_LAYER);
	/* the split moves bytes, it makes none */
	assert_int_equal(p.dev[0].weights + p.dev[1].weights, e.weights_gpu);
	assert_int_equal(p.dev[0].kv + p.dev[1].kv, e.kv_gpu);
	assert_int_equal(p.host_weights, e.weights_host);
	/* pipeline parallelism: 2 devices, all offloaded, -sm layer */
	assert_true(p.pipeline);
	for (size_t i = 0; i < 2; i++) {
		const struct split_device *d = &p.dev[i];
		assert_int_equal(d->overhead, SPLIT_CONTEXT_OVERHEAD);
		assert_int_equal(d->need, d->weights + d->kv + d->rs + d->compute + d->overhead);
		assert_true(d->compute > 0);
	}
	assert_true(p.all_fit);
	/* 8 GiB / 1 GiB: GPU 1 holds the output and its logits; at 1 GiB it cannot */
	uint64_t small[] = {24 * GIB, 1 * GIB};
	p = plan(h, "-c 4096 -ngl 99 -ts 3,1", small, 2, NULL);
	assert_true(p.dev[0].fits);
	assert_false(p.dev[1].fits);
	assert_false(p.all_fit);
	gguf_header_unref(h);
}

/* Three devices -ts 1,1,1: points 1/3, 2/3, 1; il/29 < 1/3 for il <= 9,
 * < 2/3 for il <= 19. A 0 share (-ts 1,1,0) gets no layer but still its
 * context. */
static void test_three_devices(void **state)
{
	(void)state;
	struct gguf_header *h = load(&replica_qwen3_0_6b_q8_0, "q3.gguf");
	uint64_t sizes[] = {8 * GIB, 8 * GIB, 8 * GIB};
	struct split_plan p = plan(h, "-c 4096 -ts 1,1,1", sizes, 3, NULL);
	layers_are(&p.dev[0], 0, 9, false);
	layers_are(&p.dev[1], 10, 19, false);
	layers_are(&p.dev[2], 20, 27, true);
	assert_int_equal(p.dev[2].kv, 8 * QWEN_KV_LAYER);
	/* -ts 1,1,0: points 0.5, 1, 1: il/29 < 0.5 for il <= 14 */
	p = plan(h, "-c 4096 -ts 1,1,0", sizes, 3, NULL);
	layers_are(&p.dev[0], 0, 14, false);
	layers_are(&p.dev[1], 15, 27, true);
	layers_are(&p.dev[2], -1, -1, false);
	assert_int_equal(p.dev[2].weights, 0);
	assert_int_equal(p.dev[2].kv, 0);
	assert_int_equal(p.dev[2].compute, 0);
	assert_int_equal(p.dev[2].need, SPLIT_CONTEXT_OVERHEAD);
	assert_true(p.dev[2].used);
	/* no -ts: by free memory 24:8 GiB = 0.75, 1 as -ts 3,1 */
	uint64_t uneven[] = {24 * GIB, 8 * GIB};
	p = plan(h, "-c 4096", uneven, 2, NULL);
	assert_int_equal(p.layers_by, SPLIT_BY_FREE);
	layers_are(&p.dev[0], 0, 21, false);
	layers_are(&p.dev[1], 22, 27, true);
	gguf_header_unref(h);
}

/* -ngl 10 of 29: i_gpu_start = 29 - 10 = 19, so layers 0-18 stay on the
 * CPU; (il - 19)/10 < 0.75 for il <= 26 (7/10): 19-26 on GPU 0, 27 and the
 * output on GPU 1. The CPU layers' KV is on the host. */
static void test_partial_offload(void **state)
{
	(void)state;
	struct gguf_header *h = load(&replica_qwen3_0_6b_q8_0, "qp.gguf");
	uint64_t sizes[] = {24 * GIB, 8 * GIB};
	struct estimate e;
	struct split_plan p = plan(h, "-c 4096 -ngl 10 -ts 3,1", sizes, 2, &e);
	assert_int_equal(p.host_layers, 19);
	layers_are(&p.dev[0], 19, 26, false);
	layers_are(&p.dev[1], 27, 27, true);
	assert_int_equal(p.host_kv, 19 * QWEN_KV_LAYER);
	assert_int_equal(p.dev[0].weights + p.dev[1].weights, e.weights_gpu);
	assert_false(p.pipeline); /* not every layer offloaded */
	/* -ngl 1: only the output layer, on the device of position 0 */
	p = plan(h, "-c 4096 -ngl 1 -ts 3,1", sizes, 2, NULL);
	assert_int_equal(p.host_layers, 28);
	layers_are(&p.dev[0], -1, -1, true);
	assert_int_equal(p.dev[0].weights, QWEN_OUTPUT);
	/* -ngl 0: nothing on a GPU */
	p = plan(h, "-c 4096 -ngl 0", sizes, 2, NULL);
	assert_true(p.output_on_host);
	assert_int_equal(p.dev[0].weights + p.dev[1].weights, 0);
	/* -nkvo: layers on the GPUs, their KV on the host */
	p = plan(h, "-c 4096 -nkvo -ts 3,1", sizes, 2, NULL);
	assert_int_equal(p.dev[0].kv + p.dev[1].kv, 0);
	assert_int_equal(p.host_kv, 28 * QWEN_KV_LAYER);
	gguf_header_unref(h);
}

/* -sm none -mg 1: llama.cpp keeps only device 1; everything is there, the
 * other device has only its context. -mg beyond the devices: refused. */
static void test_split_none(void **state)
{
	(void)state;
	struct gguf_header *h = load(&replica_qwen3_0_6b_q8_0, "qn.gguf");
	uint64_t sizes[] = {24 * GIB, 8 * GIB};
	struct estimate e;
	struct split_plan p = plan(h, "-c 4096 -sm none -mg 1 -ts 3,1", sizes, 2, &e);
	assert_false(p.dev[0].used);
	assert_true(p.dev[1].used);
	layers_are(&p.dev[1], 0, 27, true);
	assert_int_equal(p.dev[1].weights, e.weights_gpu);
	assert_int_equal(p.dev[1].kv, 28 * QWEN_KV_LAYER);
	assert_int_equal(p.dev[0].need, SPLIT_CONTEXT_OVERHEAD);
	assert_false(p.pipeline);
	p = plan(h, "-c 4096 -sm none", sizes, 2, NULL);
	layers_are(&p.dev[0], 0, 27, true);
	assert_false(p.dev[1].used);
	p = plan(h, "-c 4096 -sm none -mg 2", sizes, 2, NULL);
	assert_true(p.refused);
	assert_false(p.all_fit);
	assert_non_null(strstr(p.notes[0], "refuses -sm none -mg 2"));
	gguf_header_unref(h);
}

/* -sm row: the same layers, each matrix's rows 3:1 across the devices; the
 * norms stay with the layer's device. Total weights unchanged. */
static void test_split_row(void **state)
{
	(void)state;
	struct gguf_header *h = load(&replica_qwen3_0_6b_q8_0, "qr.gguf");
	uint64_t sizes[] = {24 * GIB, 8 * GIB};
	struct estimate e;
	struct split_plan p = plan(h, "-c 4096 -sm row -ts 3,1", sizes, 2, &e);
	layers_are(&p.dev[0], 0, 21, false);
	assert_int_equal(p.dev[0].weights + p.dev[1].weights, e.weights_gpu);
	/* GPU 0: 3/4 of every matrix row (rounded down) and 22 layers' norms */
	double share = (double)p.dev[0].weights / (double)e.weights_gpu;
	assert_true(share > 0.74 && share < 0.76);
	assert_int_equal(p.dev[0].kv, 22 * QWEN_KV_LAYER);
	assert_false(p.pipeline);
	assert_int_equal(p.rows_by, SPLIT_BY_TS);
	/* no -ts and no total memory known: rows by free memory */
	p = plan(h, "-c 4096 -sm row", sizes, 2, NULL);
	assert_int_equal(p.rows_by, SPLIT_BY_FREE);
	gguf_header_unref(h);
}

static void test_split_points_rule(void **state)
{
	(void)state;
	float w[] = {3, 1}, cum[2], z[] = {0, 0, 0}, cz[3];
	split_points(w, 2, cum);
	assert_true(cum[0] == 0.75f && cum[1] == 1.0f);
	split_points(z, 3, cz); /* nothing to go by: equal */
	assert_true(cz[2] == 1.0f && cz[0] > 0.33f && cz[0] < 0.34f);
	/* no device: everything on the CPU */
	assert_int_equal(split_layer_device(cum, 0, 28, 29, 5), -1);
	assert_int_equal(split_layer_device(cum, 2, 28, 29, 21), 0);
	assert_int_equal(split_layer_device(cum, 2, 28, 29, 22), 1);
	assert_int_equal(split_layer_device(cum, 2, 28, 29, 28), 1);
	/* exactly on a split point: upper_bound puts it on the next device
	 * (3 layers + output = 4 positions, -ts 1,1: layer 2 at 2/4 = 0.5) */
	float half[] = {0.5f, 1.0f};
	assert_int_equal(split_layer_device(half, 2, 3, 4, 1), 0);
	assert_int_equal(split_layer_device(half, 2, 3, 4, 2), 1);
	/* -ngl above the layers is all of them */
	assert_int_equal(split_layer_device(cum, 2, 28, 29, 0), 0);
}

static void test_tensor_split_parse(void **state)
{
	(void)state;
	float ts[LLAMA_FLAGS_MAX_DEVICES];
	size_t n;
	assert_true(llama_tensor_split_parse("3,1", 3, ts, &n));
	assert_int_equal(n, 2);
	assert_true(ts[0] == 3.0f && ts[1] == 1.0f);
	assert_true(llama_tensor_split_parse("3/1", 3, ts, &n) && n == 2);
	assert_true(llama_tensor_split_parse("0.6,,0.4,", 9, ts, &n) && n == 2);
	assert_false(llama_tensor_split_parse(",3,1", 4, ts, &n));
	assert_false(llama_tensor_split_parse("3,-1", 4, ts, &n));
	assert_false(llama_tensor_split_parse("3,x", 3, ts, &n));
	assert_false(llama_tensor_split_parse("nan", 3, ts, &n));
	assert_false(llama_tensor_split_parse("", 0, ts, &n));
	/* 15 entries fit llama.cpp's 16 device slots; 16 do not */
	assert_true(llama_tensor_split_parse("1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", 29, ts, &n) && n == 15);
	assert_false(llama_tensor_split_parse("1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", 31, ts, &n));
	/* through the flag parser: bad values are errors, -sm and -mg read */
	struct llama_flags f;
	char *bad[] = {"-ts", "3,a"}, *sm[] = {"-sm", "row", "-mg", "1"}, *smbad[] = {"--split-mode=rows"};
	llama_flags_init(&f);
	assert_false(llama_flags_parse(&f, 2, bad, 0));
	assert_non_null(strstr(f.error, "-ts"));
	llama_flags_free(&f);
	llama_flags_init(&f);
	assert_true(llama_flags_parse(&f, 4, sm, 0));
	assert_int_equal(f.split_mode, LLAMA_SM_ROW);
	assert_int_equal(f.main_gpu, 1);
	assert_int_equal(f.n_ignored, 0);
	llama_flags_free(&f);
	llama_flags_init(&f);
	assert_false(llama_flags_parse(&f, 1, smbad, 0));
	llama_flags_free(&f);
}

static void test_gpus_parse(void **state)
{
	(void)state;
	uint64_t v[SPLIT_MAX_DEVICES];
	char err[160];
	assert_int_equal(split_gpus_parse("24GiB,8GiB", 10, v, SPLIT_MAX_DEVICES, err, sizeof err), 2);
	assert_int_equal(v[0], 24 * GIB);
	assert_int_equal(v[1], 8 * GIB);
	assert_int_equal(split_gpus_parse("23.5G, 8192MiB ,1TB", 19, v, SPLIT_MAX_DEVICES, err, sizeof err), 3);
	assert_int_equal(v[0], 23 * GIB + GIB / 2);
	assert_int_equal(v[1], 8 * GIB);
	assert_int_equal(v[2], 1000000000000ull);
	assert_int_equal(split_gpus_parse("24gib", 5, v, SPLIT_MAX_DEVICES, err, sizeof err), 1);
	assert_int_equal(split_gpus_parse("24", 2, v, SPLIT_MAX_DEVICES, err, sizeof err), 0);
	assert_non_null(strstr(err, "has no unit"));
	assert_int_equal(split_gpus_parse("24XB", 4, v, SPLIT_MAX_DEVICES, err, sizeof err), 0);
	assert_non_null(strstr(err, "unknown unit"));
	assert_int_equal(split_gpus_parse("24GiB,", 6, v, SPLIT_MAX_DEVICES, err, sizeof err), 0);
	assert_non_null(strstr(err, "not a size"));
	assert_int_equal(split_gpus_parse("", 0, v, SPLIT_MAX_DEVICES, err, sizeof err), 0);
	assert_int_equal(split_gpus_parse("0GiB", 4, v, SPLIT_MAX_DEVICES, err, sizeof err), 0);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(split_gpus_parse("1G,1G,1G", 8, v, 2, err, sizeof err), 0);
	assert_non_null(strstr(err, "more than 2"));
}

static void test_cuda_visible(void **state)
{
	(void)state;
	const char *uuids[] = {"GPU-aaaa-1111", "GPU-bbbb-2222", "GPU-aaab-3333"};
	size_t order[8];
	assert_int_equal(split_cuda_visible("1,0", 3, uuids, 3, order, 8), 2);
	assert_true(order[0] == 1 && order[1] == 0);
	/* CUDA stops at the first entry naming no device */
	assert_int_equal(split_cuda_visible("2,7,0", 5, uuids, 3, order, 8), 1);
	assert_int_equal(order[0], 2);
	assert_int_equal(split_cuda_visible("GPU-bbbb,GPU-aaab", 17, uuids, 3, order, 8), 2);
	assert_true(order[0] == 1 && order[1] == 2);
	assert_int_equal(split_cuda_visible("GPU-aaa", 7, uuids, 3, order, 8), 0); /* ambiguous */
	assert_int_equal(split_cuda_visible("", 0, uuids, 3, order, 8), 0);
	assert_int_equal(split_cuda_visible("0,0", 3, uuids, 3, order, 8), 1);
}

/* A "CUDAn KV buffer size = X MiB" line's device and size. */
static bool kv_line(const char *line, int *dev, double *mib)
{
	const char *c = strstr(line, "CUDA"), *k = strstr(line, "KV buffer size =");
	return c && k && sscanf(c, "CUDA%d", dev) == 1 && sscanf(k, "KV buffer size = %lf", mib) == 1;
}

/* The 2024 two-RTX-4090 run in the multi-GPU fixture: offloaded 25/25 (24
 * repeating layers), KV 208.00 MiB on CUDA0 and 176.00 MiB on CUDA1 out of
 * 384.00 MiB, i.e. 16 MiB a layer and 13:11 layers. Two identical cards and
 * no -ts: the split by free memory is 1:1 (taken here as equal), il/25 < 0.5
 * for il <= 12. A generated 24-layer model with 16 MiB of f16 KV a layer at
 * -c 8192 (4 KV heads x 128) must be placed the same way. */
static void test_real_two_gpu_lines(void **state)
{
	(void)state;
	const char *dir = tu_shared_fixture("inference-logs");
	char path[1024];
	if (!dir)
		skip();
	snprintf(path, sizeof path, "%s/llama-cpp-multi-gpu-lines-by-version.txt", dir);
	char *text = tu_read_file(path, NULL);
	assert_non_null(text);
	char *block = strstr(text, "## 2024, two RTX 4090");
	assert_non_null(block);
	char *end = strstr(block + 3, "\n## ");
	if (end)
		*end = '\0';
	assert_non_null(strstr(block, "offloaded 25/25 layers to GPU"));
	double real[2] = {-1, -1};
	for (char *line = strtok(block, "\n"); line; line = strtok(NULL, "\n")) {
		int dev;
		double m;
		if (kv_line(line, &dev, &m) && dev >= 0 && dev < 2)
			real[dev] = m;
	}
	assert_true(real[0] == 208.0 && real[1] == 176.0);
	free(text);

	const struct replica_spec spec = {
		.arch = "llama", .name = "two-gpu 24 layers", .n_layer = 24, .n_embd = 1024, .n_ff = 4096,
		.n_head = 8, .n_head_kv = 4, .head_dim = 128, .vocab = 32000, .n_ctx_train = 8192,
		.wtype = GGML_T_Q4_0, .ftype = 2,
	};
	struct gguf_header *h = load(&spec, "two-gpu.gguf");
	uint64_t sizes[] = {23 * GIB, 23 * GIB};
	struct split_plan p = plan(h, "-c 8192", sizes, 2, NULL);
	char a[32], b[32];
	assert_string_equal(fmt_mib(a, sizeof a, p.dev[0].kv), "208.00 MiB");
	assert_string_equal(fmt_mib(b, sizeof b, p.dev[1].kv), "176.00 MiB");
	layers_are(&p.dev[0], 0, 12, false);
	layers_are(&p.dev[1], 13, 23, true);
	gguf_header_unref(h);
}

static int setup(void **state)
{
	(void)state;
	tmp_dir = tu_tempdir();
	return tmp_dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(tmp_dir);
	free(tmp_dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_devices_ts),
		cmocka_unit_test(test_three_devices),
		cmocka_unit_test(test_partial_offload),
		cmocka_unit_test(test_split_none),
		cmocka_unit_test(test_split_row),
		cmocka_unit_test(test_split_points_rule),
		cmocka_unit_test(test_tensor_split_parse),
		cmocka_unit_test(test_gpus_parse),
		cmocka_unit_test(test_cuda_visible),
		cmocka_unit_test(test_real_two_gpu_lines),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
