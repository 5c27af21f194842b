/* vLLM and SGLang startup lines: the suite's own lines of every shape
 * (always), and with the argument "fixture" every generation quoted in the
 * shared fixture folder inference-logs/, each section parsed on its own and
 * checked to the byte (skipped when the folder is absent). These are quoted
 * public lines, not captures of ours: no vLLM or SGLang ran here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/sglang_log.h"
#include "llm/vllm_log.h"
#include "testutil.h"

static uint64_t gib(double v)
{
	return (uint64_t)llround(v * 1073741824.0);
}

static const struct vllm_worker *vw(const struct vllm_log *lg, const char *tag)
{
	for (int i = 0; i < lg->n_workers; i++)
		if (!strcmp(lg->workers[i].tag, tag))
			return &lg->workers[i];
	fail_msg("no vLLM worker '%s'", tag);
	return NULL;
}

static const struct sglang_rank *sr(const struct sglang_log *lg, const char *tag)
{
	for (int i = 0; i < lg->n_ranks; i++)
		if (!strcmp(lg->ranks[i].tag, tag))
			return &lg->ranks[i];
	fail_msg("no SGLang rank '%s'", tag);
	return NULL;
}

static void vparse(struct vllm_log *lg, const char *text)
{
	vllm_log_init(lg);
	size_t n = vllm_log_parse(lg, text, strlen(text));
	/* a partial last line is left for the next read */
	assert_int_equal(n, strrchr(text, '\n') ? (size_t)(strrchr(text, '\n') - text) + 1 : 0);
}

static void sparse(struct sglang_log *lg, const char *text)
{
	sglang_log_init(lg);
	assert_int_equal(sglang_log_parse(lg, text, strlen(text)), strlen(text));
}

