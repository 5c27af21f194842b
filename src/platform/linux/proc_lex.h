/* Bounded cursor over a byte buffer, shared by the /proc parsers: every step
 * checks the end, numbers refuse overflow. Internal to src/proc. */
#ifndef GTM_PROC_LEX_H
#define GTM_PROC_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lex {
	const char *p, *end;
};

static inline void lex_skip_blank(struct lex *l)
{
	while (l->p < l->end && (*l->p == ' ' || *l->p == '\t'))
		l->p++;
}

/* Skips one field of non-blank bytes. Returns false when none was there. */
static inline bool lex_skip_field(struct lex *l)
{
	const char *start;

	lex_skip_blank(l);
	start = l->p;
	while (l->p < l->end && *l->p != ' ' && *l->p != '\t' && *l->p != '\n')
		l->p++;
	return l->p > start;
}

static inline int lex_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A decimal number after optional blanks; false on no digits or overflow. */
static inline bool lex_u64(struct lex *l, uint64_t *out)
{
	uint64_t v = 0;
	const char *start;

	lex_skip_blank(l);
	start = l->p;
	while (l->p < l->end && *l->p >= '0' && *l->p <= '9') {
		unsigned d = (unsigned)(*l->p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		l->p++;
	}
	*out = v;
	return l->p > start;
}

/* Exactly ndigits hex digits (at most 16); false otherwise. */
static inline bool lex_hex_fixed(struct lex *l, int ndigits, uint64_t *out)
{
	uint64_t v = 0;

	if (l->end - l->p < ndigits)
		return false;
	for (int i = 0; i < ndigits; i++) {
		int d = lex_hex_digit(l->p[i]);
		if (d < 0)
			return false;
		v = (v << 4) | (uint64_t)d;
	}
	l->p += ndigits;
	*out = v;
	return true;
}

/* A run of hex digits (1..16) after optional blanks. */
static inline bool lex_hex(struct lex *l, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	lex_skip_blank(l);
	while (l->p < l->end && lex_hex_digit(*l->p) >= 0) {
		if (++n > 16)
			return false;
		v = (v << 4) | (uint64_t)lex_hex_digit(*l->p);
		l->p++;
	}
	*out = v;
	return n > 0;
}

static inline bool lex_char(struct lex *l, char c)
{
	if (l->p < l->end && *l->p == c) {
		l->p++;
		return true;
	}
	return false;
}

#endif
