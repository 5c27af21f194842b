/* The property tree (ptree.h): nodes in singly linked member lists. */
#include "ptree.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct ptree *ptree_new(enum ptree_kind kind)
{
	struct ptree *t = xcalloc(1, sizeof *t);
	t->kind = kind;
	return t;
}

struct ptree *ptree_new_str(const char *s, size_t n)
{
	struct ptree *t = ptree_new(PT_STRING);
	t->str = xstrndup(s, n);
	return t;
}

struct ptree *ptree_new_num(int64_t v)
{
	struct ptree *t = ptree_new(PT_NUMBER);
	t->num = v;
	return t;
}

void ptree_add(struct ptree *parent, const char *key, size_t key_n, struct ptree *child)
{
	if (key)
		child->key = xstrndup(key, key_n);
	if (parent->last)
		parent->last->next = child;
	else
		parent->first = child;
	parent->last = child;
	parent->n++;
}

void ptree_free(struct ptree *t)
{
	/* members are freed in a loop, nesting by recursion: bounded by the
	 * parsers' PTREE_MAX_DEPTH */
	while (t) {
		struct ptree *next = t->next;
		ptree_free(t->first);
		free(t->key);
		free(t->str);
		free(t);
		t = next;
	}
}

const struct ptree *ptree_get(const struct ptree *t, const char *key)
{
	if (!t || t->kind != PT_DICT)
		return NULL;
	for (const struct ptree *m = t->first; m; m = m->next)
		if (m->key && strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

bool ptree_get_num(const struct ptree *t, const char *key, int64_t *out)
{
	const struct ptree *m = ptree_get(t, key);
	if (!m || m->kind != PT_NUMBER)
		return false;
	*out = m->num;
	return true;
}

const char *ptree_get_str(const struct ptree *t, const char *key)
{
	const struct ptree *m = ptree_get(t, key);
	return m && m->kind == PT_STRING ? m->str : NULL;
}
