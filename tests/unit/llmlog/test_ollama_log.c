/* Ollama server.log reader: Go engine lines, the pre-2025-11 estimate line and
 * raw llama-server runner lines, shaped after real logs quoted in ollama issues. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/ollama_log.h"
#include "testutil.h"

#define GIB_F(x) ((uint64_t)((x) * 1073741824.0 + 0.5))
#define MIB_F(x) ((uint64_t)((x) * 1048576.0 + 0.5))

static struct llama_log *parse(const char *s)
{
	struct llama_log *lg = malloc(sizeof *lg);
	llama_log_init(lg);
	ollama_log_parse(lg, s, strlen(s));
	return lg;
}

static void test_time(void **state)
{
	(void)state;
	int64_t t;
	assert_true(ollama_parse_time("2025-08-24T08:26:00.310Z", 24, &t));
	assert_int_equal(t, 1756023960);
	assert_true(ollama_parse_time("2025-08-22T17:36:22.023-04:00 level", 35, &t));
	assert_int_equal(t, 1755898582);
	assert_false(ollama_parse_time("2025-13-22T17:36:22Z", 20, &t));
	assert_false(ollama_parse_time("2025-08-22T17:36:22", 19, &t));
	assert_false(ollama_parse_time("2025-08-22T17:36:22+0", 21, &t));
}

static void test_kv(void **state)
{
	(void)state;
	const char *l = "time=x level=INFO msg=\"a \\\"b\\\" c\" device=CUDA0 size=\"1.5 GiB\" memory.required.kv=\"1.0 GiB\"";
	char v[64];
	assert_true(ollama_kv(l, l + strlen(l), "msg", v, sizeof v));
	assert_string_equal(v, "a \"b\" c");
	assert_true(ollama_kv(l, l + strlen(l), "device", v, sizeof v));
	assert_string_equal(v, "CUDA0");
	assert_true(ollama_kv(l, l + strlen(l), "memory.required.kv", v, sizeof v));
	assert_string_equal(v, "1.0 GiB");
	assert_false(ollama_kv(l, l + strlen(l), "kv", v, sizeof v));
	uint64_t b;
	assert_true(llog_parse_size("19.9 GiB", 8, &b));
	assert_int_equal(b, (uint64_t)(19.9 * 1073741824.0 + 0.5));
	assert_true(llog_parse_size("0 B", 3, &b));
	assert_int_equal(b, 0);
	assert_false(llog_parse_size("1.0 XB", 6, &b));
	assert_false(llog_parse_size("99999999999999 TiB", 18, &b));
}

static const char go_engine[] =
	"time=2025-08-24T08:25:59.100Z level=INFO source=server.go:383 msg=\"starting runner\" cmd=\"/usr/bin/ollama runner --ollama-engine --model /root/.ollama/models/blobs/sha256-aaaa --port 36629\"\n"
	"time=2025-08-24T08:26:00.310Z level=INFO source=backend.go:310 msg=\"model weights\" device=CUDA0 size=\"4.1 GiB\"\n"
	"time=2025-08-24T08:26:00.310Z level=INFO source=backend.go:315 msg=\"model weights\" device=CPU size=\"308.2 MiB\"\n"
	"time=2025-08-24T08:26:00.310Z level=INFO source=backend.go:321 msg=\"kv cache\" device=CUDA0 size=\"936.0 MiB\"\n"
	"time=2025-08-24T08:26:00.310Z level=INFO source=backend.go:332 msg=\"compute graph\" device=CUDA0 size=\"98.0 MiB\"\n"
	"time=2025-08-24T08:26:00.310Z level=INFO source=backend.go:337 msg=\"compute graph\" device=CPU size=\"8.0 MiB\"\n"
	"time=2025-08-24T08:26:00.310Z level=INFO source=backend.go:342 msg=\"total memory\" size=\"5.4 GiB\"\n"
	"time=2025-08-24T08:26:00.311Z level=INFO source=ggml.go:100 msg=\"offloaded 29/29 layers to GPU\"\n"
	"[GIN] 2025/08/24 - 08:26:19 | 200 |   40.5837591s |    192.168.1.17 | POST     \"/api/generate\"\n"
	"time=2025-08-24T08:26:08.833Z level=INFO source=server.go:1272 msg=\"llama runner started in 9.16 seconds\"\n";

static void test_go_engine(void **state)
{
	(void)state;
	struct llama_log *lg = parse(go_engine);
	assert_int_equal(lg->n_loads, 1);
	const struct llog_load *l = &lg->loads[0];
	assert_string_equal(l->model, "/root/.ollama/models/blobs/sha256-aaaa");
	assert_int_equal(l->port, 36629);
	assert_int_equal(l->t_wall_s, 1756023959);
	assert_int_equal(l->n_buffers, 5);
	assert_true(l->buffers[0].approx);
	assert_string_equal(l->buffers[2].device, "CUDA0");
	assert_int_equal(l->buffers[2].seg, LLOG_KV);
	assert_int_equal(l->buffers[2].bytes, 936ull << 20);
	assert_int_equal(l->layers_offloaded, 29);
	assert_int_equal(l->layers_total, 29);
	assert_true(l->loaded);
	assert_false(l->runtime_estimate);
	free(lg);
}

static void test_old_estimate_and_raw_runner(void **state)
{
	(void)state;
	struct llama_log *lg = parse(
		"Dec 15 01:34:58 host ollama[1]: time=2024-12-15T01:34:58.907+09:00 level=INFO source=memory.go:356 msg=\"offload to cuda\" layers.requested=-1 layers.model=29 layers.offload=29 layers.split=\"\" memory.available=\"[78.6 GiB]\" memory.gpu_overhead=\"0 B\" memory.required.full=\"3.7 GiB\" memory.required.partial=\"3.7 GiB\" memory.required.kv=\"896.0 MiB\" memory.required.allocations=\"[3.7 GiB]\" memory.weights.total=\"2.4 GiB\" memory.weights.repeating=\"2.1 GiB\" memory.weights.nonrepeating=\"308.2 MiB\" memory.graph.full=\"424.0 MiB\" memory.graph.partial=\"570.7 MiB\"\n"
		"Dec 15 01:34:58 host ollama[1]: time=2024-12-15T01:34:58.907+09:00 level=INFO source=server.go:376 msg=\"starting llama server\" cmd=\"/usr/lib/ollama/runners/cuda_v12_avx/ollama_llama_server runner --model /root/.ollama/models/blobs/sha256-dde5 --ctx-size 8192 --batch-size 512 --n-gpu-layers 29 --threads 104 --parallel 4 --port 38609\"\n"
		"Dec 15 01:34:59 host ollama[1]: llama_model_loader: loaded meta data with 34 key-value pairs and 338 tensors from /root/.ollama/models/blobs/sha256-dde5 (version GGUF V3 (latest))\n"
		"Dec 15 01:34:59 host ollama[1]: llm_load_tensors:        CUDA0 buffer size =  1918.35 MiB\n"
		"Dec 15 01:34:59 host ollama[1]: llama_kv_cache_init:      CUDA0 KV buffer size =   896.00 MiB\n"
		"time=2025-10-01T10:00:00.000Z level=INFO source=server.go:400 msg=\"starting runner\" cmd=\"/usr/bin/llama-server --model /b/sha256-bbbb --port 40000\"\n"
		"0.00.001.000 I build: 10488 (abc) with cc\n"
		"0.00.004.000 I srv    load_model: loading model '/b/sha256-bbbb'\n"
		"0.00.100.000 I load_tensors:        CUDA0 model buffer size =   500.00 MiB\n");
	assert_int_equal(lg->n_loads, 2);
	const struct llog_load *a = &lg->loads[0], *b = &lg->loads[1];
	assert_true(a->runtime_estimate);
	assert_int_equal(a->port, 38609);
	assert_string_equal(a->model, "/root/.ollama/models/blobs/sha256-dde5");
	/* the raw runner lines joined the estimate's block: the real figures replace the estimate */
	bool found = false;
	for (int i = 0; i < a->n_buffers; i++)
		if (a->buffers[i].seg == LLOG_WEIGHTS && strcmp(a->buffers[i].device, "CUDA0") == 0) {
			assert_int_equal(a->buffers[i].bytes, (uint64_t)(1918.35 * 1048576.0 + 0.5));
			found = true;
		}
	assert_true(found);
	assert_int_equal(b->port, 40000);
	assert_string_equal(b->model, "/b/sha256-bbbb");
	assert_int_equal(b->n_buffers, 1);
	assert_int_equal(b->t_wall_s, 1759312800);
	assert_int_equal(lg->n_runs, 2);
	free(lg);
}

