#include "views/json_indent.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct out {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void grow(struct out *o, size_t need)
{
	if (o->failed || o->len + need <= o->cap)
		return;
	size_t cap = o->cap ? o->cap : 256;
	while (cap < o->len + need)
		cap *= 2;
	char *b = realloc(o->buf, cap);
	if (!b) {
		o->failed = true;
		return;
	}
	o->buf = b;
	o->cap = cap;
}

static void put(struct out *o, const char *s, size_t n)
{
	grow(o, n);
	if (o->failed)
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void newline(struct out *o, int depth)
{
	grow(o, 1 + 2 * (size_t)(depth > 0 ? depth : 0));
	if (o->failed)
		return;
	o->buf[o->len++] = '\n';
	for (int i = 0; i < depth; i++) {
		o->buf[o->len++] = ' ';
		o->buf[o->len++] = ' ';
	}
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next byte that is not whitespace at or after i, or 0 at the end. */
static char next_token(const char *in, size_t n, size_t i)
{
	while (i < n && is_space(in[i]))
		i++;
	return i < n ? in[i] : 0;
}

/* Copies the string starting at in[i] (a quote) through its closing quote. */
static size_t copy_string(struct out *o, const char *in, size_t n, size_t i)
{
	size_t start = i++;
	while (i < n && in[i] != '"')
		i += in[i] == '\\' ? 2 : 1;
	if (i > n)
		i = n;
	else if (i < n)
		i++;
	put(o, in + start, i - start);
	return i;
}

char *json_indent(const char *in, size_t n, size_t *out_len)
{
	struct out o = {0};
	int depth = 0;

	for (size_t i = 0; i < n && !o.failed;) {
		char c = in[i];
		if (is_space(c)) {
			i++;
		} else if (c == '"') {
			i = copy_string(&o, in, n, i);
		} else if (c == '{' || c == '[') {
			char close = c == '{' ? '}' : ']';
			put(&o, &c, 1);
			i++;
			if (next_token(in, n, i) == close) {
				while (in[i] != close)
					i++;
				put(&o, &close, 1);
				i++;
			} else if (++depth > JSON_INDENT_MAX_DEPTH) {
				o.failed = true;
			} else {
				newline(&o, depth);
			}
		} else if (c == '}' || c == ']') {
			newline(&o, --depth);
			put(&o, &c, 1);
			i++;
		} else if (c == ',') {
			put(&o, ",", 1);
			newline(&o, depth);
			i++;
		} else if (c == ':') {
			put(&o, ": ", 2);
			i++;
		} else {
			size_t start = i;
			while (i < n && in[i] && !is_space(in[i]) && !strchr(",:]}\"{[", in[i]))
				i++;
			if (i == start)
				i++; /* a byte no token starts with (a NUL): copied, never stuck on */
			put(&o, in + start, i - start);
		}
	}
	put(&o, "\n", 2);
	if (o.failed) {
		free(o.buf);
		return NULL;
	}
	*out_len = o.len - 1;
	return o.buf;
}
