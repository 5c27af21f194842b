/* Per-architecture memory rules (sliding window, recurrent/hybrid layers, no
 * memory) as llama.cpp applies them, and the per-layer shape a GGUF header
 * gives (llm-memory.md §2; llama-hparams.cpp, llama-model.cpp, llama-arch.cpp). */
#ifndef GTM_ARCH_H
#define GTM_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/gguf.h"

enum arch_swa { ARCH_SWA_NONE = 0, ARCH_SWA_STANDARD, ARCH_SWA_CHUNKED, ARCH_SWA_SYMMETRIC };

enum arch_memory {
	ARCH_MEM_KV = 0,          /* attention KV cache on every layer */
	ARCH_MEM_NONE,            /* encoders, diffusion LLMs: no memory */
	ARCH_MEM_RECURRENT,       /* every layer recurrent (mamba, rwkv) */
	ARCH_MEM_HYBRID_KV0,      /* recurrent where head_count_kv[il] == 0 */
	ARCH_MEM_HYBRID_NEMOTRON, /* recurrent where kv == 0 and ff == 0 */
	ARCH_MEM_HYBRID_INTERVAL, /* recurrent_layers[] or (il+1) % interval != 0 */
	ARCH_MEM_HYBRID_BOTH,     /* every layer has attention and recurrent state */
};

enum arch_state { ARCH_RS_NONE = 0, ARCH_RS_MAMBA, ARCH_RS_RWKV, ARCH_RS_LFM2 };

struct arch_rule {
	const char *name;
	enum arch_swa swa;
	uint32_t swa_period;      /* 0 = every layer is SWA */
	bool dense_first;         /* SWA if il % p != 0 (else il % p < p-1) */
	uint32_t default_window;  /* used when sliding_window is absent; 0 = no SWA */
	uint32_t kv_layers;       /* layers >= this reuse earlier KV (gemma3n: 20); 0 = none */
	enum arch_memory memory;
	enum arch_state state;
};

/* The rule for an architecture name; a plain-KV rule for unknown names. */
const struct arch_rule *arch_rule_get(const char *arch);

struct arch_layer {
	bool has_kv;        /* owns a KV cache */
	bool is_swa;
	bool recurrent;     /* owns recurrent state */
	uint32_t n_head_kv;
	uint32_t head_k, head_v; /* per-head K and V sizes */
};

struct arch_model {
	const struct arch_rule *rule;
	uint32_t n_layer;
	uint64_t n_embd, n_ctx_train;
	uint32_t window;    /* n_swa; 0 when the model has no SWA */
	bool mla;           /* K only, no V tensor (llama-kv-cache.cpp:229) */
	uint64_t rs_r, rs_s;/* recurrent state floats per layer per sequence */
	struct arch_layer *layers;
};

#define ARCH_MAX_LAYERS 4096u

/* Fills m from the header; false with err set when keys are missing or
 * inconsistent (per-layer arrays of the wrong length). */
bool arch_model_load(const struct gguf_header *h, struct arch_model *m, char *err, size_t n);
void arch_model_free(struct arch_model *m);

#endif
