/* Between the GGUF parser core and its file front-end (not a public API). */
#ifndef GTM_GGUF_INTERNAL_H
#define GTM_GGUF_INTERNAL_H

#include "llm/gguf.h"

/* Makes the header's bytes [from, upto) available: on return *buf holds
 * bytes [*base, *base + *len) of the header, *base <= from (the window may
 * move forward; bytes before from are no longer needed); short at end of
 * file or on error. likely_end, when past upto, is the parser's estimate of
 * how far it will read from here (0: none): a front-end that reads ahead
 * need not read much past it. */
typedef void (*gguf_fill_fn)(void *ctx, uint64_t from, uint64_t upto, uint64_t likely_end, const uint8_t **buf,
			     size_t *base, size_t *len);

/* gguf_parse, pulling bytes through fill whenever the buffer runs out. */
enum gguf_status gguf_parse_fill(gguf_fill_fn fill, void *ctx, const uint8_t *buf, size_t len,
				 struct gguf_header **out, char *err, size_t errlen);

/* gguf_parse of buf[0..len) through a window of at most `window` bytes past
 * each request, moved forward as the file front-end moves its own (tests and
 * the fuzz target check that both ways agree); *max_window, when not NULL,
 * gets the largest window served. String arrays are walked with the
 * multi-walker walk's smallest spacing (gguf_walk.h), so that small inputs
 * reach its every path. */
enum gguf_status gguf_parse_windowed(const uint8_t *buf, size_t len, size_t window, size_t *max_window,
				     struct gguf_header **out, char *err, size_t errlen);

/* Called by gguf_read_file after parsing, before the file is checked for
 * changes; NULL in the program, set by tests to change the file mid-read. */
extern void (*gguf_read_file_hook)(const char *path);
/* Tests: called once the file is mapped, before the parse (a test shrinks the file there). */
extern void (*gguf_map_hook)(const char *path);
/* Tests and the benchmark: read with pread, never through a mapping. */
extern bool gguf_read_no_map;

/* gguf_walk_strings' spacing for every parse (gguf_walk.h): 0, the defaults,
 * in the program; the benchmark sets SIZE_MAX (one walker, the walk before
 * there were several) to compare both in one run. */
extern size_t gguf_walk_spacing;

#endif
