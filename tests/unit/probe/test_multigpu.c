/* A model split over several GPUs: llama.cpp's device names joined to the
 * driver's devices (by PCI bus id, by UUID, by CUDA_VISIBLE_DEVICES in PCI
 * order, by a unique name, else a guess that says so), never by the CUDA
 * number alone, and the breakdown per GPU. Three GPUs, CUDA_VISIBLE_DEVICES
 * shuffled (2,0,1): CUDA0 is the third GPU the driver lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "explain/breakdown.h"
#include "explain/explain.h"
#include "llm/llama_log.h"
#include "llm/ollama_log.h"
#include "views/explain_json.h"
#include "views/explain_text.h"
#include "testutil.h"

#define MiB (1ull << 20)

struct fx {
	struct gtm_snapshot *snap;
	struct gtm_process *p;
	struct llama_log *lg;
	struct gtm_explain *e;
};

/* Three GPUs (driver order = PCI order), a process on all three: GPU 2 holds
 * CUDA0's 1000+100+50 MiB, GPU 0 CUDA1's 2000+200+60 MiB, GPU 1 (no layers:
 * -ts 1,1,0) only a context; each has 300 MiB the runtime did not report. */
static struct fx *fx_new(const char *names[3], const char *env)
{
	struct fx *f = xcalloc(1, sizeof *f);
	f->snap = snapshot_new();
	static const char *const bus[] = {"00000000:01:00.0", "00000000:02:00.0", "00000000:03:00.0"};
	static const char *const uuid[] = {"GPU-aaaaaaaa-0000", "GPU-bbbbbbbb-1111", "GPU-cccccccc-2222"};
	static const uint64_t free_now[] = {10000 * MiB, 20000 * MiB, 30000 * MiB};
	for (int i = 0; i < 3; i++) {
		struct gtm_device *d = snapshot_add_device(f->snap);
		d->index = d->driver_index = i;
		d->vendor = GTM_VENDOR_NVIDIA;
		str_copy(d->source, "nvml", sizeof d->source);
		str_copy(d->name, names[i], sizeof d->name);
		str_copy(d->uuid, uuid[i], sizeof d->uuid);
		str_copy(d->pci_bus_id, bus[i], sizeof d->pci_bus_id);
		d->mem_total = gtm_u64_of(49152 * MiB, GTM_MEASURED);
		d->mem_free = gtm_u64_of(free_now[i], GTM_MEASURED);
	}
	f->p = snapshot_add_process(f->snap);
	f->p->pid = 4242;
	static const uint64_t vram[] = {2560 * MiB, 300 * MiB, 1450 * MiB};
	for (int i = 0; i < 3; i++) {
		struct gtm_gpu_use *u = process_add_use(f->p);
		u->dev_index = i;
		u->vram = gtm_u64_of(vram[i], GTM_MEASURED);
	}
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	if (env) {
		char *blob = xstrdup(env);
		size_t len = strlen(env) + 1;
		for (size_t i = 0; i < len; i++)
			if (blob[i] == '\n')
				blob[i] = 0;
		proc_detail_set_environ(d, blob, len);
		free(blob);
	}
	f->p->detail = d;
	f->lg = xcalloc(1, sizeof *f->lg);
	f->e = xcalloc(1, sizeof *f->e);
	return f;
}

static void fx_free(struct fx *f)
{
	snapshot_free(f->snap);
	free(f->lg);
	free(f->e);
	free(f);
}

