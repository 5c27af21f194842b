/* Between the estimator's parts (not a public API). */
#ifndef GTM_ESTIMATE_INTERNAL_H
#define GTM_ESTIMATE_INTERNAL_H

#include "llm/arch.h"
#include "llm/estimate.h"

/* Saturating arithmetic: hostile headers must not wrap a size to a small one. */
static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* printf-style note appended to e->notes (dropped when full). */
void estimate_note(struct estimate *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Weights per device; needs e->n_layer. */
void estimate_weights(const struct gguf_header *h, const struct llama_flags *f, struct estimate *e);
/* KV cache and recurrent state; needs the placement (gpu_layers) in e. */
void estimate_kv(const struct arch_model *m, const struct llama_flags *f, struct estimate *e);

#endif
