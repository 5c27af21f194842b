/* Lays out JSON text the way `--json` writes it (jansson's JSON_INDENT(2):
 * members on their own lines, ": " after a key, "{}" and "[]" when empty),
 * keeping every token byte for byte. A recording stores compact lines; this
 * gives `replay --json` the text `--json` printed. */
#ifndef GTM_JSON_INDENT_H
#define GTM_JSON_INDENT_H

#include <stddef.h>

/* Deeper nesting is refused: each level costs two bytes on every line below it. */
#define JSON_INDENT_MAX_DEPTH 64

/* Returns a NUL-terminated copy of in[0..n) laid out and ending in a newline,
 * its length in *out_len; whitespace outside strings is dropped. The text is
 * not validated: it is the caller's parsed document. NULL when out of memory
 * or nested deeper than JSON_INDENT_MAX_DEPTH. */
char *json_indent(const char *in, size_t n, size_t *out_len);

#endif
