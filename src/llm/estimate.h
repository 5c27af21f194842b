/* Memory plan of a llama.cpp model load from its GGUF header and launch
 * flags, as current llama.cpp places and sizes things (llm-memory.md §3-4).
 * Every figure here is an estimate; the compute buffer has no formula in
 * llama.cpp (it is measured from the graph) and is not estimated. */
#ifndef GTM_ESTIMATE_H
#define GTM_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/gguf.h"
#include "llm/llama_flags.h"

#define ESTIMATE_MAX_NOTES 6
#define ESTIMATE_MAX_SEQ 256          /* LLAMA_MAX_SEQ (llama-cparams.h) */
/* llama.cpp's -c is an int (common_params.n_ctx, common.h): larger contexts
 * cannot be asked for; a flag above it is planned at it and said so. */
#define ESTIMATE_MAX_CTX 2147483647ull

struct estimate {
	/* launch layout as resolved */
	uint64_t n_ctx_train;
	uint64_t n_ctx;          /* context in use: PAD(-c or trained, 256) (x streams when split) */
	uint64_t ctx_clamped_from; /* the -c asked for when above ESTIMATE_MAX_CTX, else 0 */
	uint32_t n_seq;          /* slots (n_seq_max) */
	uint32_t n_stream;       /* 1 when unified, else n_seq */
	bool unified;
	uint32_t n_ubatch;
	bool flash_attn;         /* as planned (auto counts as on) */
	uint32_t type_k, type_v; /* ggml ids */

	/* weights (llama-model.cpp:1245-1640) */
	uint32_t n_layer;
	uint32_t gpu_layers;     /* repeating layers on the GPU */
	bool output_on_gpu;      /* the output layer (counted first by -ngl) */
	uint64_t weights_gpu;    /* including a tied output's token_embd copy */
	uint64_t weights_host;   /* CPU_Mapped span with mmap, sum with --no-mmap */
	bool host_mapped;        /* CPU_Mapped (mmap) rather than a CPU copy */
	uint64_t tied_copy;      /* bytes of the token_embd duplicate on the GPU (0 when none) */
	uint64_t moved_to_host;  /* bytes moved to host by -ot / --cpu-moe / -ncmoe */
	uint64_t n_overridden;   /* tensors moved by overrides */

	/* KV cache (llama-kv-cache.cpp:155-300, -iswa.cpp:69-105) */
	bool has_kv;             /* false for encoders / pure recurrent models */
	uint32_t n_kv_layers, n_swa_layers;
	uint64_t kv_cells;       /* cells per stream, full-attention layers */
	uint64_t swa_cells;      /* cells per stream, SWA layers (0 when none) */
	uint64_t kv_bytes_per_token; /* K+V bytes per cell over all KV layers */
	uint64_t kv_bytes;       /* as llama.cpp allocates it */
	uint64_t kv_full_bytes;  /* upper bound: every KV layer at the full context */
	uint64_t kv_k_bytes, kv_v_bytes;
	uint64_t kv_gpu, kv_host;
	bool kv_on_host;         /* -nkvo */
	bool mla;

	/* recurrent state (llama-memory-recurrent.cpp:99-101), F32 */
	uint32_t n_rs_layers;
	uint64_t rs_bytes, rs_gpu, rs_host;

	/* output buffer (llama-context.cpp:2075-2130): logits of n_vocab floats
	 * per sequence (embeddings for non-causal models), in host memory */
	uint64_t n_vocab;
	uint64_t output_bytes;

	uint64_t gpu_total;      /* weights_gpu + kv_gpu + rs_gpu */
	uint64_t host_total;     /* weights_host + kv_host + rs_host + output_bytes */

	bool refused;            /* llama.cpp would refuse this configuration */
	uint64_t missing_bytes;  /* planned from an incomplete file: its tensor data missing (else 0) */
#define ESTIMATE_ABSURD_BYTES (1ull << 60) /* a plan at or beyond this is refused as overflowed */
	char notes[ESTIMATE_MAX_NOTES][160];
	size_t n_notes;
};

/* Plans the load; false with err set when the header lacks what is needed
 * (architecture, block_count) or holds inconsistent per-layer arrays. */
bool estimate_plan(const struct gguf_header *h, const struct llama_flags *f, struct estimate *out,
		   char *err, size_t errlen);

/* The largest -c (a multiple of 256, at most the trained context) whose GPU
 * total fits in free_bytes at the flags' offload; 0 when none fits. */
uint64_t estimate_max_ctx(const struct gguf_header *h, const struct llama_flags *f, uint64_t free_bytes);

#endif