static uint64_t bytes_on(const struct llog_load *l, enum llog_seg seg, const char *dev)
{
	for (int i = 0; i < l->n_buffers; i++)
		if (l->buffers[i].seg == seg && !strcmp(l->buffers[i].device, dev))
			return l->buffers[i].bytes;
	return UINT64_MAX;
}

static struct llama_log *quoted_block(const char *title)
{
	const char *dir = tu_shared_fixture("inference-logs");
	if (!dir)
		return NULL;
	char path[1024];
	snprintf(path, sizeof path, "%s/ollama-server-log-lines.txt", dir);
	char *b = tu_fixture_block(path, title);
	struct llama_log *lg = parse(b);
	free(b);
	return lg;
}

/* The quoted generations of the per-device memory lines: ggml.go's buffer=
 * (and compute graph's backend=/buffer_type=), device.go's device= with the
 * load request naming the GPU by UUID and its layer range, total memory. */
static void test_quoted_memory_lines(void **state)
{
	(void)state;
	struct llama_log *lg = quoted_block("New memory management, first form");
	if (!lg)
		skip();
	const struct llog_load *l = llama_log_last(lg);
	assert_int_equal(bytes_on(l, LLOG_WEIGHTS, "CUDA1"), GIB_F(11.9));
	assert_int_equal(bytes_on(l, LLOG_WEIGHTS, "CPU"), MIB_F(680.0));
	assert_int_equal(bytes_on(l, LLOG_WEIGHTS, "CUDA0"), GIB_F(11.5));
	assert_int_equal(bytes_on(l, LLOG_COMPUTE, "CUDA0"), 0);
	assert_int_equal(l->layers_offloaded, 41);
	free(lg);
	lg = quoted_block("backend.go form");
	l = llama_log_last(lg);
	assert_int_equal(bytes_on(l, LLOG_KV, "CUDA0"), MIB_F(936.0));
	assert_int_equal(bytes_on(l, LLOG_COMPUTE, "CPU"), MIB_F(8.0));
	assert_int_equal(l->total_bytes, GIB_F(5.4));
	free(lg);
	lg = quoted_block("device.go form");
	l = llama_log_last(lg);
	assert_int_equal(l->n_gpu_req, 1);
	assert_string_equal(l->gpu_req[0].id, "GPU-223c73ff-f253-3c8c-d212-82b5d1ce2963");
	assert_int_equal(l->gpu_req[0].layers, 20);
	assert_int_equal(l->gpu_req[0].first, 28);
	assert_int_equal(l->gpu_req[0].last, 47);
	assert_int_equal(bytes_on(l, LLOG_WEIGHTS, "CUDA0"), GIB_F(19.9));
	assert_int_equal(bytes_on(l, LLOG_WEIGHTS, "CPU"), GIB_F(28.3));
	assert_int_equal(bytes_on(l, LLOG_KV, "CUDA0"), GIB_F(1.1));
	assert_int_equal(bytes_on(l, LLOG_KV, "CPU"), GIB_F(1.5));
	assert_int_equal(bytes_on(l, LLOG_COMPUTE, "CUDA0"), MIB_F(884.1));
	assert_int_equal(bytes_on(l, LLOG_COMPUTE, "CPU"), MIB_F(270.6));
	assert_int_equal(l->total_bytes, GIB_F(51.9));
	assert_int_equal(l->layers_offloaded, 20);
	assert_int_equal(l->layers_total, 49);
	free(lg);
}

