/* Fuzzes footprint(1)'s text and -f bytes output
 * (src/platform/darwin/footprint.c). Invariants: nothing read past the
 * input (ASan), counts within their arrays, names NUL-terminated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/darwin/footprint.h"

static struct fp_result r;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	int n = footprint_parse(buf, size, &r);
	if (n > FP_MAX_PROCS || r.n > FP_MAX_PROCS || r.n_denied > FP_MAX_PROCS || (n >= 0 && (size_t)n != r.n))
		abort();
	for (size_t i = 0; i < r.n; i++)
		if (memchr(r.procs[i].name, '\0', sizeof r.procs[i].name) == NULL)
			abort();
	free(buf);
	return 0;
}
