/* `ioreg -r -d N -w 0 -c CLASS` text (ioreg_list's text form): an entry is a
 * header line `+-o NAME  <class CLS, id 0xID, ...>`, indented two columns a
 * level ("| " or "  " before the "+-o"), then a `{` line, one
 * `"key" = value` line per property, and `}`. Values are `"string"` (no
 * escapes: ioreg prints the bytes), decimal or 0x numbers, Yes/No,
 * `<hex data>`, `{"k"=v,...}` and `(v,...)`. Keys come sorted, so a
 * client's "AppUsage" precedes its "IOUserClientCreator": an entry is taken
 * whole, never line by line. Shapes: ../fixtures/macos (real output quoted
 * by public tests; see docs/validation.md). */
#include "ioreg.h"

#include <stdbool.h>
#include <string.h>

struct cur {
	const char *p, *end;
};

static void skip_space(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

/* The first s within [p, end), or NULL (memmem over a bounded line). */
static const char *find(const char *p, const char *end, const char *s)
{
	return p < end ? memmem(p, (size_t)(end - p), s, strlen(s)) : NULL;
}

/* A decimal or 0x number into t (PT_OTHER past int64). */
static struct ptree *number(struct cur *c)
{
	bool neg = false, hex = false, over = false;
	uint64_t v = 0;
	const char *s;
	if (c->p < c->end && *c->p == '-')
		neg = true, c->p++;
	if (c->end - c->p > 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X'))
		hex = true, c->p += 2;
	s = c->p;
	for (; c->p < c->end; c->p++) {
		unsigned d;
		char ch = *c->p;
		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (hex && ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (hex && ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			break;
		uint64_t base = hex ? 16 : 10;
		if (v > (UINT64_MAX - d) / base)
			over = true;
		v = v * base + d;
	}
	if (c->p == s || over || v > (uint64_t)INT64_MAX)
		return ptree_new(PT_OTHER);
	return ptree_new_num(neg ? -(int64_t)v : (int64_t)v);
}

static struct ptree *value(struct cur *c, int depth);

/* A quoted string: the bytes up to the next quote. NULL when unclosed. */
static struct ptree *string(struct cur *c)
{
	const char *s = ++c->p, *q = memchr(s, '"', (size_t)(c->end - s));
	if (!q)
		return NULL;
	c->p = q + 1;
	return ptree_new_str(s, (size_t)(q - s));
}

/* The members of an inline dictionary or array, after its opening bracket. */
static struct ptree *members(struct cur *c, int depth, bool dict)
{
	struct ptree *t = ptree_new(dict ? PT_DICT : PT_ARRAY);
	char close = dict ? '}' : ')';
	for (;;) {
		skip_space(c);
		if (c->p >= c->end)
			break;
		if (*c->p == close) {
			c->p++;
			return t;
		}
		const char *k = NULL;
		size_t kn = 0;
		if (dict) {
			if (*c->p != '"')
				break;
			k = c->p + 1;
			const char *q = memchr(k, '"', (size_t)(c->end - k));
			if (!q)
				break;
			kn = (size_t)(q - k);
			c->p = q + 1;
			skip_space(c);
			if (c->p >= c->end || *c->p != '=')
				break;
			c->p++;
			skip_space(c);
		}
		struct ptree *v = value(c, depth + 1);
		if (!v)
			break;
		ptree_add(t, k, kn, v);
		skip_space(c);
		if (c->p < c->end && *c->p == ',')
			c->p++;
		else if (c->p < c->end && *c->p != close)
			break;
	}
	ptree_free(t);
	return NULL;
}

/* One value; NULL when malformed or nested deeper than PTREE_MAX_DEPTH. */
static struct ptree *value(struct cur *c, int depth)
{
	if (depth > PTREE_MAX_DEPTH || c->p >= c->end)
		return NULL;
	char ch = *c->p;
	if (ch == '"')
		return string(c);
	if (ch == '{' || ch == '(') {
		c->p++;
		return members(c, depth, ch == '{');
	}
	if (ch == '<') {
		const char *q = memchr(c->p, '>', (size_t)(c->end - c->p));
		if (!q)
			return NULL;
		c->p = q + 1;
		return ptree_new(PT_OTHER);
	}
	if (ch == '-' || (ch >= '0' && ch <= '9'))
		return number(c);
	/* Yes, No and any other bare word */
	const char *s = c->p;
	while (c->p < c->end && *c->p != ',' && *c->p != '}' && *c->p != ')' && *c->p != ' ')
		c->p++;
	return c->p > s ? ptree_new(PT_OTHER) : NULL;
}

/* `"key" = value` on one line, into dict; false when the line is not one. */
static bool property(const char *p, const char *end, struct ptree *dict)
{
	struct cur c = {p, end};
	while (c.p < c.end && (*c.p == ' ' || *c.p == '|')) /* the tree's lines to the left */
		c.p++;
	if (c.p >= c.end || *c.p != '"')
		return false;
	const char *k = c.p + 1, *q = memchr(k, '"', (size_t)(end - k));
	if (!q)
		return false;
	c.p = q + 1;
	skip_space(&c);
	if (c.p >= c.end || *c.p != '=')
		return false;
	c.p++;
	skip_space(&c);
	struct ptree *v = value(&c, 1);
	if (!v)
		return false;
	ptree_add(dict, k, (size_t)(q - k), v);
	return true;
}

/* A header line: depth from the column of "+-o", class and id from <...>. */
static bool header(const char *p, const char *end, char *cls, size_t cap, uint64_t *id, int *depth)
{
	const char *o = find(p, end, "+-o ");
	if (!o)
		return false;
	for (const char *q = p; q < o; q++)
		if (*q != ' ' && *q != '|')
			return false;
	*depth = (int)((o - p) / 2);
	const char *k = find(o, end, "<class ");
	cls[0] = '\0';
	*id = 0;
	if (!k)
		return true; /* ioreg -l without class info: still an entry */
	k += strlen("<class ");
	size_t n = 0;
	while (k + n < end && k[n] != ',' && k[n] != '>' && n + 1 < cap)
		n++;
	memcpy(cls, k, n);
	cls[n] = '\0';
	const char *i = find(k, end, "id 0x");
	if (i) {
		struct cur c = {i + 3, end};
		struct ptree *t = number(&c);
		if (t->kind == PT_NUMBER)
			*id = (uint64_t)t->num;
		ptree_free(t);
	}
	return true;
}

int ioreg_parse_text(const char *buf, size_t n, struct ioreg_list *out)
{
	const char *p = buf, *end = buf + n;
	struct ptree *props = NULL;
	int found = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char cls[64];
		uint64_t id;
		int depth;
		if (header(p, le, cls, sizeof cls, &id, &depth)) {
			props = ptree_new(PT_DICT);
			if (ioreg_list_add(out, cls, id, depth, props, props))
				found++;
			else
				props = NULL;
		} else if (props)
			property(p, le, props); /* `{`, `}` and blank lines add nothing */
		p = nl ? nl + 1 : end;
	}
	return found ? found : -1;
}
