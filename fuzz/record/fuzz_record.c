/* Fuzz target: the input is a recording file in memory. The index (entries,
 * their checksums, a torn tail), every frame's decompression and line split,
 * seeking by time, and json_indent over each snapshot line. */
#include <stdint.h>
#include <stdlib.h>

#include "record/rec_reader.h"
#include "views/json_indent.h"

/* One decompression context for every input, as replay keeps one for every
 * frame of a file: a fresh context per frame allocated the window a mutated
 * frame header asks for (up to 16 MiB) each time, and the target ran at a
 * few hundred executions a second. Each frame read resets it. */
static struct rec_dctx *kept;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!kept)
		kept = rec_dctx_new();
	struct rec_src src = {.fd = -1, .mem = data, .size = size, .dctx = kept};
	struct rec_index idx;
	char err[256];

	if (rec_index_build(&src, &idx, err, sizeof err) != REC_OK)
		return 0;
	for (size_t f = 0; f < idx.n_frames; f++) {
		struct rec_frame_text t;
		if (rec_frame_read(&src, &idx.frames[f], &t, err, sizeof err) != 0)
			continue;
		for (size_t s = 0; s < t.n; s++) {
			size_t n;
			char *text = json_indent(t.text + t.samples[s].off, t.samples[s].len, &n);
			free(text);
			(void)rec_frame_find(&t, t.samples[s].taken_at_s);
		}
		rec_frame_text_free(&t);
		(void)rec_index_find(&idx, (int64_t)(idx.frames[f].first_ns / 1000000000ull));
	}
	rec_index_free(&idx);
	return 0;
}
