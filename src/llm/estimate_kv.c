/* KV cache and recurrent state sizes (llama-kv-cache.cpp:155-300,
 * llama-kv-cache-iswa.cpp:69-105, llama-memory-recurrent.cpp:99-101;
 * llm-memory.md §3). */
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "llm/estimate_internal.h"
#include "llm/ggml_types.h"

#define KV_PAD 256u /* n_ctx padding since 2025-11-07 (#17046) */

static uint64_t pad256(uint64_t x)
{
	return (x + KV_PAD - 1) / KV_PAD * KV_PAD;
}

/* KV and state follow their layer's device (llama-kv-cache.cpp:215); -nkvo keeps them on the host. */
static bool on_gpu(const struct estimate *e, uint32_t il)
{
	return !e->kv_on_host && il >= e->n_layer - e->gpu_layers;
}

/* The widest V row over the KV layers. */
static uint64_t v_width_max(const struct arch_model *m)
{
	uint64_t w = 0;
	for (uint32_t j = 0; j < m->n_layer; j++) {
		uint64_t x = (uint64_t)m->layers[j].head_v * m->layers[j].n_head_kv;
		if (m->layers[j].has_kv && x > w)
			w = x;
	}
	return w;
}

/* Refusals llama.cpp makes for quantized caches (llama-context.cpp:3541-3566). */
static void check_cache_types(const struct arch_model *m, struct estimate *e)
{
	if (ggml_type_is_quantized(e->type_v) && !e->flash_attn) {
		e->refused = true;
		estimate_note(e, "V cache quantization requires flash_attn: llama.cpp refuses -ctv %s with -fa off",
			      ggml_cache_type_name(e->type_v));
	}
	for (uint32_t il = 0; il < m->n_layer && e->flash_attn; il++) {
		const struct arch_layer *l = &m->layers[il];
		const struct ggml_type_info *tk = ggml_type_get(e->type_k), *tv = ggml_type_get(e->type_v);
		if (l->has_kv && ((tk && l->head_k % tk->blck) || (tv && l->head_v % tv->blck))) {
			e->refused = true;
			estimate_note(e, "head size %u is not a multiple of the cache type's block: llama.cpp refuses it",
				      l->head_k);
			break;
		}
	}
}

static void kv_layout(const struct arch_model *m, const struct llama_flags *f, struct estimate *e)
{
	uint64_t ctx = f->n_ctx ? f->n_ctx : m->n_ctx_train;
	uint32_t n_batch;
	e->n_ctx_train = m->n_ctx_train;
	e->n_seq = f->n_parallel > 0 ? (uint32_t)f->n_parallel : 4; /* auto: 4 slots (server.cpp:146-151) */
	if (e->n_seq > ESTIMATE_MAX_SEQ)
		e->n_seq = ESTIMATE_MAX_SEQ; /* LLAMA_MAX_SEQ */
	if (ctx > ESTIMATE_MAX_CTX)
		ctx = ESTIMATE_MAX_CTX;
	e->unified = f->kv_unified;
	e->n_stream = e->unified ? 1 : e->n_seq;
	ctx = pad256(ctx ? ctx : KV_PAD);
	if (e->unified) {
		e->kv_cells = ctx;
		e->n_ctx = ctx;
	} else {
		e->kv_cells = pad256(ctx / e->n_seq);
		e->n_ctx = e->kv_cells * e->n_seq;
	}
	/* n_batch <= n_ctx for causal models, n_ubatch <= n_batch (llama-context.cpp) */
	n_batch = f->n_batch < e->n_ctx ? f->n_batch : (uint32_t)(e->n_ctx < UINT32_MAX ? e->n_ctx : UINT32_MAX);
	e->n_ubatch = f->n_ubatch < n_batch ? f->n_ubatch : n_batch;
	e->swa_cells = 0;
	if (m->window) {
		uint64_t want = (uint64_t)m->window * (e->unified ? e->n_seq : 1) + e->n_ubatch;
		e->swa_cells = f->swa_full ? e->kv_cells : pad256(want < e->kv_cells ? want : e->kv_cells);
	}
}

