/* libFuzzer target: the GGUF header parser, and on headers it accepts the
 * model summary and the estimator (hostile shapes must not crash them). */
#include <stddef.h>
#include <stdint.h>

#include "llm/estimate.h"
#include "llm/gguf.h"
#include "llm/gguf_info.h"
#include "llm/llama_flags.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gguf_header *h = NULL;
	char err[256];
	if (gguf_parse(data, size, &h, err, sizeof err) != GGUF_OK)
		return 0;
	struct gguf_model_info info;
	/* as if the input were the whole file: a header whose tensor data runs
	 * past it is a partial download (gguf_missing_bytes) */
	h->file_size = size;
	gguf_model_info_get(h, "/m/lev-q4.gguf", "store", &info);

	struct llama_flags f;
	struct estimate e;
	char *argv[] = {"x", "-c", "4096", "-ngl", "3", "--cpu-moe", "-ctv", "q8_0", "-fa", "on"};
	llama_flags_init(&f);
	estimate_plan(h, &f, &e, err, sizeof err);
	estimate_max_ctx(h, &f, 1ull << 33);
	llama_flags_parse(&f, (int)(sizeof argv / sizeof argv[0]), argv, 1);
	estimate_plan(h, &f, &e, err, sizeof err);
	llama_flags_free(&f);
	gguf_header_unref(h);
	return 0;
}
