/* SGLang's startup lines (sgl-project/sglang, model_runner.py and
 * mem_cache/memory_pool.py):
 *   "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB" (MHA pool)
 *   "KV Cache is allocated. #tokens: 383872, KV size: 19.36 GB"               (MLA pool)
 *   "Load weight end. [elapsed=.., ]type=.., [dtype=.., ]avail mem=32.02 GB, mem usage=28.79 GB."
 *   "Capture cuda graph end. ... mem usage=0.80 GB. avail mem=10.30 GB." (also "npu graph")
 *   "max_total_num_tokens=2086558, ..., context_len=256000, available_gpu_mem=17.22 GB"
 *   "... token usage: 0.50, ..." (periodic batch lines)
 * prefixed "[date time TP0]" or "[date time DP0 TP0 EP0]": one tensor-parallel
 * rank per GPU, kept per tag. SGLang's GB is GiB (GB = 1024 * 1024 * 1024).
 * All figures are reported. */
#ifndef GTM_SGLANG_LOG_H
#define GTM_SGLANG_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SGLANG_LOG_MAX_RANKS 64

struct sglang_rank {
	char tag[48];             /* "TP0", "DP0 TP0 EP0", "" */
	int tp_rank;              /* from "TP<n>", -1 */
	bool have_kv, mla, have_weights, have_graph, have_avail;
	uint64_t kv_tokens;       /* #tokens */
	uint64_t k_bytes, v_bytes;/* MHA: K size, V size */
	uint64_t kv_bytes;        /* K + V, or the MLA pool's KV size */
	uint64_t weights_bytes;   /* Load weight end's mem usage */
	uint64_t graph_bytes;     /* Capture ... graph end's mem usage */
	uint64_t avail_bytes;     /* the last "avail mem" */
};

struct sglang_log {
	struct sglang_rank ranks[SGLANG_LOG_MAX_RANKS];
	int n_ranks;
	bool have_max_tokens, have_context, have_available, have_usage, ready;
	uint64_t max_total_num_tokens, context_len, available_gpu_bytes;
	double token_usage;       /* the last periodic "token usage: X" (0..1) */
	unsigned lines;
};

void sglang_log_init(struct sglang_log *lg);
size_t sglang_log_parse(struct sglang_log *lg, const char *buf, size_t len);
void sglang_log_line(struct sglang_log *lg, const char *line, size_t n);
/* KV bytes per token of a rank's pool: kv_bytes / #tokens (0 when unknown). */
uint64_t sglang_rank_bytes_per_token(const struct sglang_rank *r);

#endif
