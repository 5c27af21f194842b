/* Fuzz target: the input is a recording file in memory. The index (entries,
 * their checksums, a torn tail), every frame's decompression and line split,
 * seeking by time, and json_indent over each snapshot line. */
#include <stdint.h>
#include <stdlib.h>

#include "record/rec_reader.h"
#include "views/json_indent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_src src = {.fd = -1, .mem = data, .size = size};
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
