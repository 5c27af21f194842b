/* KV cache bytes a PyTorch / transformers job holds per 1,000 tokens of
 * context, from its model's config.json. transformers' caches
 * (cache_utils.py: DynamicCache and its layers) keep, per attention layer and
 * token, a key and a value of kv_heads x head_dim each in the model's dtype;
 * an MLA model's attention (DeepSeek V2/V3 in transformers) caches the
 * decompressed keys (heads x (qk_nope + qk_rope)) and values (heads x
 * v_head_dim), not vLLM's one latent; a sliding-window layer keeps at most
 * its window; a linear/Mamba layer a constant state (not counted here). The
 * context a job runs at is not known from outside, hence "per 1k tokens".
 * An estimate: the job may load the model in another dtype or use a
 * quantized or static cache. Pure. */
#ifndef GTM_TORCH_KV_H
#define GTM_TORCH_KV_H

#include <stdbool.h>
#include <stdint.h>

#include "llm/hf_config.h"

#define TORCH_KV_TOKENS 1000u

struct torch_kv {
	unsigned dtype_bytes;
	bool dtype_assumed;       /* config.json names no dtype we know: 16-bit taken */
	uint64_t layer_token_bytes; /* one full-attention layer, one token */
	uint64_t n_full, n_sliding, n_linear; /* unknown layer types count as full */
	uint64_t window;
	uint64_t per_1k;          /* bytes for TORCH_KV_TOKENS tokens of one sequence */
};

/* false when the config lacks layers, heads or a head size. */
bool torch_kv_estimate(const struct hf_config *c, struct torch_kv *out);

#endif
