#include "llm/ggml_types.h"

#include <stddef.h>
#include <strings.h>

#include "core/util.h"

/* ggml.h:390-433 ids; ggml-common.h block sizes (llm-memory.md §1 table). */
static const struct ggml_type_info ggml_types[GGML_T_COUNT] = {
	[0] = {"F32", 1, 4},        [1] = {"F16", 1, 2},        [2] = {"Q4_0", 32, 18},
	[3] = {"Q4_1", 32, 20},     [6] = {"Q5_0", 32, 22},     [7] = {"Q5_1", 32, 24},
	[8] = {"Q8_0", 32, 34},     [9] = {"Q8_1", 32, 36},     [10] = {"Q2_K", 256, 84},
	[11] = {"Q3_K", 256, 110},  [12] = {"Q4_K", 256, 144},  [13] = {"Q5_K", 256, 176},
	[14] = {"Q6_K", 256, 210},  [15] = {"Q8_K", 256, 292},  [16] = {"IQ2_XXS", 256, 66},
	[17] = {"IQ2_XS", 256, 74}, [18] = {"IQ3_XXS", 256, 98}, [19] = {"IQ1_S", 256, 50},
	[20] = {"IQ4_NL", 32, 18},  [21] = {"IQ3_S", 256, 110}, [22] = {"IQ2_S", 256, 82},
	[23] = {"IQ4_XS", 256, 136}, [24] = {"I8", 1, 1},        [25] = {"I16", 1, 2},
	[26] = {"I32", 1, 4},       [27] = {"I64", 1, 8},       [28] = {"F64", 1, 8},
	[29] = {"IQ1_M", 256, 56},  [30] = {"BF16", 1, 2},      [34] = {"TQ1_0", 256, 54},
	[35] = {"TQ2_0", 256, 66},  [39] = {"MXFP4", 32, 17},   [40] = {"NVFP4", 64, 36},
	[41] = {"Q1_0", 128, 18},   [42] = {"Q2_0", 64, 18},
	/* 4, 5 (Q4_2/Q4_3), 31-33 and 36-38 were removed: blck 0 = invalid */
};

const struct ggml_type_info *ggml_type_get(uint32_t id)
{
	if (id >= GGML_T_COUNT || ggml_types[id].blck == 0)
		return NULL;
	return &ggml_types[id];
}

bool ggml_type_valid(uint32_t id)
{
	return ggml_type_get(id) != NULL;
}

const char *ggml_type_name(uint32_t id)
{
	const struct ggml_type_info *t = ggml_type_get(id);
	return t ? t->name : "invalid";
}

const char *ggml_cache_type_name(uint32_t id)
{
	/* the cache types llama.cpp accepts (common/arg.cpp kv_cache_types), in its spelling */
	static const char *const lower[] = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};
	const char *name = ggml_type_name(id);
	for (size_t i = 0; i < sizeof lower / sizeof lower[0]; i++)
		if (strcasecmp(lower[i], name) == 0)
			return lower[i];
	return name;
}

int ggml_type_from_name(const char *name)
{
	for (uint32_t i = 0; i < GGML_T_COUNT; i++)
		if (ggml_types[i].blck && strcasecmp(ggml_types[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool ggml_row_bytes(uint32_t id, uint64_t n, uint64_t *out)
{
	const struct ggml_type_info *t = ggml_type_get(id);
	if (!t || n % t->blck != 0)
		return false;
	return !__builtin_mul_overflow(n / t->blck, (uint64_t)t->type_size, out);
}

bool ggml_type_is_quantized(uint32_t id)
{
	const struct ggml_type_info *t = ggml_type_get(id);
	return t && t->blck > 1;
}

/* include/llama.h:117-160; values 4-6 and 33-35 were removed. */
static const char *const llama_ftypes[] = {
	[0] = "all F32", [1] = "F16", [2] = "Q4_0", [3] = "Q4_1", [7] = "Q8_0",
	[8] = "Q5_0", [9] = "Q5_1", [10] = "Q2_K - Medium", [11] = "Q3_K - Small",
	[12] = "Q3_K - Medium", [13] = "Q3_K - Large", [14] = "Q4_K - Small",
	[15] = "Q4_K - Medium", [16] = "Q5_K - Small", [17] = "Q5_K - Medium",
	[18] = "Q6_K", [19] = "IQ2_XXS - 2.0625 bpw", [20] = "IQ2_XS - 2.3125 bpw",
	[21] = "Q2_K - Small", [22] = "IQ3_XS - 3.3 bpw", [23] = "IQ3_XXS - 3.0625 bpw",
	[24] = "IQ1_S - 1.5625 bpw", [25] = "IQ4_NL - 4.5 bpw", [26] = "IQ3_S - 3.4375 bpw",
	[27] = "IQ3_S mix - 3.66 bpw", [28] = "IQ2_S - 2.5 bpw", [29] = "IQ2_M - 2.7 bpw",
	[30] = "IQ4_XS - 4.25 bpw", [31] = "IQ1_M - 1.75 bpw", [32] = "BF16",
	[36] = "TQ1_0 - 1.69 bpw ternary", [37] = "TQ2_0 - 2.06 bpw ternary",
	[38] = "MXFP4 MoE", [39] = "NVFP4", [40] = "Q1_0", [41] = "Q2_0",
};

#define LLAMA_FTYPE_GUESSED 1024u

const char *llama_ftype_name(uint32_t ftype, bool *guessed)
{
	bool g = ftype >= LLAMA_FTYPE_GUESSED && ftype < 2 * LLAMA_FTYPE_GUESSED;
	if (g)
		ftype -= LLAMA_FTYPE_GUESSED;
	if (guessed)
		*guessed = g;
	if (ftype >= ARRAY_LEN(llama_ftypes))
		return NULL;
	return llama_ftypes[ftype];
}
