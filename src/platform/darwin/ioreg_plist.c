/* `ioreg -a -r -d N -w 0 -c CLASS`: an XML property list (Apple's
 * PropertyList-1.0 DTD) holding an array of entry dictionaries, each with
 * IOObjectClass, IORegistryEntryID and its children's dictionaries under
 * IORegistryEntryChildren. Read here: dict, array, key, string, integer;
 * true, false, real, data and date become PT_OTHER; comments, <?xml?> and
 * <!DOCTYPE> are skipped; the five predefined entities and numeric
 * character references below 128 are decoded. */
#include "ioreg.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct cur {
	const char *p, *end;
};

/* The first s within [p, end), or NULL (memmem over a bounded line). */
static const char *find(const char *p, const char *end, const char *s)
{
	return p < end ? memmem(p, (size_t)(end - p), s, strlen(s)) : NULL;
}

/* Skips text, comments and declarations up to the next element tag. */
static bool next_tag(struct cur *c)
{
	for (;;) {
		const char *lt = memchr(c->p, '<', (size_t)(c->end - c->p));
		if (!lt)
			return false;
		c->p = lt;
		const char *skip_to = NULL;
		if (c->end - lt >= 4 && memcmp(lt, "<!--", 4) == 0)
			skip_to = find(lt + 4, c->end, "-->");
		else if (c->end - lt >= 2 && (lt[1] == '?' || lt[1] == '!'))
			skip_to = memchr(lt, '>', (size_t)(c->end - lt));
		else
			return true;
		if (!skip_to)
			return false;
		c->p = skip_to + 1;
	}
}

/* The tag at c->p: its name into name, whether it closes (</x>) or is empty
 * (<x/>); c->p moves past it. */
static bool tag(struct cur *c, char *name, size_t cap, bool *closing, bool *empty)
{
	if (!next_tag(c))
		return false;
	const char *gt = memchr(c->p, '>', (size_t)(c->end - c->p));
	if (!gt)
		return false;
	const char *s = c->p + 1;
	*closing = s < gt && *s == '/';
	if (*closing)
		s++;
	*empty = gt > s && gt[-1] == '/';
	size_t n = 0;
	while (s + n < gt && s[n] != ' ' && s[n] != '/' && n + 1 < cap)
		n++;
	memcpy(name, s, n);
	name[n] = '\0';
	c->p = gt + 1;
	return true;
}

/* The text up to </name>, entities decoded, malloc'd; NULL when unclosed. */
static char *text(struct cur *c, const char *name, size_t *len)
{
	char close[24];
	snprintf(close, sizeof close, "</%s>", name);
	const char *e = find(c->p, c->end, close);
	if (!e)
		return NULL;
	char *out = xmalloc((size_t)(e - c->p) + 1);
	size_t n = 0;
	static const struct { const char *ent; char ch; } ents[] = {
		{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''},
	};
	for (const char *p = c->p; p < e;) {
		bool done = false;
		for (size_t i = 0; *p == '&' && i < ARRAY_LEN(ents) && !done; i++) {
			size_t l = strlen(ents[i].ent);
			if ((size_t)(e - p) >= l && memcmp(p, ents[i].ent, l) == 0)
				out[n++] = ents[i].ch, p += l, done = true;
		}
		if (!done && *p == '&' && e - p > 3 && p[1] == '#') {
			const char *q = p + 2;
			unsigned v = 0;
			while (q < e && *q >= '0' && *q <= '9' && v < 1000)
				v = v * 10 + (unsigned)(*q++ - '0');
			if (q < e && *q == ';' && v > 0 && v < 128)
				out[n++] = (char)v, p = q + 1, done = true;
		}
		if (!done)
			out[n++] = *p++;
	}
	out[n] = '\0';
	*len = n;
	c->p = e + strlen(close);
	return out;
}

static struct ptree *element(struct cur *c, const char *name, bool empty, int depth);

