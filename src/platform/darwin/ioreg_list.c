/* The flat list of registry entries (ioreg.h). */
#include "ioreg.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void ioreg_list_init(struct ioreg_list *l)
{
	memset(l, 0, sizeof *l);
	l->owned = ptree_new(PT_ARRAY);
}

void ioreg_list_free(struct ioreg_list *l)
{
	free(l->v);
	ptree_free(l->owned);
	memset(l, 0, sizeof *l);
}

struct ioreg_entry *ioreg_list_add(struct ioreg_list *l, const char *cls, uint64_t id, int depth,
				   const struct ptree *props, struct ptree *props_owned)
{
	if (l->n >= IOREG_MAX_ENTRIES) {
		ptree_free(props_owned);
		return NULL;
	}
	if (props_owned)
		ptree_add(l->owned, NULL, 0, props_owned);
	l->v = grow_array(l->v, sizeof *l->v, &l->cap, l->n);
	struct ioreg_entry *e = &l->v[l->n++];
	memset(e, 0, sizeof *e);
	str_copy(e->cls, cls, sizeof e->cls);
	e->id = id;
	e->depth = depth;
	e->props = props;
	return e;
}

const struct ioreg_entry *ioreg_parent(const struct ioreg_list *l, size_t i)
{
	if (i >= l->n)
		return NULL;
	for (size_t j = i; j-- > 0;)
		if (l->v[j].depth < l->v[i].depth)
			return l->v[j].depth == l->v[i].depth - 1 ? &l->v[j] : NULL;
	return NULL;
}
