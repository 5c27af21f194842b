#include "llm/log_scan.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "core/util.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Digits of exactly n characters at p (p + n <= end checked by caller). */
static bool digits(const char *p, size_t n, unsigned *out)
{
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(p[i]))
			return false;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	*out = v;
	return true;
}

void ls_line_init(struct ls_line *ln, const char *p, size_t n, int64_t t_wall)
{
	ln->start = ln->msg = p;
	ln->end = p + n;
	ln->t = -1.0;
	ln->t_wall = t_wall;
	ln->level = 0;
	/* "M.SS.mmm.uuu L " — minutes may have several digits */
	const char *q = p;
	unsigned m = 0, s, ms, us;
	while (q < ln->end && is_digit(*q) && q - p < 7)
		m = m * 10 + (unsigned)(*q++ - '0');
	if (q == p || ln->end - q < 13 || q[0] != '.' || !digits(q + 1, 2, &s) || q[3] != '.' ||
	    !digits(q + 4, 3, &ms) || q[7] != '.' || !digits(q + 8, 3, &us) || q[11] != ' ')
		return;
	ln->t = m * 60.0 + s + ms / 1e3 + us / 1e6;
	q += 12;
	if (ln->end - q >= 2 && isupper((unsigned char)q[0]) && q[1] == ' ') {
		ln->level = q[0];
		q += 2;
	}
	ln->msg = q;
}

const char *ls_find(const char *p, const char *end, const char *needle)
{
	if (!p || end <= p)
		return NULL;
	return memmem(p, (size_t)(end - p), needle, strlen(needle));
}

const char *ls_rfind(const char *p, const char *end, const char *needle)
{
	const char *last = NULL, *h;
	size_t nl = strlen(needle);
	while ((h = ls_find(p, end, needle))) {
		last = h;
		p = h + (nl ? nl : 1);
	}
	return last;
}

bool ls_ends_with(const char *p, const char *end, const char *suffix)
{
	size_t n = strlen(suffix);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return (size_t)(end - p) >= n && memcmp(end - n, suffix, n) == 0;
}

void ls_copy(char *dst, size_t cap, const char *src, size_t n)
{
	if (!cap)
		return;
	if (n >= cap)
		n = cap - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = 0;
}

struct ls_tok ls_word_before(const char *start, const char *pos)
{
	struct ls_tok t = {pos, 0};
	const char *e = pos;
	while (e > start && e[-1] == ' ')
		e--;
	const char *b = e;
	while (b > start && b[-1] != ' ' && b[-1] != '\t')
		b--;
	t.p = b;
	t.n = (size_t)(e - b);
	return t;
}

bool ls_tok_is(struct ls_tok t, const char *s)
{
	return strlen(s) == t.n && memcmp(t.p, s, t.n) == 0;
}

bool ls_colon_before(const char *start, const char *pos)
{
	while (pos > start && pos[-1] == ' ')
		pos--;
	return pos > start && pos[-1] == ':';
}

uint64_t ls_uint_after(const char **q, const char *end)
{
	const char *p = *q;
	uint64_t v = 0;
	while (p < end && *p == ' ')
		p++;
	while (p < end && is_digit(*p)) {
		unsigned d = (unsigned)(*p++ - '0');
		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	*q = p;
	return v;
}

int64_t ls_int_key(const char *p, const char *end, const char *key)
{
	const char *k = ls_find(p, end, key);
	if (!k)
		return -1;
	const char *q = k + strlen(key);
	while (q < end && (*q == ' ' || *q == '='))
		q++;
	if (q >= end || !is_digit(*q))
		return -1;
	uint64_t v = ls_uint_after(&q, end);
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

bool ls_parse_decimal(const char **q, const char *end, double *out)
{
	const char *p = *q;
	double v = 0;
	int nd = 0;
	while (p < end && is_digit(*p) && nd < 18) {
		v = v * 10 + (*p++ - '0');
		nd++;
	}
	if (!nd || (p < end && is_digit(*p)))
		return false;
	if (p < end && *p == '.') {
		double f = 0.1;
		p++;
		for (int i = 0; p < end && is_digit(*p); i++, p++) {
			if (i < 12)
				v += (*p - '0') * f;
			f /= 10;
		}
	}
	*q = p;
	*out = v;
	return true;
}

bool ls_mib_to_bytes(double mib, uint64_t *out)
{
	if (!(mib >= 0) || !isfinite(mib) || mib > 1073741824.0) /* 1 PiB */
		return false;
	*out = (uint64_t)gtm_llround(mib * 1048576.0);
	return true;
}

static bool parse_mib_unit(const char **q, const char *end, uint64_t *bytes)
{
	const char *p = *q;
	double v;
	while (p < end && *p == ' ')
		p++;
	if (!ls_parse_decimal(&p, end, &v))
		return false;
	while (p < end && *p == ' ')
		p++;
	if (end - p >= 3 && memcmp(p, "MiB", 3) == 0)
		p += 3;
	else if (end - p >= 2 && memcmp(p, "MB", 2) == 0)
		p += 2;
	else
		return false;
	*q = p;
	return ls_mib_to_bytes(v, bytes);
}

bool ls_parse_eq_mib(const char *p, const char *end, uint64_t *bytes)
{
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '=')
		return false;
	p++;
	return parse_mib_unit(&p, end, bytes);
}

bool ls_parse_typed_part(const char *p, const char *end, char *type, size_t tcap, uint64_t *bytes)
{
	if (p >= end || *p != '(')
		return false;
	const char *c = memchr(p, ')', (size_t)(end - p));
	if (!c || c - p > 16)
		return false;
	ls_copy(type, tcap, p + 1, (size_t)(c - p - 1));
	p = c + 1;
	if (p >= end || *p != ':')
		return false;
	p++;
	return parse_mib_unit(&p, end, bytes);
}

int ls_paren_groups(const char *p, const char *end, struct ls_tok *out, int max)
{
	int n = 0, depth = 0;
	const char *open = NULL;
	for (; p < end && n < max; p++) {
		if (*p == '(') {
			if (depth++ == 0)
				open = p;
		} else if (*p == ')' && depth > 0) {
			if (--depth == 0) {
				out[n].p = open + 1;
				out[n].n = (size_t)(p - open - 1);
				n++;
			}
		}
	}
	return n;
}
