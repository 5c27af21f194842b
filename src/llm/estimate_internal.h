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
/* The same, with each layer's KV and recurrent-state bytes in kv_of[il] and
 * rs_of[il] (arrays of m->n_layer; either may be NULL). */
void estimate_kv_layers(const struct arch_model *m, const struct llama_flags *f, struct estimate *e, uint64_t *kv_of,
			uint64_t *rs_of);

/* A tensor's home by llama.cpp's layer classes (llama-arch.cpp:621): the
 * input layer (stays on the CPU), repeating layer N (blk.N.*), or the output
 * layer (output, output_norm and anything unclassified). */
#define EST_HOME_INPUT (-1L)
long est_tensor_home(const char *name, uint32_t n_layer);

/* The flags' tensor overrides (-ot in order, --cpu-moe, -ncmoe), compiled. */
struct est_rules;
struct est_rules *est_rules_new(const struct llama_flags *f, uint32_t n_layer, struct estimate *e);
/* -1: no rule matches name; 1: the first match sends it to the host; 0: to a GPU. */
int est_rules_match(const struct est_rules *r, const char *name);
void est_rules_free(struct est_rules *r);

#endif
