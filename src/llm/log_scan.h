/* Small bounded-buffer scanning helpers shared by the runtime log readers
 * (llama.cpp, Ollama, app adapters). Every function takes an explicit end and
 * never reads past it; lines need not be NUL-terminated. */
#ifndef GTM_LOG_SCAN_H
#define GTM_LOG_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ls_tok {
	const char *p;
	size_t n;
};

/* One log line with llama.cpp's relative-timestamp prefix split off:
 * "0.00.084.725 I msg" → t = 0.084725 s (common/log.cpp prints
 * minutes.seconds.milliseconds.microseconds since the log started). */
struct ls_line {
	const char *start, *msg, *end;
	double t;            /* -1 when the line has no such prefix */
	int64_t t_wall;      /* the caller's absolute time, -1 unknown */
	char level;          /* 'I', 'W', 'E', 'D', ... or 0 */
};

void ls_line_init(struct ls_line *ln, const char *p, size_t n, int64_t t_wall);

const char *ls_find(const char *p, const char *end, const char *needle);
/* Last occurrence of needle in [p, end). */
const char *ls_rfind(const char *p, const char *end, const char *needle);
bool ls_ends_with(const char *p, const char *end, const char *suffix);
/* Copies n bytes (truncated to cap-1) and NUL-terminates. */
void ls_copy(char *dst, size_t cap, const char *src, size_t n);

/* The whitespace-delimited word that ends just before pos (spaces skipped). */
struct ls_tok ls_word_before(const char *start, const char *pos);
bool ls_tok_is(struct ls_tok t, const char *s);
/* Whether the last non-space character before pos is ':'. */
bool ls_colon_before(const char *start, const char *pos);

/* Skips spaces, parses decimal digits (saturating at UINT64_MAX), advances *q. 0 when none. */
uint64_t ls_uint_after(const char **q, const char *end);
/* The integer after `key` (spaces and '=' skipped); -1 when absent or not a number. */
int64_t ls_int_key(const char *p, const char *end, const char *key);
/* Parses a non-negative decimal like "604.15"; advances *q. false when no digits. */
bool ls_parse_decimal(const char **q, const char *end, double *out);
/* "  =   604.15 MiB" → bytes (MiB and llama.cpp's older "MB", both 2^20). */
bool ls_parse_eq_mib(const char *p, const char *end, uint64_t *bytes);
/* "(f16):    4.00 MiB" → type "f16" and bytes. */
bool ls_parse_typed_part(const char *p, const char *end, char *type, size_t tcap, uint64_t *bytes);
/* Top-level "(...)" groups in [p, end), contents without the parentheses. Returns the count (≤ max). */
int ls_paren_groups(const char *p, const char *end, struct ls_tok *out, int max);
/* MiB with a fraction → bytes, rounded; false when negative, not finite or absurd (> 2^50). */
bool ls_mib_to_bytes(double mib, uint64_t *out);

#endif
