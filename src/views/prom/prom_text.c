#include "views/prom/prom_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/util.h"
#include "platform/platform_text.h"

void prom_buf_add(struct prom_buf *b, const char *s, size_t n)
{
	b->p = grow_array(b->p, 1, &b->cap, b->len + n); /* room for the NUL too */
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void prom_buf_puts(struct prom_buf *b, const char *s)
{
	prom_buf_add(b, s, strlen(s));
}

void prom_buf_free(struct prom_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

void prom_out_init(struct prom_out *o)
{
	memset(o, 0, sizeof *o);
}

void prom_out_free(struct prom_out *o)
{
	prom_buf_free(&o->text);
	prom_buf_free(&o->labels);
	free(o->seen);
	memset(o, 0, sizeof *o);
}

void prom_out_reset(struct prom_out *o)
{
	o->text.len = o->labels.len = 0;
	if (o->text.p)
		o->text.p[0] = 0;
	if (o->seen)
		memset(o->seen, 0, o->seen_cap * sizeof *o->seen);
	o->n_seen = 0;
	o->duplicates = o->families = 0;
	o->fam = NULL;
	o->fam_written = false;
}

void prom_escape_label(struct prom_buf *b, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t len = strlen(value), i = 0;

	while (i < len) {
		size_t run = i;
		/* plain bytes are copied in runs */
		while (run < len && s[run] < 0x80 && s[run] != '\\' && s[run] != '"' && s[run] != '\n')
			run++;
		prom_buf_add(b, value + i, run - i);
		if ((i = run) >= len)
			break;
		if (s[i] == '\\' || s[i] == '"' || s[i] == '\n') {
			prom_buf_add(b, s[i] == '\\' ? "\\\\" : s[i] == '"' ? "\\\"" : "\\n", 2);
			i++;
			continue;
		}
		size_t k = fmt_utf8_seq_len(s + i, len - i);
		if (k) {
			prom_buf_add(b, value + i, k);
			i += k;
		} else {
			prom_buf_add(b, "\xEF\xBF\xBD", 3); /* U+FFFD REPLACEMENT CHARACTER */
			i++;
		}
	}
}

static void escape_help_n(struct prom_buf *b, const char *text, size_t n)
{
	for (const char *p = text; p < text + n; p++) {
		if (*p == '\\')
			prom_buf_add(b, "\\\\", 2);
		else if (*p == '\n')
			prom_buf_add(b, "\\n", 2);
		else
			prom_buf_add(b, p, 1);
	}
}

void prom_escape_help(struct prom_buf *b, const char *text)
{
	escape_help_n(b, text, strlen(text));
}

const char *prom_format_double(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0) { /* a whole number below 2^53: its digits */
		snprintf(buf, n, "%.0f", v);
		return buf;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

void prom_family(struct prom_out *o, const struct prom_family *f)
{
	o->fam = f;
	o->fam_written = false;
	o->labels.len = 0;
}

static void label_sep(struct prom_out *o)
{
	if (o->labels.len)
		prom_buf_add(&o->labels, ",", 1);
}

void prom_add_label(struct prom_out *o, const char *key, const char *value)
{
	if (!value || !value[0])
		return;
	label_sep(o);
	prom_buf_puts(&o->labels, key);
	prom_buf_add(&o->labels, "=\"", 2);
	prom_escape_label(&o->labels, value);
	prom_buf_add(&o->labels, "\"", 1);
}

void prom_add_label_int(struct prom_out *o, const char *key, long long value)
{
	char v[24];
	snprintf(v, sizeof v, "%lld", value);
	prom_add_label(o, key, v);
}

/* FNV-1a over the family name and the label text. */
static uint64_t series_hash(const struct prom_out *o)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = o->fam->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ '{') * 1099511628211ull;
	for (size_t i = 0; i < o->labels.len; i++)
		h = (h ^ (unsigned char)o->labels.p[i]) * 1099511628211ull;
	return h ? h : 1; /* 0 marks a free slot */
}

static void seen_grow(struct prom_out *o)
{
	size_t cap = o->seen_cap ? o->seen_cap * 2 : 256;
	uint64_t *t = xcalloc(cap, sizeof *t);
	for (size_t i = 0; i < o->seen_cap; i++) {
		if (!o->seen[i])
			continue;
		size_t k = o->seen[i] & (cap - 1);
		while (t[k])
			k = (k + 1) & (cap - 1);
		t[k] = o->seen[i];
	}
	free(o->seen);
	o->seen = t;
	o->seen_cap = cap;
}

/* Records the pending series; false when it was written before. */
static bool series_new(struct prom_out *o)
{
	if ((o->n_seen + 1) * 2 > o->seen_cap)
		seen_grow(o);
	uint64_t h = series_hash(o);
	size_t k = h & (o->seen_cap - 1);
	while (o->seen[k]) {
		if (o->seen[k] == h)
			return false;
		k = (k + 1) & (o->seen_cap - 1);
	}
	o->seen[k] = h;
	o->n_seen++;
	return true;
}

/* A family's HELP text, its PROM_HELP_POOL markers in this OS's words. */
static void write_help(struct prom_buf *b, const char *help)
{
	const size_t n = sizeof PROM_HELP_POOL - 1;

	for (const char *at; (at = strstr(help, PROM_HELP_POOL)); help = at + n) {
		escape_help_n(b, help, (size_t)(at - help));
		prom_escape_help(b, platform_shared_pool);
	}
	prom_escape_help(b, help);
}

static void write_sample(struct prom_out *o, const char *value)
{
	if (!o->fam)
		return;
	if (!series_new(o)) {
		o->duplicates++;
		o->labels.len = 0;
		return;
	}
	if (!o->fam_written) {
		prom_buf_puts(&o->text, "# HELP ");
		prom_buf_puts(&o->text, o->fam->name);
		prom_buf_add(&o->text, " ", 1);
		write_help(&o->text, o->fam->help);
		prom_buf_puts(&o->text, "\n# TYPE ");
		prom_buf_puts(&o->text, o->fam->name);
		prom_buf_add(&o->text, " ", 1);
		prom_buf_puts(&o->text, o->fam->type);
		prom_buf_add(&o->text, "\n", 1);
		o->fam_written = true;
		o->families++;
	}
	prom_buf_puts(&o->text, o->fam->name);
	if (o->labels.len) {
		prom_buf_add(&o->text, "{", 1);
		prom_buf_add(&o->text, o->labels.p, o->labels.len);
		prom_buf_add(&o->text, "}", 1);
	}
	prom_buf_add(&o->text, " ", 1);
	prom_buf_puts(&o->text, value);
	prom_buf_add(&o->text, "\n", 1);
	o->labels.len = 0;
}

void prom_write(struct prom_out *o, double v)
{
	char buf[40];
	if (!isfinite(v)) {
		o->labels.len = 0;
		return;
	}
	write_sample(o, prom_format_double(buf, sizeof buf, v));
}

void prom_write_u64(struct prom_out *o, uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
	write_sample(o, buf);
}
