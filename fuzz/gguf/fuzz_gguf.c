/* libFuzzer target: the GGUF header parser, and on headers it accepts the
 * model summary and the estimator (hostile shapes must not crash them). The
 * same input also goes through a small moving window, as the file front-end
 * reads (1 to 61 bytes past each request): both ways must agree. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "llm/estimate.h"
#include "llm/gguf.h"
#include "llm/gguf_info.h"
#include "llm/gguf_internal.h"
#include "llm/llama_flags.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gguf_header *h = NULL, *hw = NULL;
	char err[256];
	enum gguf_status st = gguf_parse(data, size, &h, err, sizeof err);
	enum gguf_status sw = gguf_parse_windowed(data, size, 1 + size % 61, NULL, &hw, err, sizeof err);
	if (st != sw || (h && (h->infos_end != hw->infos_end || h->n_kv != hw->n_kv ||
			       h->n_tensors != hw->n_tensors || h->data_offset != hw->data_offset ||
			       h->data_bytes != hw->data_bytes)))
		abort();
	gguf_header_unref(hw);
	if (st != GGUF_OK)
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
