/* Fuzz target: the llama.cpp and Ollama log readers over arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "llm/llama_log.h"
#include "llm/ollama_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct llama_log *lg = malloc(sizeof *lg);
	if (!lg)
		return 0;
	llama_log_init(lg);
	llama_log_parse(lg, (const char *)data, size);
	for (int i = 0; i < lg->n_loads; i++)
		(void)llog_load_seg_total(&lg->loads[i], LLOG_KV);
	llama_log_init(lg);
	ollama_log_parse(lg, (const char *)data, size);
	free(lg);
	return 0;
}