static void test_vllm_own(void **state)
{
	(void)state;
	struct vllm_log lg;
	uint64_t t;
	vparse(&lg, "INFO 01-02 03:04:05 llm_engine.py:196] # GPU blocks: 100, # CPU blocks: 20\n");
	assert_int_equal(lg.engines[0].gpu_blocks, 100);
	assert_int_equal(lg.cpu_blocks, 20);
	vparse(&lg, "(Worker_TP1 pid=77) INFO 01-02 03:04:05 [gpu_worker.py:1] Available KV cache memory: 10.5 GiB\n"
		    "(Worker_TP0 pid=76) INFO 01-02 03:04:05 [gpu_worker.py:1] Available KV cache memory: 10.25 GiB\n"
		    "(Worker_TP0 pid=76) INFO 01-02 03:04:05 [default_loader.py:1] Model loading took 7.5 GiB memory and 3.2 seconds\n"
		    "(EngineCore_DP0 pid=70) INFO 01-02 03:04:05 [kv_cache_utils.py:1] GPU KV cache size: 1,234,567 tokens\n"
		    "(EngineCore_DP1 pid=71) INFO 01-02 03:04:05 [kv_cache_utils.py:1] GPU KV cache size: 1,000 tokens\n"
		    "(EngineCore_DP0 pid=70) INFO 01-02 03:04:05 [kv_cache_utils.py:1] Maximum concurrency for 4,096 tokens per request: 12.5x\n"
		    "(APIServer pid=1) INFO 01-02 03:04:05 [loggers.py:1] Engine 000: Avg prompt throughput: 1.0 tokens/s, GPU KV cache usage: 12.5%, Prefix cache hit rate: 0.0%\n"
		    "partial line without newline: Available KV cache memory: 99 GiB");
	assert_int_equal(lg.n_workers, 2);
	assert_int_equal(vw(&lg, "Worker_TP1 pid=77")->kv_bytes, gib(10.5));
	assert_int_equal(vw(&lg, "Worker_TP1 pid=77")->tp_rank, 1);
	assert_int_equal(vw(&lg, "Worker_TP0 pid=76")->pid, 76);
	assert_int_equal(vw(&lg, "Worker_TP0 pid=76")->weights_bytes, gib(7.5));
	assert_true(vllm_log_kv_tokens(&lg, &t));
	assert_int_equal(t, 1235567);
	assert_int_equal(lg.concurrency_tokens, 4096);
	assert_true(fabs(lg.max_concurrency - 12.5) < 1e-9);
	assert_true(fabs(lg.kv_usage_pct - 12.5) < 1e-9);
	vparse(&lg, "(Worker_TP0 pid=9) INFO [gpu_worker.py:1] Free memory on device (70.0/80.0 GiB) on startup. Actual usage is "
		    "20.5 GiB for weight, 2.25 GiB for peak activation, 0.5 GiB for non-torch memory, and 0.75 GiB for CUDAGraph "
		    "memory. Current kv cache memory in use is 40.0 GiB.\n"
		    "(Worker_TP1) INFO [gpu_worker.py:1] Free memory on device (7.0/8.0 GiB) on startup. Desired GPU memory "
		    "utilization is (0.9, 7.2 GiB). Actual usage is 3.5 GiB for consumed memory (weights + non-torch), 1.5 GiB for "
		    "peak activation, and 0.25 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with "
		    "`--kv-cache-memory=1000` (0.5 GiB) to fit into requested memory.\n");
	const struct vllm_worker *w = vw(&lg, "Worker_TP0 pid=9");
	assert_int_equal(w->weights_bytes, gib(20.5));
	assert_int_equal(w->activation_bytes, gib(2.25));
	assert_int_equal(w->non_torch_bytes, gib(0.5));
	assert_int_equal(w->graph_bytes, gib(0.75));
	assert_int_equal(w->kv_in_use_bytes, gib(40.0));
	assert_int_equal(w->gpu_total_bytes, gib(80.0));
	w = vw(&lg, "Worker_TP1");
	assert_true(w->weights_with_non_torch);
	assert_int_equal(w->weights_bytes, gib(3.5));
	assert_int_equal(w->graph_bytes, gib(0.25));
	assert_false(w->have_non_torch);
	assert_false(w->have_kv_in_use);
	vparse(&lg, "INFO worker.py:1] model weights take 1.5GiB; non_torch_memory takes 0.25GiB; PyTorch activation peak "
		    "memory takes 0.5GiB; the rest of the memory reserved for KV Cache is 2.0GiB.\n"
		    "INFO metrics.py:1] Avg prompt throughput: 0.0 tokens/s, GPU KV cache usage: 3.5%, CPU KV cache usage: 0.0%\n");
	w = vw(&lg, "");
	assert_int_equal(w->weights_bytes, gib(1.5));
	assert_int_equal(w->kv_bytes, gib(2.0));
	assert_int_equal(w->activation_bytes, gib(0.5));
	assert_true(fabs(lg.kv_usage_pct - 3.5) < 1e-9);
	/* garbage and near misses stay out */
	vparse(&lg, "GPU KV cache size: tokens\nAvailable KV cache memory: -1 GiB\nModel loading took lots\n\n");
	assert_int_equal(lg.n_workers, 0);
	assert_int_equal(lg.lines, 0);
}

static void test_sglang_own(void **state)
{
	(void)state;
	struct sglang_log lg;
	sparse(&lg, "[2026-01-01 00:00:01 TP1] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=60.5 GB, mem usage=15.25 GB.\n"
		    "[2026-01-01 00:00:02 TP1] KV Cache is allocated. #tokens: 1000, K size: 0.5 GB, V size: 0.5 GB\n"
		    "[2026-01-01 00:00:03 TP1] Capture cuda graph end. Time elapsed: 1.00 s. mem usage=0.25 GB. avail mem=3.5 GB.\n"
		    "[2026-01-01 00:00:02 DP1 TP3 EP3] KV Cache is allocated. #tokens: 2048, KV size: 2.0 GB\n"
		    "[2026-01-01 00:00:04] max_total_num_tokens=1000, chunked_prefill_size=8192, context_len=4096, available_gpu_mem=3.5 GB\n"
		    "[2026-01-01 00:00:05 TP0] Decode batch, #running-req: 1, #token: 10, token usage: 0.25, cuda graph: True\n"
		    "[2026-01-01 00:00:06] The server is fired up and ready to roll!\n");
	const struct sglang_rank *r = sr(&lg, "TP1");
	assert_int_equal(r->tp_rank, 1);
	assert_int_equal(r->weights_bytes, gib(15.25));
	assert_int_equal(r->kv_bytes, gib(1.0));
	assert_int_equal(r->kv_tokens, 1000);
	assert_false(r->mla);
	assert_int_equal(sglang_rank_bytes_per_token(r), gib(1.0) / 1000);
	assert_int_equal(r->graph_bytes, gib(0.25));
	assert_int_equal(r->avail_bytes, gib(3.5));
	r = sr(&lg, "DP1 TP3 EP3");
	assert_true(r->mla);
	assert_int_equal(r->tp_rank, 3);
	assert_int_equal(r->kv_bytes, gib(2.0));
	assert_int_equal(lg.max_total_num_tokens, 1000);
	assert_int_equal(lg.context_len, 4096);
	assert_int_equal(lg.available_gpu_bytes, gib(3.5));
	assert_true(fabs(lg.token_usage - 0.25) < 1e-9);
	assert_true(lg.ready);
	sparse(&lg, "KV Cache is allocated. #tokens: 5\nKV Cache is allocated. K size: 1 GB\n[unclosed TP0 Load weight end. mem usage=1 GB\n");
	assert_false(lg.ranks[0].have_kv);
}

