/* The safetensors dtype table: names and bits as the reference reader's
 * Dtype and Dtype::bitsize have them (huggingface/safetensors,
 * safetensors/src/tensor.rs). Sizes are computed in bits: F4 and F6_* pack
 * several elements into a byte. */
#include <string.h>

#include "core/util.h"
#include "llm/safetensors.h"

static const struct {
	const char *name;
	unsigned bits;
} dtypes[ST_DTYPE_COUNT] = {
	[ST_BOOL] = {"BOOL", 8},          [ST_F4] = {"F4", 4},
	[ST_F6_E2M3] = {"F6_E2M3", 6},    [ST_F6_E3M2] = {"F6_E3M2", 6},
	[ST_U8] = {"U8", 8},              [ST_I8] = {"I8", 8},
	[ST_F8_E5M2] = {"F8_E5M2", 8},    [ST_F8_E4M3] = {"F8_E4M3", 8},
	[ST_F8_E8M0] = {"F8_E8M0", 8},    [ST_F8_E4M3FNUZ] = {"F8_E4M3FNUZ", 8},
	[ST_F8_E5M2FNUZ] = {"F8_E5M2FNUZ", 8},
	[ST_I16] = {"I16", 16},           [ST_U16] = {"U16", 16},
	[ST_F16] = {"F16", 16},           [ST_BF16] = {"BF16", 16},
	[ST_I32] = {"I32", 32},           [ST_U32] = {"U32", 32},
	[ST_F32] = {"F32", 32},           [ST_C64] = {"C64", 64},
	[ST_F64] = {"F64", 64},           [ST_I64] = {"I64", 64},
	[ST_U64] = {"U64", 64},
};

const char *st_dtype_name(enum st_dtype d)
{
	return (unsigned)d < ST_DTYPE_COUNT ? dtypes[d].name : NULL;
}

unsigned st_dtype_bits(enum st_dtype d)
{
	return (unsigned)d < ST_DTYPE_COUNT ? dtypes[d].bits : 0;
}

int st_dtype_lookup(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(dtypes); i++)
		if (strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, name, len) == 0)
			return (int)i;
	return -1;
}
