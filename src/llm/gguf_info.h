/* What a GGUF header says about its model, for display: identity, size,
 * quantization, shape and kind. Derived only from the header (and, for the
 * kind hint, the file's delimited name). */
#ifndef GTM_GGUF_INFO_H
#define GTM_GGUF_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/gguf.h"

enum gguf_kind {
	GGUF_KIND_UNKNOWN = 0,
	GGUF_KIND_LLM,              /* causal, with layers and a trained context */
	GGUF_KIND_EMBEDDING,        /* pooling_type set / attention.causal = false */
	GGUF_KIND_RERANKER,         /* pooling_type = 4 (rank) */
	GGUF_KIND_SPEECH,           /* stt.* keys */
	GGUF_KIND_DECISION,         /* decision.type */
	GGUF_KIND_VISION_PROJECTOR, /* clip / mmproj */
	GGUF_KIND_DIFFUSION,        /* diffusion architectures */
	GGUF_KIND_VOCAB_ONLY,       /* tokenizer only, no tensors */
};

#define GGUF_INFO_MIX_MAX 8

struct gguf_type_share {
	uint32_t type;        /* ggml type id */
	uint64_t bytes;
};

struct gguf_model_info {
	char arch[64];
	char name[128];              /* general.name or "" */
	uint64_t n_params;           /* sum of tensor elements */
	uint64_t file_size;          /* 0 when parsed from a buffer */
	uint64_t data_end;           /* the size the header says the file has */
	uint64_t missing_bytes;      /* tensor data past the end of the file (gguf_missing_bytes) */
	bool incomplete;             /* missing_bytes > 0: a partial download; llama.cpp refuses it */
	uint64_t tensor_bytes;       /* sum of tensor nbytes */
	bool has_ftype;
	uint32_t ftype;              /* general.file_type as stored */
	bool ftype_guessed;          /* the +1024 GUESSED flag */
	char quant[48];              /* file type name ("Q8_0"), else dominant tensor type */
	struct gguf_type_share mix[GGUF_INFO_MIX_MAX]; /* tensor types by bytes, largest first */
	size_t n_mix;
	/* From {arch}.* keys; 0 = absent from the header. head counts that are
	 * per-layer arrays show their maximum. */
	uint64_t n_layer, n_ctx_train, n_embd, n_head, n_head_kv, n_expert, n_expert_used;
	enum gguf_kind kind;
	char kind_hint[64];          /* "likely decision model (openjev)" or "" */
	char kind_label[128];        /* display label: kind name, plus the hint */
};

/* path and store_name may be NULL; they only feed the kind hint. */
void gguf_model_info_get(const struct gguf_header *h, const char *path, const char *store_name,
			 struct gguf_model_info *out);
/* "llm", "embedding", "reranker", "speech", "decision", "vision-projector",
 * "diffusion", "vocab-only", "unknown" (JSON values). */
const char *gguf_kind_name(enum gguf_kind k);
/* "LLM", "embedding model", ... (text). */
const char *gguf_kind_text(enum gguf_kind k);
/* Writes "likely decision model (NAME)" when a delimited token of the file
 * stem, its folder name or store_name is one of the known decision-model
 * names; returns false (out = "") otherwise. */
bool gguf_decision_hint(const char *path, const char *store_name, char *out, size_t n);

#endif
