/* libFuzzer target: the sglang startup-line parser over arbitrary text, whole
 * and line by line. */
#include <stddef.h>
#include <stdint.h>

#include "llm/sglang_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sglang_log lg;
	sglang_log_init(&lg);
	sglang_log_parse(&lg, (const char *)data, size);
	sglang_log_line(&lg, (const char *)data, size);
	return 0;
}