/* V is per layer with flash attention, else the widest layer's (llama-kv-cache.cpp:208). */
static uint64_t kv_layer(const struct arch_model *m, struct estimate *e, uint32_t il, uint64_t v_max)
{
	const struct arch_layer *l = &m->layers[il];
	uint64_t k = 0, v = 0, cells = l->is_swa ? e->swa_cells : e->kv_cells, bytes;
	uint64_t v_width = e->flash_attn ? (uint64_t)l->head_v * l->n_head_kv : v_max;
	if (!ggml_row_bytes(e->type_k, (uint64_t)l->head_k * l->n_head_kv, &k) ||
	    !ggml_row_bytes(e->type_v, v_width, &v)) {
		/* a row that overflows (hostile shape) or splits a block: no plan */
		e->refused = true;
		k = v = UINT64_MAX / 4;
	}
	uint64_t *dev = on_gpu(e, il) ? &e->kv_gpu : &e->kv_host;
	e->n_kv_layers++;
	e->n_swa_layers += l->is_swa;
	e->kv_bytes_per_token = sat_add(e->kv_bytes_per_token, k + v);
	e->kv_full_bytes = sat_add(e->kv_full_bytes, sat_mul(e->n_stream * e->kv_cells, k + v));
	e->kv_k_bytes = sat_add(e->kv_k_bytes, sat_mul(e->n_stream * cells, k));
	e->kv_v_bytes = sat_add(e->kv_v_bytes, sat_mul(e->n_stream * cells, v));
	bytes = sat_mul(e->n_stream * cells, k + v);
	e->kv_bytes = sat_add(e->kv_bytes, bytes);
	*dev = sat_add(*dev, bytes);
	return bytes;
}

void estimate_kv(const struct arch_model *m, const struct llama_flags *f, struct estimate *e)
{
	estimate_kv_layers(m, f, e, NULL, NULL);
}

void estimate_kv_layers(const struct arch_model *m, const struct llama_flags *f, struct estimate *e, uint64_t *kv_of,
			uint64_t *rs_of)
{
	uint64_t rs_layer, v_max;
	e->type_k = f->type_k;
	e->type_v = f->type_v;
	e->flash_attn = f->flash_attn != LLAMA_FA_OFF;
	e->mla = m->mla;
	e->kv_on_host = f->no_kv_offload;
	e->n_kv_layers = e->n_swa_layers = e->n_rs_layers = 0;
	e->kv_bytes_per_token = e->kv_full_bytes = e->kv_bytes = e->kv_k_bytes = e->kv_v_bytes = 0;
	e->kv_gpu = e->kv_host = e->rs_bytes = e->rs_gpu = e->rs_host = 0;
	kv_layout(m, f, e);
	check_cache_types(m, e);
	/* one state per sequence, F32 (llama-memory-recurrent.cpp:99-101) */
	rs_layer = sat_mul(sat_add(m->rs_r, m->rs_s), 4ull * e->n_seq);
	v_max = v_width_max(m);
	for (uint32_t il = 0; il < m->n_layer; il++) {
		uint64_t kv = m->layers[il].has_kv ? kv_layer(m, e, il, v_max) : 0;
		if (kv_of)
			kv_of[il] = kv;
		if (rs_of)
			rs_of[il] = m->layers[il].recurrent ? rs_layer : 0;
		if (m->layers[il].recurrent) {
			e->n_rs_layers++;
			uint64_t *dev = on_gpu(e, il) ? &e->rs_gpu : &e->rs_host;
			e->rs_bytes = sat_add(e->rs_bytes, rs_layer);
			*dev = sat_add(*dev, rs_layer);
		}
	}
	e->has_kv = e->n_kv_layers > 0;
	if (!e->n_swa_layers)
		e->swa_cells = 0;
}
