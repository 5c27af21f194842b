/* libFuzzer target: the safetensors header parser with the input as the
 * whole file (and as a file one byte longer and shorter), and the shard
 * index parser on the same bytes. */
#include <stddef.h>
#include <stdint.h>

#include "llm/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_header *h = NULL;
	struct st_index ix;
	char err[256];
	for (int d = -1; d <= 1; d++) {
		if (st_header_parse(data, size, (uint64_t)((int64_t)size + d), &h, err, sizeof err) == ST_OK) {
			(void)st_header_meta(h, "format");
			(void)st_header_complete(h);
			st_header_free(h);
		}
	}
	(void)st_is_safetensors_magic(data, size, size);
	if (st_index_parse((const char *)data, size, &ix, err, sizeof err))
		st_index_free(&ix);
	return 0;
}
