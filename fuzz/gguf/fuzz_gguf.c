/* libFuzzer target: the GGUF header parser, and on headers it accepts the
 * model summary and the estimator (hostile shapes must not crash them). The
 * same input also goes through a small moving window, as the file front-end
 * reads (1 to 61 bytes past each request): both ways must agree. The
 * windowed parse walks string arrays with the multi-walker walk at its
 * smallest spacing, and a third parse does so over the whole buffer: its
 * status and message must be the plain parse's. The input is also walked as
 * a string array by itself, serially and by the walkers, at a spacing and
 * count it chooses: the same position and count. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm/estimate.h"
#include "llm/gguf.h"
#include "llm/gguf_info.h"
#include "llm/gguf_internal.h"
#include "llm/gguf_walk.h"
#include "llm/llama_flags.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_both_ways(const uint8_t *data, size_t size)
{
	if (size < 2)
		return;
	uint64_t n = data[0] & 1 ? UINT64_MAX : (uint64_t)data[1] * 3;
	size_t spacing = 1 + data[0] / 2 % 48;
	uint64_t cs, cm, c1;
	size_t ps = gguf_walk_strings_serial(data + 2, size - 2, n, &cs);
	size_t pm = gguf_walk_strings(data + 2, size - 2, n, spacing, &cm);
	size_t p1 = gguf_walk_strings(data + 2, size - 2, n, 1, &c1);
	if (ps != pm || cs != cm || ps != p1 || cs != c1)
		abort();
}

#define TILED_LEN (96u * 1024u) /* over 5 x 16 KiB: the default spacing's five walkers */

/* The input (past its first byte) repeated to TILED_LEN bytes and cut at a
 * length the first byte chooses: a chain of the input's strings, again and
 * again, with its hostile bytes at every repeat. */
static void walk_tiled(const uint8_t *data, size_t size)
{
	static uint8_t tiled[TILED_LEN];
	if (size < 9)
		return;
	for (size_t at = 0; at < TILED_LEN; at += size - 1) {
		size_t n = size - 1 < TILED_LEN - at ? size - 1 : TILED_LEN - at;
		memcpy(tiled + at, data + 1, n);
	}
	size_t len = TILED_LEN - (size_t)data[0] * 61;
	uint64_t cs, cm;
	size_t ps = gguf_walk_strings_serial(tiled, len, UINT64_MAX, &cs);
	size_t pm = gguf_walk_strings(tiled, len, UINT64_MAX, 0, &cm);
	if (ps != pm || cs != cm)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gguf_header *h = NULL, *hw = NULL, *hm = NULL;
	char err[256], errm[256];
	enum gguf_status st = gguf_parse(data, size, &h, err, sizeof err);
	enum gguf_status sw = gguf_parse_windowed(data, size, 1 + size % 61, NULL, &hw, errm, sizeof errm);
	if (st != sw || (h && (h->infos_end != hw->infos_end || h->n_kv != hw->n_kv ||
			       h->n_tensors != hw->n_tensors || h->data_offset != hw->data_offset ||
			       h->data_bytes != hw->data_bytes)))
		abort();
	gguf_header_unref(hw);
	gguf_walk_spacing = 1;
	enum gguf_status sm = gguf_parse(data, size, &hm, errm, sizeof errm);
	gguf_walk_spacing = 0;
	if (sm != st || strcmp(errm, err) != 0 || (h && hm->infos_end != h->infos_end))
		abort();
	gguf_header_unref(hm);
	walk_both_ways(data, size);
	walk_tiled(data, size);
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
