/* libFuzzer target: the vllm startup-line parser over arbitrary text, whole
 * and line by line. */
#include <stddef.h>
#include <stdint.h>

#include "llm/vllm_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vllm_log lg;
	vllm_log_init(&lg);
	vllm_log_parse(&lg, (const char *)data, size);
	vllm_log_line(&lg, (const char *)data, size);
	return 0;
}
