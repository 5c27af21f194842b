/* KV cache bytes as vLLM sizes them from a config.json
 * (vllm/v1/kv_cache_interface.py): a full-attention layer caches
 * kv_heads x (head_size + head_size_v) x dtype per token, kv_heads being per
 * tensor-parallel rank (at least 1); an MLA layer one latent of
 * kv_lora_rank + qk_rope_head_dim per token, the same on every rank
 * (fp8_ds_mla: 656 bytes); a sliding-window layer at most
 * cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block) + 1
 * blocks per sequence; a Mamba/linear layer a constant state per sequence
 * (never a per-token cost; not estimated here). Pages are blocks of
 * block_size tokens. Estimates, and only of what one sequence needs: vLLM
 * then fills --gpu-memory-utilization with blocks. */
#ifndef GTM_VLLM_KV_H
#define GTM_VLLM_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/hf_config.h"

#define VLLM_DEFAULT_BLOCK 16u
#define VLLM_DEFAULT_BATCHED_TOKENS 2048u
#define VLLM_DEFAULT_GPU_UTIL 0.9
#define VLLM_FP8_DS_MLA_BYTES 656u

struct vllm_kv_opts {
	const char *kv_cache_dtype; /* "auto" (NULL), "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_ds_mla" */
	unsigned tp;                /* --tensor-parallel-size, 1 when 0 */
	uint64_t max_model_len;     /* 0: the config's max_position_embeddings */
	unsigned block_size;        /* 0: 16 */
	uint64_t max_num_batched_tokens; /* 0: 2048 */
};

struct vllm_kv {
	unsigned dtype_bytes;       /* per element; 0 for fp8_ds_mla (per token instead) */
	const char *dtype_name;     /* what the bytes are: "bfloat16 (the model's dtype)" */
	uint64_t kv_heads_rank;     /* KV heads each GPU caches */
	uint64_t head_size, head_size_v;
	bool mla;
	uint64_t layer_token_bytes; /* one attention layer, one token, one GPU */
	uint64_t n_full, n_sliding, n_linear, n_unknown;
	uint64_t per_token;         /* all attention layers, one token, one GPU (before windows bound) */
	uint64_t max_model_len;
	uint64_t seq_bytes;         /* one sequence of max_model_len, one GPU, in whole blocks */
	uint64_t seq_bytes_full_bound; /* the same with every sliding layer costed as full */
	unsigned tp, block_size;
	uint64_t max_num_batched_tokens;
};

/* Whether name is one of vLLM's --kv-cache-dtype values ("auto" included). */
bool vllm_kv_dtype_known(const char *name);
/* false with err set when the config lacks what the formula needs (layers,
 * heads, head size) or the dtype is not one of vLLM's. */
bool vllm_kv_estimate(const struct hf_config *c, const struct vllm_kv_opts *o, struct vllm_kv *out, char *err,
		      size_t errlen);

#endif
