#include "views/json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/json_util.h"
#include "core/util.h"
static void flush(struct jw *w)
{
	if (w->len > 0 && !w->failed && fwrite(w->buf, 1, w->len, w->out) != w->len)
		w->failed = true;
	w->flushed += w->len;
	w->len = 0;
}

static void put_slow(struct jw *w, const char *s, size_t n)
{
	while (n > 0) {
		size_t room = w->cap - w->len;
		if (room == 0) {
			flush(w);
			room = w->cap;
		}
		size_t k = n < room ? n : room;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
	}
}

static inline void put(struct jw *w, const char *s, size_t n)
{
	if (n <= w->cap - w->len) {
		memcpy(w->buf + w->len, s, n);
		w->len += n;
		return;
	}
	put_slow(w, s, n);
}

static inline void putc_(struct jw *w, char c)
{
	if (w->len == w->cap)
		flush(w);
	w->buf[w->len++] = c;
}

static void newline_indent(struct jw *w, int depth)
{
	/* a newline and up to 32 levels of indentation in one copy */
	static const char line[] = "\n                                                                ";
	size_t n = 1 + 2 * (size_t)depth;

	if (n <= sizeof line - 1) {
		put(w, line, n);
		return;
	}
	put(w, line, sizeof line - 1);
	for (n -= sizeof line - 1; n > 0; n--)
		putc_(w, ' ');
}

/* Length of a well-formed UTF-8 sequence at p (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
	else
		return 0;
	if (len > n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

static void put_string(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789ABCDEF"; /* as jansson writes them */
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	putc_(w, '"');
	while (n > 0) {
		/* the run of bytes that need nothing done */
		size_t run = 0;
		while (run < n && p[run] >= 0x20 && p[run] < 0x7F && p[run] != '"' && p[run] != '\\')
			run++;
		put(w, (const char *)p, run);
		p += run;
		n -= run;
		if (n == 0)
			break;
		if (*p >= 0x80) {
			size_t k = utf8_len(p, n);
			unsigned cp = p[0] == 0xC2 && k == 2 ? p[1] : 0;
			if (k == 0) {
				putc_(w, '?'), k = 1;
			} else if (cp >= 0x80 && cp <= 0x9F) {
				/* a C1 control (U+009B is a one-byte CSI) is escaped as in text */
				char esc[6] = {'\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15]};
				put(w, esc, sizeof esc);
			} else
				put(w, (const char *)p, k);
			p += k;
			n -= k;
			continue;
		}
		char esc[6] = {'\\', 0};
		size_t el = 2;
		switch (*p) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			el = 6;
		}
		put(w, esc, el);
		p++;
		n--;
	}
	putc_(w, '"');
}

/* Keys are our own names, plain ASCII (json_writer.h): copied as they are. */
static void put_key(struct jw *w, const char *key)
{
	putc_(w, '"');
	put(w, key, strlen(key));
	put(w, "\": ", w->compact ? 2 : 3);
}

/* Everything before a value: the separator, the line, the key. */
static void member(struct jw *w, const char *key)
{
	if (w->started) {
		if (!w->fresh)
			putc_(w, ',');
		if (!w->compact)
			newline_indent(w, w->depth);
	}
	w->started = true;
	w->fresh = false;
	if (key)
		put_key(w, key);
}

void jw_init(struct jw *w, FILE *out)
{
	w->out = out;
	w->len = 0;
	w->depth = 0;
	w->fresh = false;
	w->started = false;
	w->failed = false;
	w->compact = false;
	w->flushed = 0;
	w->cap = JW_BUF;
}

void jw_members_text(struct jw *w, const char *text, size_t n)
{
	put(w, text, n);
	w->started = true;
	w->fresh = false;
}

int jw_finish(struct jw *w)
{
	putc_(w, '\n');
	flush(w);
	return w->failed ? -1 : 0;
}

static void begin(struct jw *w, const char *key, char open)
{
	member(w, key);
	putc_(w, open);
	w->depth++;
	w->fresh = true;
}

static void end(struct jw *w, char close)
{
	w->depth--;
	if (!w->fresh && !w->compact)
		newline_indent(w, w->depth);
	putc_(w, close);
	w->fresh = false;
}

void jw_begin_object(struct jw *w, const char *key) { begin(w, key, '{'); }
void jw_begin_array(struct jw *w, const char *key) { begin(w, key, '['); }
void jw_end_object(struct jw *w) { end(w, '}'); }
void jw_end_array(struct jw *w) { end(w, ']'); }

void jw_null(struct jw *w, const char *key)
{
	member(w, key);
	put(w, "null", 4);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	member(w, key);
	put(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_int(struct jw *w, const char *key, int64_t v)
{
	char digits[24], *p = digits + sizeof digits;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	member(w, key);
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		*--p = '-';
	put(w, p, (size_t)(digits + sizeof digits - p));
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	if (!s || !*s) {
		jw_null(w, key);
		return;
	}
	member(w, key);
	put_string(w, s);
}

void jw_u64(struct jw *w, const char *key, gtm_u64 r)
{
	if (!gtm_u64_ok(r))
		jw_null(w, key);
	else
		jw_int(w, key, r.v > INT64_MAX ? INT64_MAX : (int64_t)r.v);
}

void jw_f64(struct jw *w, const char *key, gtm_f64 r)
{
	char text[40];
	double v = r.v;

	if (!gtm_f64_ok(r) || !isfinite(v)) {
		jw_null(w, key);
		return;
	}
	if (v == floor(v) && fabs(v) < 9e15) {
		jw_int(w, key, (int64_t)v);
		return;
	}
	/* 3 decimals, written shortest: 15 significant digits give the rounded
	 * value back exactly, where jansson's 17 wrote 68.123000000000005 for
	 * 68.123. Beyond 1e12 nothing is rounded and 17 digits are kept: 15
	 * could round past the largest double (-1.79769313486232e+308) */
	bool small = fabs(v) < 1e12;
	if (small)
		v = gtm_round(v * 1000.0) / 1000.0;
	int n = snprintf(text, sizeof text, small ? "%.15g" : "%.17g", v);
	char *comma = strchr(text, ','); /* a locale's decimal comma (the live view sets LC_ALL) */
	if (comma)
		*comma = '.';
	/* ".0" keeps a reader from taking a fraction-less real for an integer */
	if (n > 0 && (size_t)n < sizeof text - 2 && !strpbrk(text, ".e"))
		memcpy(text + n, ".0", 3), n += 2;
	member(w, key);
	put(w, text, n > 0 ? (size_t)n : 0);
}

void jw_json(struct jw *w, const char *key, json_t *v)
{
	size_t layout = w->compact ? JSON_COMPACT : JSON_INDENT(2);
	char *text = v ? json_dumps_safe(v, layout | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;

	json_decref(v);
	if (!text) {
		jw_null(w, key);
		return;
	}
	member(w, key);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		if (!nl) {
			put(w, p, strlen(p));
			break;
		}
		put(w, p, (size_t)(nl - p));
		newline_indent(w, w->depth);
		p = nl + 1;
	}
	free(text);
}