/* The buffer lines of the split (CUDA2 has none), after the given device lines. */
static void fx_build(struct fx *f, const char *device_lines)
{
	char log[4096];
	snprintf(log, sizeof log,
		 "%s"
		 "load_tensors: layer   0 assigned to device CPU, is_swa = 0\n"
		 "load_tensors: layer   1 assigned to device CUDA0, is_swa = 0\n"
		 "load_tensors: layer   2 assigned to device CUDA0, is_swa = 0\n"
		 "load_tensors: layer   3 assigned to device CUDA1, is_swa = 0\n"
		 "load_tensors:        CUDA0 model buffer size =  1000.00 MiB\n"
		 "load_tensors:        CUDA1 model buffer size =  2000.00 MiB\n"
		 "load_tensors:   CPU_Mapped model buffer size =   100.00 MiB\n"
		 "llama_kv_cache:      CUDA0 KV buffer size =   100.00 MiB\n"
		 "llama_kv_cache:      CUDA1 KV buffer size =   200.00 MiB\n"
		 "sched_reserve:      CUDA0 compute buffer size =    50.00 MiB\n"
		 "sched_reserve:      CUDA1 compute buffer size =    60.00 MiB\n"
		 "sched_reserve:  CUDA_Host compute buffer size =    10.00 MiB\n",
		 device_lines);
	llama_log_init(f->lg);
	llama_log_parse(f->lg, log, strlen(log));
	struct bd_input in = {f->snap, f->p, llama_log_last(f->lg), NULL, NULL};
	breakdown_build(f->e, &in);
}

static const struct ex_segment *seg_of(const struct gtm_explain *e, enum ex_seg k, enum ex_src src, const char *dev)
{
	for (int i = 0; i < e->n_segs; i++)
		if (e->segs[i].seg == k && e->segs[i].src == src && !strcmp(e->segs[i].device, dev))
			return &e->segs[i];
	return NULL;
}

static const struct ex_device *dev_of(const struct gtm_explain *e, int gpu)
{
	for (int i = 0; i < e->n_devs; i++)
		if (e->devs[i].gpu == gpu)
			return &e->devs[i];
	return NULL;
}

static bool has_note(const struct gtm_explain *e, const char *needle)
{
	for (int i = 0; i < e->n_notes; i++)
		if (strstr(e->notes[i], needle))
			return true;
	return false;
}

/* The explanation as `inspect PID` prints it (malloc'd). */
static char *text_of(const struct gtm_explain *e)
{
	char *txt = NULL;
	size_t n = 0;
	FILE *out = tu_memstream(&txt, &n);
	explain_text_print(out, e, "");
	tu_memclose(out);
	return txt;
}

