/* vLLM's startup and stats lines, every generation (V0 2023 to V1 2026):
 *   "# GPU blocks: 865, # CPU blocks: 327"                 (V0 llm_engine.py; blocks)
 *   "Memory profiling results: ... non_torch_memory=0.35GiB kv_cache_size=3.81GiB"
 *   "model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation
 *    peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB."
 *   "Loading model weights took 67.7229 GB", "Model loading took X GiB memory and Y seconds"
 *   "# GPU blocks: 1381" (V1), "GPU KV cache size: 2,042,016 tokens",
 *   "Maximum concurrency for 2,048 tokens per request: 997.08x"
 *   "Available KV cache memory: 52.36 GiB"                 (per worker, gpu_worker.py)
 *   "Actual usage is 205.08 GiB for weight, 3.75 GiB for peak activation, 1.63 GiB for
 *    non-torch memory, and 0.14 GiB for CUDAGraph memory. Current kv cache memory in use
 *    is 43.85 GiB." and "Actual usage is 4.77 GiB for consumed memory (weights +
 *    non-torch), 5.4 GiB for peak activation, and 3.74 GiB for CUDAGraph memory"
 *   "GPU KV cache usage: 45.7%" (periodic, V0 and V1)
 * Lines a worker prints carry "(Worker_TP0 pid=N)" or "(VllmWorkerProcess pid=N)":
 * each tensor-parallel rank is its own process and GPU, so per-worker figures
 * are kept per tag; the engine's token count is per engine core
 * ("(EngineCore_DP0 pid=N)"), summed over data-parallel ranks. All figures
 * are reported (the runtime's own words); sizes are GiB (2^30). */
#ifndef GTM_VLLM_LOG_H
#define GTM_VLLM_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VLLM_LOG_MAX_WORKERS 64
#define VLLM_LOG_MAX_ENGINES 16

struct vllm_worker {
	char tag[48];            /* "Worker_TP0 pid=2412213", "" for untagged lines */
	int64_t pid;             /* from the tag, -1 when none */
	int tp_rank;             /* from "TP<n>", -1 when none */
	bool have_kv, have_kv_in_use, have_weights, have_activation, have_non_torch, have_graph, have_gpu_total;
	uint64_t kv_bytes;       /* Available KV cache memory / the rest reserved for KV Cache / kv_cache_size */
	uint64_t kv_in_use_bytes;/* Current kv cache memory in use */
	uint64_t weights_bytes;  /* weights (or weights + non-torch: weights_with_non_torch) */
	bool weights_with_non_torch;
	uint64_t activation_bytes, non_torch_bytes, graph_bytes;
	uint64_t gpu_total_bytes;/* Free memory on device (free/total GiB) or total_gpu_memory */
};

struct vllm_engine {
	char tag[48];            /* "EngineCore_DP0 pid=2412130", "" */
	bool have_tokens, have_blocks;
	uint64_t kv_tokens;      /* GPU KV cache size: N tokens */
	uint64_t gpu_blocks;     /* # GPU blocks: N */
};

struct vllm_log {
	struct vllm_worker workers[VLLM_LOG_MAX_WORKERS];
	int n_workers;
	struct vllm_engine engines[VLLM_LOG_MAX_ENGINES];
	int n_engines;
	bool have_cpu_blocks;
	uint64_t cpu_blocks;
	bool have_concurrency;
	uint64_t concurrency_tokens;  /* per request */
	double max_concurrency;       /* the "x" factor */
	bool have_usage;
	double kv_usage_pct;          /* the last periodic "GPU KV cache usage: X%" */
	unsigned lines;               /* lines that matched a known shape */
};

void vllm_log_init(struct vllm_log *lg);
/* Whole lines only (a partial last line is left). Returns bytes consumed. */
size_t vllm_log_parse(struct vllm_log *lg, const char *buf, size_t len);
void vllm_log_line(struct vllm_log *lg, const char *line, size_t n);
/* Tokens over every engine core (data-parallel ranks); false when none said. */
bool vllm_log_kv_tokens(const struct vllm_log *lg, uint64_t *tokens);

#endif
