/* Between the GGUF parser core and its file front-end (not a public API). */
#ifndef GTM_GGUF_INTERNAL_H
#define GTM_GGUF_INTERNAL_H

#include "llm/gguf.h"

/* Makes at least `upto` bytes available from the start of the header
 * (buf and len may move); leaves them short at end of file or on error. */
typedef void (*gguf_fill_fn)(void *ctx, uint64_t upto, const uint8_t **buf, size_t *len);

/* gguf_parse, pulling bytes through fill whenever the buffer runs out. */
enum gguf_status gguf_parse_fill(gguf_fill_fn fill, void *ctx, const uint8_t *buf, size_t len,
				 struct gguf_header **out, char *err, size_t errlen);

/* Called by gguf_read_file after parsing, before the file is checked for
 * changes; NULL in the program, set by tests to change the file mid-read. */
extern void (*gguf_read_file_hook)(const char *path);

#endif