/* The text of one "## TITLE..." section of a fixture file (malloc'd). */
static char *section(const char *file, const char *title)
{
	const char *s = strstr(file, title);
	assert_non_null(s);
	s = strchr(s, '\n') + 1;
	const char *e = strstr(s, "\n## ");
	size_t n = e ? (size_t)(e - s) + 1 : strlen(s);
	char *out = malloc(n + 1);
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

static char *fixture_file(const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", tu_shared_fixture_or_skip("inference-logs"), name);
	return tu_read_file(path, NULL);
}

static void vsec(struct vllm_log *lg, const char *file, const char *title)
{
	char *s = section(file, title);
	vparse(lg, s);
	free(s);
}

static void test_vllm_fixture(void **state)
{
	(void)state;
	char *f = fixture_file("vllm-startup-lines-by-version.txt");
	struct vllm_log lg;
	uint64_t t;
	vsec(&lg, f, "## V0, 2023-08");
	assert_int_equal(lg.engines[0].gpu_blocks, 865);
	assert_int_equal(lg.cpu_blocks, 327);
	vsec(&lg, f, "## V0, 2024-12");
	assert_int_equal(vw(&lg, "")->weights_bytes, gib(14.9888));
	assert_int_equal(vw(&lg, "")->kv_bytes, gib(3.81));
	assert_int_equal(vw(&lg, "")->non_torch_bytes, gib(0.35));
	assert_int_equal(vw(&lg, "")->gpu_total_bytes, gib(23.58));
	assert_int_equal(lg.engines[0].gpu_blocks, 1952);
	assert_int_equal(lg.cpu_blocks, 2048);
	assert_int_equal(lg.concurrency_tokens, 20000);
	assert_true(fabs(lg.max_concurrency - 1.56) < 1e-9);
	vsec(&lg, f, "## V0 worker.py");
	const struct vllm_worker *w = vw(&lg, "VllmWorkerProcess pid=507");
	assert_int_equal(w->pid, 507);
	assert_int_equal(w->gpu_total_bytes, gib(23.58));
	assert_int_equal(w->weights_bytes, gib(21.21));
	assert_int_equal(w->non_torch_bytes, gib(0.20));
	assert_int_equal(w->activation_bytes, gib(0.37));
	assert_int_equal(w->kv_bytes, gib(1.57));
	vsec(&lg, f, "## V1, 2025-01");
	assert_int_equal(vw(&lg, "")->weights_bytes, gib(67.7229));
	assert_int_equal(lg.engines[0].gpu_blocks, 1381);
	assert_true(fabs(lg.max_concurrency - 10.79) < 1e-9);
	vsec(&lg, f, "## V1, 2025-02");
	assert_int_equal(lg.engines[0].gpu_blocks, 127626);
	assert_int_equal(lg.engines[0].kv_tokens, 2042016);
	assert_int_equal(lg.concurrency_tokens, 2048);
	assert_true(fabs(lg.max_concurrency - 997.08) < 1e-9);
	vsec(&lg, f, "## V1, 2025-07");
	assert_int_equal(vw(&lg, "")->kv_bytes, gib(8.11));
	assert_true(vllm_log_kv_tokens(&lg, &t));
	assert_int_equal(t, 178880);
	vsec(&lg, f, "## V1, 2025-12");
	w = vw(&lg, "Worker_TP0 pid=2412213");
	assert_int_equal(w->kv_bytes, gib(52.36));
	assert_int_equal(w->tp_rank, 0);
	assert_int_equal(lg.engines[0].kv_tokens, 686320);
	assert_string_equal(lg.engines[0].tag, "EngineCore_DP0 pid=2412130");
	assert_int_equal(lg.concurrency_tokens, 100000);
	vsec(&lg, f, "## V1 per-component split");
	w = vw(&lg, "Worker_TP0 pid=123");
	assert_int_equal(w->weights_bytes, gib(205.08));
	assert_int_equal(w->activation_bytes, gib(3.75));
	assert_int_equal(w->non_torch_bytes, gib(1.63));
	assert_int_equal(w->graph_bytes, gib(0.14));
	assert_int_equal(w->kv_in_use_bytes, gib(43.85));
	assert_int_equal(w->gpu_total_bytes, gib(267.69));
	w = vw(&lg, "Worker_TP0");
	assert_true(w->weights_with_non_torch);
	assert_int_equal(w->weights_bytes, gib(4.77));
	assert_int_equal(w->activation_bytes, gib(5.4));
	assert_int_equal(w->graph_bytes, gib(3.74));
	assert_int_equal(w->gpu_total_bytes, gib(23.98));
	assert_int_equal(lg.n_workers, 2);
	vsec(&lg, f, "## V1 periodic stats line");
	assert_true(fabs(lg.kv_usage_pct - 45.7) < 1e-9);
	vsec(&lg, f, "## V0 periodic stats line");
	assert_true(fabs(lg.kv_usage_pct - 0.1) < 1e-9);
	free(f);
}

static void ssec(struct sglang_log *lg, const char *file, const char *title)
{
	char *s = section(file, title);
	sparse(lg, s);
	free(s);
}

static void test_sglang_fixture(void **state)
{
	(void)state;
	char *f = fixture_file("sglang-startup-lines.txt");
	struct sglang_log lg;
	ssec(&lg, f, "## MHA pool");
	const struct sglang_rank *r = sr(&lg, "");
	assert_int_equal(r->kv_tokens, 367404);
	assert_int_equal(r->k_bytes, gib(8.23));
	assert_int_equal(r->v_bytes, gib(8.23));
	assert_int_equal(r->kv_bytes, 2 * gib(8.23));
	ssec(&lg, f, "## MLA pool");
	r = sr(&lg, "TP0");
	assert_int_equal(r->weights_bytes, gib(28.79));
	assert_true(r->mla);
	assert_int_equal(r->kv_tokens, 383872);
	assert_int_equal(r->kv_bytes, gib(19.36));
	assert_int_equal(r->graph_bytes, gib(0.80));
	assert_int_equal(r->avail_bytes, gib(10.30));
	assert_true(lg.ready);
	ssec(&lg, f, "## DP/TP/EP-tagged prefix");
	r = sr(&lg, "DP0 TP0 EP0");
	assert_int_equal(r->weights_bytes, gib(107.07));
	assert_int_equal(r->kv_tokens, 524288);
	assert_int_equal(r->kv_bytes, gib(17.16));
	ssec(&lg, f, "## Scheduler summary line");
	assert_int_equal(lg.max_total_num_tokens, 2086558);
	assert_int_equal(lg.context_len, 256000);
	assert_int_equal(lg.available_gpu_bytes, gib(17.22));
	ssec(&lg, f, "## Older 'Load weight end'");
	r = sr(&lg, "");
	assert_false(r->have_weights);
	assert_int_equal(r->avail_bytes, gib(77.39));
	ssec(&lg, f, "## Periodic batch line");
	assert_true(fabs(lg.token_usage - 0.50) < 1e-9);
	free(f);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "fixture")) {
		tu_shared_fixture_or_skip("inference-logs");
		const struct CMUnitTest tests[] = {cmocka_unit_test(test_vllm_fixture), cmocka_unit_test(test_sglang_fixture)};
		return cmocka_run_group_tests(tests, NULL, NULL);
	}
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_vllm_own), cmocka_unit_test(test_sglang_own)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
