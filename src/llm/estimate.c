/* The memory plan: weights, KV cache, recurrent state, and what fits. */
#include "llm/estimate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "llm/arch.h"
#include "llm/estimate_internal.h"

void estimate_note(struct estimate *e, const char *fmt, ...)
{
	va_list ap;
	if (e->n_notes >= ESTIMATE_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(e->notes[e->n_notes++], sizeof e->notes[0], fmt, ap);
	va_end(ap);
}

/* -ngl counts n_layer + 1 layers, the output layer first; the repeating
 * layers go from the last backwards (llama-model.cpp:1307-1332). */
static void resolve_offload(const struct llama_flags *f, struct estimate *e)
{
	uint64_t total = (uint64_t)e->n_layer + 1;
	uint64_t ngl = f->n_gpu_layers < 0 ? total : (uint64_t)f->n_gpu_layers;
	if (ngl > total)
		ngl = total;
	e->output_on_gpu = ngl >= 1;
	e->gpu_layers = ngl >= 1 ? (uint32_t)(ngl - 1) : 0;
}

/* Vocabulary size: the tokenizer's token count, else token_embd's rows. */
static uint64_t vocab_size(const struct gguf_header *h)
{
	const struct gguf_kv *tokens = gguf_find(h, "tokenizer.ggml.tokens");
	const struct gguf_tensor *embd = gguf_find_tensor(h, "token_embd.weight");
	uint64_t n = 0;
	if (tokens && tokens->type == GGUF_VT_ARRAY)
		return tokens->arr_n;
	if (gguf_get_arch_u64(h, "vocab_size", &n))
		return n;
	return embd && embd->n_dims >= 2 ? embd->ne[1] : 0;
}

/* max(n_outputs, n_seq_max) rows of floats, reserved at context creation */
static void output_buffer(const struct gguf_header *h, const struct arch_model *m, struct estimate *e)
{
	uint64_t row = m->rule->memory == ARCH_MEM_NONE ? m->n_embd : vocab_size(h);
	e->n_vocab = vocab_size(h);
	e->output_bytes = sat_mul(sat_mul(row, e->n_seq), 4);
}

static void totals(struct estimate *e)
{
	e->gpu_total = sat_add(sat_add(e->weights_gpu, e->kv_gpu), e->rs_gpu);
	e->host_total = sat_add(sat_add(sat_add(e->weights_host, e->kv_host), e->rs_host), e->output_bytes);
}

bool estimate_plan(const struct gguf_header *h, const struct llama_flags *f, struct estimate *e, char *err,
		   size_t errlen)
{
	struct arch_model m;
	char mb[32];
	memset(e, 0, sizeof *e);
	if (!arch_model_load(h, &m, err, errlen))
		return false;
	/* a partial download still has a plan: the header is whole; first of the
	 * notes, so it is never the one dropped */
	e->missing_bytes = gguf_missing_bytes(h);
	if (e->missing_bytes)
		estimate_note(e, "planned from an incomplete file (%s of tensor data missing): "
			      "llama.cpp refuses to load it until it is complete", fmt_mib(mb, sizeof mb, e->missing_bytes));
	e->n_layer = m.n_layer;
	resolve_offload(f, e);
	estimate_weights(h, f, e);
	estimate_kv(&m, f, e);
	output_buffer(h, &m, e);
	if (f->n_ctx > ESTIMATE_MAX_CTX) {
		e->ctx_clamped_from = f->n_ctx;
		estimate_note(e, "-c %llu is above llama.cpp's limit (%llu, an int): planned at that limit",
			      (unsigned long long)f->n_ctx, ESTIMATE_MAX_CTX);
	}
	if (m.rule->memory == ARCH_MEM_NONE)
		estimate_note(e, "non-causal model (%s): no KV cache", h->arch);
	if (e->mla)
		estimate_note(e, "MLA: the K cache holds the compressed latent; no V cache");
	if (f->flash_attn == LLAMA_FA_AUTO && (e->type_v != e->type_k || e->type_v != 1))
		estimate_note(e, "flash attention auto: planned as on");
	totals(e);
	arch_model_free(&m);
	/* Saturated sums mean the header's shapes are beyond any real model: no
	 * figure from them is an estimate of anything. 1 EiB is far past that. */
	if (e->gpu_total >= ESTIMATE_ABSURD_BYTES || e->host_total >= ESTIMATE_ABSURD_BYTES ||
	    e->kv_full_bytes >= ESTIMATE_ABSURD_BYTES) {
		snprintf(err, errlen, "the header's shapes overflow the estimate (beyond 1 EiB): not a plan");
		return false;
	}
	return true;
}

uint64_t estimate_max_ctx(const struct gguf_header *h, const struct llama_flags *f, uint64_t free_bytes)
{
	struct arch_model m;
	struct estimate e;
	struct llama_flags probe = *f; /* shallow: only n_ctx changes */
	char err[160];
	uint64_t lo = 0, hi;
	if (!estimate_plan(h, f, &e, err, sizeof err) || e.refused || !arch_model_load(h, &m, err, sizeof err))
		return 0;
	hi = (e.n_ctx_train && e.n_ctx_train < ESTIMATE_MAX_CTX ? e.n_ctx_train : ESTIMATE_MAX_CTX) / 256;
	/* weights do not depend on the context: search only the KV part */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;
		probe.n_ctx = mid * 256;
		estimate_kv(&m, &probe, &e);
		if (sat_add(sat_add(e.weights_gpu, e.kv_gpu), e.rs_gpu) <= free_bytes)
			lo = mid;
		else
			hi = mid - 1;
	}
	arch_model_free(&m);
	return lo * 256;
}
