/* vLLM's per-layer KV page sizes over a parsed config.json (vllm_kv.h). */
#include "llm/vllm_kv.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"

/* --kv-cache-dtype values (vllm/config/cache.py CacheDType) and bytes per element. */
static const struct {
	const char *name;
	unsigned bytes;
} kv_dtypes[] = {
	{"bfloat16", 2}, {"float16", 2}, {"half", 2}, {"fp8", 1}, {"fp8_e4m3", 1}, {"fp8_e5m2", 1}, {"fp8_inc", 1},
	{"fp8_ds_mla", 0},
};

bool vllm_kv_dtype_known(const char *name)
{
	if (!strcmp(name, "auto"))
		return true;
	for (size_t i = 0; i < ARRAY_LEN(kv_dtypes); i++)
		if (!strcmp(name, kv_dtypes[i].name))
			return true;
	return false;
}

static uint64_t cdiv(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* "auto" is the model's dtype; vLLM serves a float32 checkpoint in 16 bits
 * unless told otherwise (its --dtype auto). */
static bool pick_dtype(const struct hf_config *c, const char *want, struct vllm_kv *k, char *err, size_t en)
{
	if (!want || !strcmp(want, "auto")) {
		k->dtype_bytes = 2;
		k->dtype_name = !strcmp(c->dtype, "float32") ? "16-bit (vLLM serves this float32 model in 16 bits)"
			      : c->dtype[0]                 ? "the model's dtype"
							    : "16-bit (config.json names no dtype)";
		return true;
	}
	for (size_t i = 0; i < ARRAY_LEN(kv_dtypes); i++)
		if (!strcmp(want, kv_dtypes[i].name)) {
			k->dtype_bytes = kv_dtypes[i].bytes;
			k->dtype_name = kv_dtypes[i].name;
			if (!k->dtype_bytes && !c->mla) {
				snprintf(err, en, "--kv-cache-dtype fp8_ds_mla is for MLA models only");
				return false;
			}
			return true;
		}
	snprintf(err, en, "--kv-cache-dtype %.40s is not one of vLLM's (auto, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla)", want);
	return false;
}

static void layer_bytes(const struct hf_config *c, struct vllm_kv *k)
{
	if (c->mla) {
		/* one latent shared by every head, replicated on every rank */
		k->mla = true;
		k->kv_heads_rank = 1;
		k->head_size = c->kv_lora_rank + c->qk_rope_head_dim;
		k->head_size_v = 0;
		k->layer_token_bytes = k->dtype_bytes ? k->head_size * k->dtype_bytes : VLLM_FP8_DS_MLA_BYTES;
		return;
	}
	k->kv_heads_rank = c->n_kv_head / k->tp ? c->n_kv_head / k->tp : 1;
	k->head_size = k->head_size_v = c->head_dim;
	k->layer_token_bytes = k->kv_heads_rank * (k->head_size + k->head_size_v) * k->dtype_bytes;
}

bool vllm_kv_estimate(const struct hf_config *c, const struct vllm_kv_opts *o, struct vllm_kv *k, char *err,
		      size_t en)
{
	memset(k, 0, sizeof *k);
	k->tp = o->tp ? o->tp : 1;
	k->block_size = o->block_size ? o->block_size : VLLM_DEFAULT_BLOCK;
	k->max_num_batched_tokens = o->max_num_batched_tokens ? o->max_num_batched_tokens : VLLM_DEFAULT_BATCHED_TOKENS;
	k->max_model_len = o->max_model_len ? o->max_model_len : c->max_pos;
	if (!c->n_layer || (!c->mla && (!c->n_kv_head || !c->head_dim))) {
		snprintf(err, en, "config.json lacks the layers, KV heads or head size the KV formula needs");
		return false;
	}
	if (!k->max_model_len) {
		snprintf(err, en, "config.json has no max_position_embeddings: give --max-model-len");
		return false;
	}
	if (!pick_dtype(c, o->kv_cache_dtype, k, err, en))
		return false;
	layer_bytes(c, k);
	k->n_full = c->n_layers_kind[HF_LAYER_FULL];
	k->n_sliding = c->n_layers_kind[HF_LAYER_SLIDING];
	k->n_linear = c->n_layers_kind[HF_LAYER_LINEAR];
	k->n_unknown = c->n_layers_kind[HF_LAYER_UNKNOWN];
	uint64_t n_attn = k->n_full + k->n_sliding + k->n_unknown;
	k->per_token = n_attn * k->layer_token_bytes;
	/* a full layer holds every token of the sequence in whole blocks */
	uint64_t full_blocks = cdiv(k->max_model_len, k->block_size);
	uint64_t win = c->sliding_window ? c->sliding_window - 1 + k->max_num_batched_tokens : k->max_model_len;
	uint64_t swa_blocks = cdiv(win < k->max_model_len ? win : k->max_model_len, k->block_size) + 1;
	uint64_t block_bytes = k->layer_token_bytes * k->block_size;
	k->seq_bytes = ((k->n_full + k->n_unknown) * full_blocks + k->n_sliding * swa_blocks) * block_bytes;
	k->seq_bytes_full_bound = n_attn * full_blocks * block_bytes;
	return true;
}
