/* The ggml tensor type table: id, name, elements per block, bytes per block.
 * Source: ggml/include/ggml.h:390-433, ggml/src/ggml-common.h:185-460 (llm-memory.md §1). */
#ifndef GTM_GGML_TYPES_H
#define GTM_GGML_TYPES_H

#include <stdbool.h>
#include <stdint.h>

enum {
	GGML_T_F32 = 0,
	GGML_T_F16 = 1,
	GGML_T_Q4_0 = 2,
	GGML_T_Q8_0 = 8,
	GGML_T_BF16 = 30,
	GGML_T_COUNT = 43, /* GGML_TYPE_COUNT in llama.cpp master (2026-07) */
};

struct ggml_type_info {
	const char *name;    /* "Q8_0"; NULL for removed or unknown ids */
	uint32_t blck;       /* elements per block; 0 = removed / invalid */
	uint32_t type_size;  /* bytes per block */
};

/* NULL when the id is unknown, removed (31-33, 36-38) or >= GGML_T_COUNT. */
const struct ggml_type_info *ggml_type_get(uint32_t id);
bool ggml_type_valid(uint32_t id);
/* "Q8_0", or "type-N" written into a static per-id slot for invalid ids ("invalid"). */
const char *ggml_type_name(uint32_t id);
/* A KV cache type as llama.cpp's -ctk/-ctv and its log spell it ("q8_0",
 * "f16"); other types as ggml_type_name. */
const char *ggml_cache_type_name(uint32_t id);
/* Case-insensitive lookup by name ("q8_0", "F16"); -1 when unknown. */
int ggml_type_from_name(const char *name);
/* Bytes of a row of n elements: n/blck*size. false when n is not a multiple of
 * the block size or the product overflows. */
bool ggml_row_bytes(uint32_t id, uint64_t n, uint64_t *out);
/* Whether the type is a block-quantized type (blck > 1). */
bool ggml_type_is_quantized(uint32_t id);

/* general.file_type (LLAMA_FTYPE) name; include/llama.h:117-160, names from
 * src/llama-model-loader.cpp:31-75. The +1024 GUESSED flag is stripped and
 * reported through *guessed (may be NULL). NULL for unknown values. */
const char *llama_ftype_name(uint32_t ftype, bool *guessed);

#endif
