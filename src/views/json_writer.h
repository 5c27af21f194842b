/* A streaming JSON writer for the big documents (the --json snapshot, with a
 * row per GPU process). Building a jansson tree of 500 processes and dumping
 * it cost more than the /proc reads behind it (about 65 M instructions, 10 ms
 * here; docs/benchmarks.md); this writes the same indented text straight into
 * a 64 KiB buffer that is flushed as it fills. jansson stays for parsing and
 * for small, rare subtrees (an explained server, a model's GGUF summary),
 * which jw_json embeds.
 *
 * The layout is jansson's JSON_INDENT(2): members on their own lines, ": "
 * after a key, "[]" and "{}" when empty. A number with a fraction is written
 * shortest (68.123), where jansson wrote 17 digits (68.123000000000005); the
 * value read back is the same. Strings are escaped as jansson does
 * (quote, backslash, control characters) and bytes that are not UTF-8 become
 * '?', since command lines and paths need not be UTF-8 and JSON must be.
 * Every value function takes the member's key, or NULL inside an array; keys
 * are the program's own names (plain ASCII, no quote or backslash) and are
 * written as they are. */
#ifndef GTM_JSON_WRITER_H
#define GTM_JSON_WRITER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/reading.h"

#define JW_BUF (64 * 1024)
/* What a document nobody keeps rows of (--once --json) buffers before a
 * write: 16 KiB touch 4 pages of memory, 64 KiB 16 (a first touch is a page
 * fault, dearer than the three more write calls); set after jw_init. */
#define JW_BUF_STREAM (16 * 1024)

struct jw {
	FILE *out;
	size_t len;
	int depth;
	bool fresh;   /* the innermost container has no member yet */
	bool started; /* the top value has begun */
	bool failed;  /* a write to out failed */
	bool compact; /* one line, no spaces (JSON Lines for recordings); set after jw_init */
	uint64_t flushed; /* bytes handed to out so far: buf[0] is byte `flushed` of the document */
	size_t cap;       /* bytes of buf used before a flush: JW_BUF, or less (JW_BUF_STREAM) */
	char buf[JW_BUF];
};

void jw_init(struct jw *w, FILE *out);

/* Members written earlier, as text (a row's unchanged part, json.c): copied as
 * they are; afterwards the container has members. The text holds whole members
 * and, unless they are its container's first, the comma before them. */
void jw_members_text(struct jw *w, const char *text, size_t n);
/* Ends the document with a newline and flushes. 0, or -1 if a write failed. */
int jw_finish(struct jw *w);

void jw_begin_object(struct jw *w, const char *key);
void jw_begin_array(struct jw *w, const char *key);
void jw_end_object(struct jw *w);
void jw_end_array(struct jw *w);

void jw_null(struct jw *w, const char *key);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_int(struct jw *w, const char *key, int64_t v);
/* A string, or null for NULL and "". */
void jw_str(struct jw *w, const char *key, const char *s);
/* A reading: its value, or null when unavailable (never 0). Bytes beyond
 * INT64_MAX are written as INT64_MAX, as jansson's integers would hold them. */
void jw_u64(struct jw *w, const char *key, gtm_u64 r);
/* A whole number below 9e15 as an integer (45, not 45.0); below 1e12
 * rounded to 3 decimals and written shortest (12.346); beyond, all 17 digits;
 * null when unavailable or not finite. */
void jw_f64(struct jw *w, const char *key, gtm_f64 r);
/* A jansson value, indented to fit, then released; NULL writes null. */
void jw_json(struct jw *w, const char *key, json_t *v);

#endif
