/* libFuzzer target: the llama-server command-line parser (llama_flags.c) on
 * arbitrary words. The input is NUL-separated words; the first byte's low
 * bit picks inspect's GGUF_OPERAND mode. The result is copied, described
 * and freed (ASan checks both copies). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "llm/llama_flags.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *words[MAX_WORDS];
	int n = 0;
	unsigned opts;
	struct llama_flags f, c;
	char defaults[256];
	if (size == 0)
		return 0;
	opts = (data[0] & 1u) ? LF_PARSE_GGUF_OPERAND : 0;
	for (size_t at = 1; at < size && n < MAX_WORDS;) {
		const uint8_t *nul = memchr(data + at, 0, size - at);
		size_t len = nul ? (size_t)(nul - (data + at)) : size - at;
		words[n++] = xstrndup((const char *)data + at, len);
		at += len + 1;
	}
	llama_flags_init(&f);
	llama_flags_parse_opts(&f, n, words, 0, opts);
	llama_flags_copy(&c, &f);
	llama_flags_describe_defaults(&c, defaults, sizeof defaults);
	llama_flags_free(&f);
	llama_flags_free(&c);
	for (int i = 0; i < n; i++)
		free(words[i]);
	return 0;
}
