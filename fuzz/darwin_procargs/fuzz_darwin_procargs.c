/* Fuzzes sysctl(KERN_PROCARGS2)'s buffer (src/platform/darwin/procargs.c),
 * as a hostile or racing process could leave it. Invariants: nothing read
 * past the input (ASan), argc within its bound, the environment within the
 * input, within max_env and ending in a NUL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/darwin/procargs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	struct procargs a;
	size_t max_env = size ? data[0] : 0;
	if (procargs_parse(buf, size, max_env, &a) == 0) {
		if (a.argc < 0 || a.argc > PROCARGS_MAX_ARGC || a.argv[a.argc] != NULL || a.env_len > max_env)
			abort();
		if (a.env_len && (a.env < buf || a.env + a.env_len > buf + size || a.env[a.env_len - 1] != '\0'))
			abort();
		procargs_free(&a);
	}
	free(buf);
	return 0;
}
