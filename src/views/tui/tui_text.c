#include "views/tui/tui_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/util.h"

void tui_text_reset(struct tui_text *t, int width)
{
	t->len = 0;
	t->n = 0;
	t->width = width;
}

static void push_line(struct tui_text *t, enum tui_style st, int indent, const char *s, size_t n)
{
	size_t need = t->len + (size_t)indent + n + 1;

	if (need > t->cap) {
		size_t c = t->cap ? t->cap : 1024;
		while (c < need)
			c *= 2;
		t->buf = xrealloc(t->buf, c);
		t->cap = c;
	}
	t->lines = grow_array(t->lines, sizeof *t->lines, &t->cap_lines, t->n);
	t->lines[t->n].off = (uint32_t)t->len;
	t->lines[t->n].style = (uint8_t)st;
	t->n++;
	memset(t->buf + t->len, ' ', (size_t)indent);
	memcpy(t->buf + t->len + indent, s, n);
	t->len += (size_t)indent + n;
	t->buf[t->len++] = '\0';
}

/* Where to break s (length n) to fit w columns: the last space, else w. */
static size_t break_at(const char *s, size_t n, size_t w)
{
	size_t cut = w;
	if (n <= w)
		return n;
	while (cut > w / 2 && s[cut] != ' ')
		cut--;
	return s[cut] == ' ' ? cut : w;
}

static void add_wrapped(struct tui_text *t, enum tui_style st, int indent, const char *s, size_t n)
{
	int lead = 0;
	char *esc = NULL;

	/* text from logs, headers and command lines: escape control characters
	 * before wrapping, so the widths count what the screen will show */
	if (!fmt_is_safe(s, n)) {
		esc = xmalloc(4 * n + 1);
		n = fmt_safe_copy(esc, s, n);
		s = esc;
	}

	if (t->width <= 0 || (int)n <= t->width) {
		push_line(t, st, 0, s, n);
		free(esc);
		return;
	}
	while (n > 0) {
		size_t w = (size_t)(t->width - lead > 8 ? t->width - lead : 8);
		size_t cut = break_at(s, n, w);
		push_line(t, st, lead, s, cut);
		s += cut;
		n -= cut;
		while (n > 0 && *s == ' ') {
			s++;
			n--;
		}
		lead = indent;
	}
	free(esc);
}

void tui_text_add(struct tui_text *t, enum tui_style st, int indent, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	add_wrapped(t, st, indent, line, (size_t)n);
}

void tui_text_add_block(struct tui_text *t, enum tui_style st, const char *s)
{
	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		int indent = 0;
		while ((size_t)indent < n && s[indent] == ' ')
			indent++;
		add_wrapped(t, st, indent + 2, s, n);
		s += n + (nl ? 1 : 0);
	}
}

const char *tui_text_line(const struct tui_text *t, size_t i, enum tui_style *st)
{
	if (i >= t->n)
		return NULL;
	if (st)
		*st = (enum tui_style)t->lines[i].style;
	return t->buf + t->lines[i].off;
}

void tui_text_free(struct tui_text *t)
{
	free(t->buf);
	free(t->lines);
	memset(t, 0, sizeof *t);
}
