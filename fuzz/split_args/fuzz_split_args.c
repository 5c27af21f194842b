/* libFuzzer target: the device plan's parsers on arbitrary bytes: inspect's
 * --gpus sizes, llama.cpp's -ts proportions and CUDA_VISIBLE_DEVICES (over
 * three fixed UUIDs). The first byte picks the parser; the rest is the text. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "llm/llama_flags.h"
#include "llm/split_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const uuids[] = {"GPU-aaaa-1111", "GPU-bbbb-2222", "GPU-aaab-3333"};
	uint64_t sizes[SPLIT_MAX_DEVICES];
	float ts[LLAMA_FLAGS_MAX_DEVICES];
	size_t order[SPLIT_MAX_DEVICES], n;
	char err[160];
	if (size == 0)
		return 0;
	const char *s = (const char *)data + 1;
	size_t len = size - 1;
	switch (data[0] % 3) {
	case 0:
		n = split_gpus_parse(s, len, sizes, SPLIT_MAX_DEVICES, err, sizeof err);
		if (n > SPLIT_MAX_DEVICES || (!n && !err[0]))
			__builtin_trap();
		break;
	case 1:
		if (llama_tensor_split_parse(s, len, ts, &n) && (n == 0 || n >= LLAMA_FLAGS_MAX_DEVICES))
			__builtin_trap();
		break;
	default:
		n = split_cuda_visible(s, len, uuids, 3, order, SPLIT_MAX_DEVICES);
		for (size_t i = 0; i < n; i++)
			if (order[i] >= 3)
				__builtin_trap();
		break;
	}
	return 0;
}
