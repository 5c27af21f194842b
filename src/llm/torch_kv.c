/* transformers' KV cache per 1k tokens over a parsed config.json (torch_kv.h). */
#include "llm/torch_kv.h"

#include <string.h>

#include "core/util.h"

/* Heads and head sizes above this are no model's: refused, which also keeps
 * the products below 2^60 (2^16 x 3 x 2^16 x 4 bytes x 4096 layers x 1000). */
#define DIM_MAX (1u << 16)

static const struct {
	const char *name;
	unsigned bytes;
} dtypes[] = {{"bfloat16", 2}, {"float16", 2}, {"half", 2}, {"float32", 4}, {"float", 4}};

bool torch_kv_estimate(const struct hf_config *c, struct torch_kv *k)
{
	memset(k, 0, sizeof *k);
	k->dtype_bytes = 2;
	k->dtype_assumed = true;
	for (size_t i = 0; i < ARRAY_LEN(dtypes); i++)
		if (!strcmp(c->dtype, dtypes[i].name)) {
			k->dtype_bytes = dtypes[i].bytes;
			k->dtype_assumed = false;
		}
	if (!c->n_layer || c->n_layer > HF_MAX_LAYERS)
		return false;
	uint64_t per_elem;
	if (c->mla) {
		if (!c->n_head || !(c->qk_nope_head_dim + c->qk_rope_head_dim) || !c->v_head_dim || c->n_head > DIM_MAX ||
		    c->qk_nope_head_dim > DIM_MAX || c->qk_rope_head_dim > DIM_MAX || c->v_head_dim > DIM_MAX)
			return false;
		per_elem = c->n_head * (c->qk_nope_head_dim + c->qk_rope_head_dim + c->v_head_dim);
	} else {
		uint64_t kvh = c->n_kv_head ? c->n_kv_head : c->n_head;
		if (!kvh || !c->head_dim || kvh > DIM_MAX || c->head_dim > DIM_MAX)
			return false;
		per_elem = 2 * kvh * c->head_dim;
	}
	k->layer_token_bytes = per_elem * k->dtype_bytes;
	k->n_sliding = c->n_layers_kind[HF_LAYER_SLIDING];
	k->n_linear = c->n_layers_kind[HF_LAYER_LINEAR];
	k->n_full = c->n_layer > k->n_sliding + k->n_linear ? c->n_layer - k->n_sliding - k->n_linear : 0;
	k->window = c->sliding_window;
	uint64_t sliding_tokens = k->window && k->window < TORCH_KV_TOKENS ? k->window : TORCH_KV_TOKENS;
	k->per_1k = k->layer_token_bytes * (k->n_full * TORCH_KV_TOKENS + k->n_sliding * sliding_tokens);
	return true;
}