/* The members of <dict> or <array> up to its closing tag. */
static struct ptree *container(struct cur *c, bool dict, int depth)
{
	struct ptree *t = ptree_new(dict ? PT_DICT : PT_ARRAY);
	char *key = NULL;
	size_t key_n = 0;
	for (;;) {
		char name[16];
		bool closing, empty;
		if (!tag(c, name, sizeof name, &closing, &empty))
			break;
		if (closing) {
			if (strcmp(name, dict ? "dict" : "array") != 0 || key)
				break;
			return t;
		}
		if (dict && !key) {
			if (strcmp(name, "key") != 0)
				break;
			if (empty)
				key = xstrdup(""), key_n = 0;
			else if (!(key = text(c, "key", &key_n)))
				break;
			continue;
		}
		struct ptree *v = element(c, name, empty, depth + 1);
		if (!v)
			break;
		ptree_add(t, key, key_n, v);
		free(key);
		key = NULL;
	}
	free(key);
	ptree_free(t);
	return NULL;
}

static struct ptree *integer(const char *s)
{
	const char *p = s;
	bool neg = *p == '-';
	uint64_t v = 0;
	if (neg || *p == '+')
		p++;
	if (!*p)
		return ptree_new(PT_OTHER);
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
			return ptree_new(PT_OTHER);
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > (uint64_t)INT64_MAX)
		return ptree_new(PT_OTHER);
	return ptree_new_num(neg ? -(int64_t)v : (int64_t)v);
}

/* One value element whose opening tag was just read. */
static struct ptree *element(struct cur *c, const char *name, bool empty, int depth)
{
	if (depth > PTREE_MAX_DEPTH)
		return NULL;
	bool dict = strcmp(name, "dict") == 0;
	if (dict || strcmp(name, "array") == 0)
		return empty ? ptree_new(dict ? PT_DICT : PT_ARRAY) : container(c, dict, depth);
	if (empty) /* <true/>, <false/>, <string/> */
		return strcmp(name, "string") == 0 ? ptree_new_str("", 0) : ptree_new(PT_OTHER);
	static const char *const scalar[] = {"string", "integer", "real", "data", "date", "true", "false"};
	bool known = false;
	for (size_t i = 0; i < ARRAY_LEN(scalar); i++)
		known = known || strcmp(name, scalar[i]) == 0;
	if (!known)
		return NULL;
	size_t n;
	char *s = text(c, name, &n);
	if (!s)
		return NULL;
	struct ptree *t;
	if (strcmp(name, "string") == 0)
		t = ptree_new_str(s, n);
	else if (strcmp(name, "integer") == 0)
		t = integer(s);
	else
		t = ptree_new(PT_OTHER);
	free(s);
	return t;
}

/* Entries of the tree into the list, children after their parent. */
static int flatten(const struct ptree *dict, int depth, struct ioreg_list *out)
{
	if (dict->kind != PT_DICT || depth > PTREE_MAX_DEPTH)
		return 0;
	const char *cls = ptree_get_str(dict, "IOObjectClass");
	int64_t id = 0;
	if (!cls)
		cls = ptree_get_str(dict, "IOClass");
	ptree_get_num(dict, "IORegistryEntryID", &id);
	if (!ioreg_list_add(out, cls ? cls : "", (uint64_t)id, depth, dict, NULL))
		return 0;
	int n = 1;
	const struct ptree *kids = ptree_get(dict, "IORegistryEntryChildren");
	for (const struct ptree *k = kids && kids->kind == PT_ARRAY ? kids->first : NULL; k; k = k->next)
		n += flatten(k, depth + 1, out);
	return n;
}

int ioreg_parse_plist(const char *buf, size_t n, struct ioreg_list *out)
{
	struct cur c = {buf, buf + n};
	char name[16];
	bool closing, empty;
	if (!tag(&c, name, sizeof name, &closing, &empty) || closing || strcmp(name, "plist") != 0 || empty)
		return -1;
	if (!tag(&c, name, sizeof name, &closing, &empty) || closing)
		return -1;
	struct ptree *root = element(&c, name, empty, 0);
	if (!root)
		return -1;
	ptree_add(out->owned, NULL, 0, root);
	int found = 0;
	if (root->kind == PT_ARRAY)
		for (const struct ptree *e = root->first; e; e = e->next)
			found += flatten(e, 0, out);
	else
		found = flatten(root, 0, out);
	return found ? found : -1;
}