/* The suite's own two-GPU log (no real capture: see the file's head). */
static void test_written_two_gpus(void **state)
{
	(void)state;
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/unit/llmlog/ollama-multigpu-lines.txt", tu_source_root());
	size_t n;
	char *buf = tu_read_file(path, &n);
	struct llama_log *lg = malloc(sizeof *lg);
	llama_log_init(lg);
	ollama_log_parse(lg, buf, n);
	const struct llog_load *l = llama_log_last(lg);
	assert_int_equal(lg->n_loads, 1);
	assert_int_equal(l->port, 41111);
	assert_int_equal(l->n_gpu_req, 2);
	assert_string_equal(l->gpu_req[0].id, "GPU-11111111-aaaa-bbbb-cccc-000000000001");
	assert_int_equal(l->gpu_req[0].layers, 33);
	assert_int_equal(l->gpu_req[0].last, 32);
	assert_string_equal(l->gpu_req[1].id, "GPU-22222222-aaaa-bbbb-cccc-000000000002");
	assert_int_equal(l->gpu_req[1].first, 33);
	assert_int_equal(l->gpu_req[1].last, 48);
	assert_int_equal(bytes_on(l, LLOG_WEIGHTS, "CUDA0"), GIB_F(16.0));
	assert_int_equal(bytes_on(l, LLOG_WEIGHTS, "CUDA1"), GIB_F(8.0));
	assert_int_equal(bytes_on(l, LLOG_KV, "CUDA1"), MIB_F(512.0));
	assert_int_equal(bytes_on(l, LLOG_COMPUTE, "CUDA1"), MIB_F(200.0));
	assert_int_equal(l->total_bytes, GIB_F(26.5));
	assert_true(l->loaded);
	free(lg);
	free(buf);
	/* a non-contiguous layer list, and garbage after GPULayers */
	lg = parse("time=2026-04-10T08:00:01.630Z level=INFO msg=load request=\"{GPULayers:3[ID:GPU-c Layers:3[1 3 5] "
		   "ID:GPU-d Layers:2(7..8)] MainGPU:0}\"\n"
		   "time=2026-04-10T08:00:01.631Z level=INFO msg=load request=\"{GPULayers:[ID:GPU-e Layers:x(9..]}\"\n");
	l = llama_log_last(lg);
	assert_int_equal(l->n_gpu_req, 1); /* the second request replaced the first */
	assert_string_equal(l->gpu_req[0].id, "GPU-e");
	assert_int_equal(l->gpu_req[0].layers, -1);
	free(lg);
	lg = parse("time=2026-04-10T08:00:01.630Z level=INFO msg=load request=\"{GPULayers:3[ID:GPU-c Layers:3[1 3 5] "
		   "ID:GPU-d Layers:2(7..8)] MainGPU:0}\"\n");
	l = llama_log_last(lg);
	assert_int_equal(l->n_gpu_req, 2);
	assert_int_equal(l->gpu_req[0].first, -1);
	assert_int_equal(l->gpu_req[1].first, 7);
	free(lg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_go_engine),
		cmocka_unit_test(test_old_estimate_and_raw_runner),
		cmocka_unit_test(test_quoted_memory_lines),
		cmocka_unit_test(test_written_two_gpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