/* Where CUDA0 and CUDA1 went, and how. */
static void expect_join(const struct gtm_explain *e, int g0, int g1, enum ex_join how)
{
	const struct ex_segment *w0 = seg_of(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0");
	const struct ex_segment *w1 = seg_of(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA1");
	assert_non_null(w0);
	assert_non_null(w1);
	assert_int_equal(w0->gpu, g0);
	assert_int_equal(w1->gpu, g1);
	assert_int_equal(w0->join, how);
	assert_int_equal(w1->join, how);
	const struct ex_segment *h = seg_of(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CPU_Mapped");
	if (!h)
		h = seg_of(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CPU"); /* Ollama's name */
	assert_non_null(h);
	assert_true(h->host);
	assert_int_equal(h->gpu, -1);
}

static const char *names_same[3] = {"NVIDIA L40S", "NVIDIA L40S", "NVIDIA L40S"};

/* Current builds print the bus id: CUDA0 is the GPU at 0000:03:00.0 (the
 * driver's GPU 2) whatever its number. An index join puts it on GPU 0. */
static void test_pci_join_shuffled(void **state)
{
	(void)state;
	struct fx *f = fx_new(names_same, "CUDA_VISIBLE_DEVICES=2,0,1\n");
	fx_build(f, "llama_prepare_model_devices: using device CUDA0 (NVIDIA L40S) (0000:03:00.0) - 31450 MiB free\n"
		    "llama_prepare_model_devices: using device CUDA1 (NVIDIA L40S) (0000:01:00.0) - 12560 MiB free\n"
		    "llama_prepare_model_devices: using device CUDA2 (NVIDIA L40S) (0000:02:00.0) - 20300 MiB free\n");
	expect_join(f->e, 2, 0, EX_JOIN_PCI);
	assert_int_equal(f->e->n_devs, 3);
	const struct ex_device *d2 = dev_of(f->e, 2), *d0 = dev_of(f->e, 0), *d1 = dev_of(f->e, 1);
	assert_string_equal(d2->runtime_dev, "CUDA0");
	assert_string_equal(d2->uuid, "GPU-cccccccc-2222");
	assert_int_equal(d2->weights, 1000 * MiB);
	assert_int_equal(d2->kv, 100 * MiB);
	assert_int_equal(d2->compute, 50 * MiB);
	assert_int_equal(d2->layers, 2);
	assert_int_equal(d2->first_layer, 1);
	assert_int_equal(d2->measured.v, 1450 * MiB);
	assert_int_equal(d2->rest.v, 300 * MiB);
	assert_int_equal(d2->rest.prov, GTM_ESTIMATED); /* measured minus reported is derived */
	assert_int_equal(d2->measured.prov, GTM_MEASURED);
	assert_int_equal(d0->weights, 2000 * MiB);
	assert_int_equal(d0->layers, 1);
	assert_int_equal(d0->rest.v, 300 * MiB);
	/* GPU 1: no layers, nothing reported, only a context: the measurement itself */
	assert_false(d1->reported);
	assert_int_equal(d1->rest.v, 300 * MiB);
	assert_int_equal(d1->rest.prov, GTM_MEASURED);
	assert_false(has_note(f->e, "guess"));
	assert_true(has_note(f->e, "1 layer on the CPU"));

	char *txt = text_of(f->e);
	assert_non_null(strstr(txt, "per GPU"));
	assert_non_null(strstr(txt, "GPU 2 CUDA0 (by PCI bus id): 2 layers (1-2); weights 1000.00 MiB + KV 100.00 MiB + compute 50.00 MiB + other 0 B (reported) + rest 300.00 MiB (estimated) = 1.42 GiB measured"));
	assert_non_null(strstr(txt, "GPU 1: nothing reported; rest 300.00 MiB (measured) = 300.00 MiB measured"));
	free(txt);
	json_t *j = explain_json(f->e);
	json_t *devs = json_object_get(j, "devices");
	assert_int_equal(json_array_size(devs), 3);
	json_t *first = json_array_get(devs, 0); /* use order: GPU 0 */
	assert_int_equal(json_integer_value(json_object_get(first, "gpu")), 0);
	assert_string_equal(json_string_value(json_object_get(first, "runtime_device")), "CUDA1");
	assert_string_equal(json_string_value(json_object_get(first, "device_join")), "pci");
	assert_string_equal(json_string_value(json_object_get(first, "uuid")), "GPU-aaaaaaaa-0000");
	assert_int_equal(json_integer_value(json_object_get(first, "weights_bytes")), 2000 * MiB);
	assert_true(json_is_null(json_object_get(json_array_get(devs, 1), "weights_bytes")));
	json_decref(j);
	fx_free(f);
}

/* No bus id (mid-2025 builds), CUDA_VISIBLE_DEVICES by UUID: exact. */
static void test_uuid_visible_devices(void **state)
{
	(void)state;
	struct fx *f = fx_new(names_same, "CUDA_VISIBLE_DEVICES=GPU-cccccccc-2222,GPU-aaaaaaaa-0000,GPU-bbbbbbbb\n");
	fx_build(f, "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA L40S) - 31450 MiB free\n"
		    "llama_model_load_from_file_impl: using device CUDA1 (NVIDIA L40S) - 12560 MiB free\n");
	expect_join(f->e, 2, 0, EX_JOIN_UUID);
	fx_free(f);
	/* indices in PCI bus order: exact; in CUDA's default order: a guess */
	f = fx_new(names_same, "CUDA_DEVICE_ORDER=PCI_BUS_ID\nCUDA_VISIBLE_DEVICES=2,0,1\n");
	fx_build(f, "");
	expect_join(f->e, 2, 0, EX_JOIN_ENV);
	fx_free(f);
	f = fx_new(names_same, "CUDA_VISIBLE_DEVICES=2,0,1\n");
	fx_build(f, "");
	expect_join(f->e, 2, 0, EX_JOIN_GUESS);
	assert_true(has_note(f->e, "CUDA0 -> GPU 2?, CUDA1 -> GPU 0?: a guess by order"));
	fx_free(f);
}

/* No bus id and no environment: a name only one GPU has is a match ('*');
 * several of one name, the free memory at load tells them apart. */
static void test_name_and_free_memory(void **state)
{
	(void)state;
	const char *mixed[3] = {"NVIDIA L4", "NVIDIA T4", "NVIDIA A10"};
	struct fx *f = fx_new(mixed, NULL);
	fx_build(f, "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA A10) - 1 MiB free\n"
		    "llama_model_load_from_file_impl: using device CUDA1 (NVIDIA L4) - 1 MiB free\n");
	expect_join(f->e, 2, 0, EX_JOIN_NAME);
	assert_true(has_note(f->e, "CUDA0 -> GPU 2*, CUDA1 -> GPU 0*: joined by device name"));
	fx_free(f);
	/* same names: free now + the process's VRAM there = free at load (GPU 2: 30000 + 1450) */
	f = fx_new(names_same, NULL);
	fx_build(f, "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA L40S) - 31450 MiB free\n"
		    "llama_model_load_from_file_impl: using device CUDA1 (NVIDIA L40S) - 12400 MiB free\n");
	expect_join(f->e, 2, 0, EX_JOIN_NAME);
	fx_free(f);
}

/* Same names, no free figure (the 2024 startup list): a guess by order,
 * marked '?' in the text and left out of nothing but said. */
static void test_guess_is_marked(void **state)
{
	(void)state;
	struct fx *f = fx_new(names_same, NULL);
	fx_build(f, "ggml_cuda_init: found 3 CUDA devices:\n"
		    "  Device 0: NVIDIA L40S, compute capability 8.9, VMM: yes\n"
		    "  Device 1: NVIDIA L40S, compute capability 8.9, VMM: yes\n");
	expect_join(f->e, 0, 1, EX_JOIN_GUESS);
	assert_true(has_note(f->e, "a guess by order"));
	const struct ex_device *d0 = dev_of(f->e, 0);
	assert_int_equal(d0->join, EX_JOIN_GUESS);
	char *txt = text_of(f->e);
	assert_non_null(strstr(txt, "GPU 0? CUDA0"));
	free(txt);
	fx_free(f);
}

/* Ollama names its GPU by UUID in the load request: one GPU there, one
 * device in the memory lines: exact, even with the process on more GPUs. */
static void test_ollama_load_request_uuid(void **state)
{
	(void)state;
	struct fx *f = fx_new(names_same, NULL);
	struct llog_load *l = llama_log_begin_load(f->lg, -1, -1);
	l->n_gpu_req = 1;
	str_copy(l->gpu_req[0].id, "GPU-bbbbbbbb-1111", sizeof l->gpu_req[0].id);
	l->buffers[0] = (struct llog_buffer){LLOG_WEIGHTS, "CUDA0", 100 * MiB, true};
	l->n_buffers = 1;
	enum ex_join how;
	assert_int_equal(breakdown_join_device(f->snap, f->p, l, "CUDA0", &how), 1);
	assert_int_equal(how, EX_JOIN_UUID);
	/* two GPUs in the request, two devices named: the k-th, a guess */
	l->n_gpu_req = 2;
	str_copy(l->gpu_req[1].id, "GPU-cccccccc-2222", sizeof l->gpu_req[1].id);
	l->buffers[1] = (struct llog_buffer){LLOG_WEIGHTS, "CUDA1", 100 * MiB, true};
	l->n_buffers = 2;
	assert_int_equal(breakdown_join_device(f->snap, f->p, l, "CUDA1", &how), 2);
	assert_int_equal(how, EX_JOIN_GUESS);
	fx_free(f);
}

/* The suite's two-GPU Ollama log (GPULayers by UUID, memory lines per
 * CUDAn) on the first two of the three GPUs, UUIDs as the log names them. */
static struct fx *ollama_fx(const char *env)
{
	struct fx *f = fx_new(names_same, env);
	str_copy(f->snap->devices[0].uuid, "GPU-11111111-aaaa-bbbb-cccc-000000000001", sizeof f->snap->devices[0].uuid);
	str_copy(f->snap->devices[1].uuid, "GPU-22222222-aaaa-bbbb-cccc-000000000002", sizeof f->snap->devices[1].uuid);
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/unit/llmlog/ollama-multigpu-lines.txt", tu_source_root());
	size_t n;
	char *buf = tu_read_file(path, &n);
	llama_log_init(f->lg);
	ollama_log_parse(f->lg, buf, n);
	free(buf);
	struct bd_input in = {f->snap, f->p, llama_log_last(f->lg), NULL, NULL};
	breakdown_build(f->e, &in);
	return f;
}

/* Ollama's runner with CUDA_VISIBLE_DEVICES of GPU UUIDs (in an order of its
 * own): exact. Without it, the load request's order: a guess, marked. */
static void test_ollama_two_gpus(void **state)
{
	(void)state;
	struct fx *f = ollama_fx("CUDA_VISIBLE_DEVICES=GPU-22222222-aaaa-bbbb-cccc-000000000002,"
				 "GPU-11111111-aaaa-bbbb-cccc-000000000001\n");
	expect_join(f->e, 1, 0, EX_JOIN_UUID);
	assert_int_equal(seg_of(f->e, EX_SEG_KV, EX_SRC_LOG, "CUDA1")->gpu, 0);
	assert_true(seg_of(f->e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0")->approx); /* "16.0 GiB" */
	assert_int_equal(dev_of(f->e, 1)->weights, 16ull << 30);
	assert_int_equal(dev_of(f->e, 1)->layers, 16); /* the request's layers for its UUID */
	assert_int_equal(dev_of(f->e, 1)->first_layer, 33);
	assert_int_equal(dev_of(f->e, 0)->layers, 33);
	assert_int_equal(dev_of(f->e, 2)->layers, -1);
	fx_free(f);
	f = ollama_fx(NULL);
	expect_join(f->e, 0, 1, EX_JOIN_GUESS);
	assert_true(has_note(f->e, "a guess by order"));
	fx_free(f);
}

/* One API figure (size_vram) for a model on several GPUs: on no one GPU, said. */
static void test_api_total_over_gpus(void **state)
{
	(void)state;
	struct fx *f = fx_new(names_same, NULL);
	struct ex_server_model m;
	memset(&m, 0, sizeof m);
	str_copy(m.name, "qwen3:32b", sizeof m.name);
	m.size = gtm_u64_of(30ull << 30, GTM_REPORTED);
	m.size_vram = gtm_u64_of(24ull << 30, GTM_REPORTED);
	m.n_ctx = GTM_U64_NA;
	struct bd_input in = {f->snap, f->p, NULL, &m, NULL};
	breakdown_build(f->e, &in);
	const struct ex_segment *s = seg_of(f->e, EX_SEG_RUNTIME_TOTAL, EX_SRC_API, "GPU");
	assert_non_null(s);
	assert_int_equal(s->gpu, -1);
	assert_true(has_note(f->e, "one VRAM figure for the model across 3 GPUs"));
	/* nothing subtracted from any GPU: each rest is its measurement */
	assert_int_equal(dev_of(f->e, 2)->rest.v, 1450 * MiB);
	assert_int_equal(dev_of(f->e, 2)->rest.prov, GTM_MEASURED);
	fx_free(f);
}

/* -sm row: the split weights are one "CUDA_Split" buffer, on no one GPU. */
static void test_row_split(void **state)
{
	(void)state;
	struct fx *f = fx_new(names_same, NULL);
	static const char log[] = "load_tensors:   CUDA_Split model buffer size =  3000.00 MiB\n"
				  "load_tensors:        CUDA0 model buffer size =    10.00 MiB\n";
	llama_log_init(f->lg);
	llama_log_parse(f->lg, log, strlen(log));
	struct bd_input in = {f->snap, f->p, llama_log_last(f->lg), NULL, NULL};
	breakdown_build(f->e, &in);
	const struct ex_segment *s = seg_of(f->e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA_Split");
	assert_non_null(s);
	assert_int_equal(s->gpu, -1);
	assert_false(s->host);
	assert_true(has_note(f->e, "CUDA_Split: a row split (-sm row)"));
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pci_join_shuffled),
		cmocka_unit_test(test_uuid_visible_devices),
		cmocka_unit_test(test_name_and_free_memory),
		cmocka_unit_test(test_guess_is_marked),
		cmocka_unit_test(test_ollama_load_request_uuid),
		cmocka_unit_test(test_ollama_two_gpus),
		cmocka_unit_test(test_api_total_over_gpus),
		cmocka_unit_test(test_row_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
