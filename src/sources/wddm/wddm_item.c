#include "sources/wddm/wddm_item.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct item_ref {
	const struct wddm_item *it;
	size_t i;
};

static int cmp_ref(const void *va, const void *vb)
{
	const struct item_ref *a = va, *b = vb;
	if (a->it->name_len != b->it->name_len)
		return a->it->name_len < b->it->name_len ? -1 : 1;
	int c = memcmp(a->it->name, b->it->name, a->it->name_len);
	if (c)
		return c;
	return (a->i > b->i) - (a->i < b->i);
}

#define FOLDED UINT16_MAX /* a name_len no instance has (WDDM_INSTANCE_MAX is far below) */

static bool same_name(const struct wddm_item *a, const struct wddm_item *b)
{
	return a->name_len && a->name_len == b->name_len && !memcmp(a->name, b->name, a->name_len);
}

size_t wddm_items_fold_repeats(const struct wddm_items *c, struct wddm_items *out, void **scratch, size_t *scratch_cap)
{
	size_t cap = *scratch_cap / sizeof(struct item_ref), folded = 0, w = 0;

	out->added = c->added;
	out->n = 0;
	if (!c->n)
		return 0;
	struct item_ref *refs = *scratch = grow_array(*scratch, sizeof *refs, &cap, c->n - 1);
	*scratch_cap = cap * sizeof *refs;
	out->v = grow_array(out->v, sizeof *out->v, &out->cap, c->n - 1);
	memcpy(out->v, c->v, c->n * sizeof *c->v);
	for (size_t i = 0; i < c->n; i++)
		refs[i] = (struct item_ref){&c->v[i], i};
	qsort(refs, c->n, sizeof *refs, cmp_ref); /* n log n: the list may hold thousands */
	for (size_t g = 0, k; g < c->n; g = k) {
		struct wddm_item *first = &out->v[refs[g].i]; /* the earliest of its name: sorted by index within */
		for (k = g + 1; k < c->n && same_name(refs[g].it, refs[k].it); k++) {
			const struct wddm_item *r = refs[k].it;
			first->value = first->value > UINT64_MAX - r->value ? UINT64_MAX : first->value + r->value;
			if (!wddm_cstatus_valid(r->cstatus))
				first->cstatus = r->cstatus;
			out->v[refs[k].i].name_len = FOLDED;
			folded++;
		}
	}
	for (size_t i = 0; i < c->n; i++)
		if (out->v[i].name_len != FOLDED)
			out->v[w++] = out->v[i];
	out->n = w;
	return folded;
}

static int cmp_bigger(const void *va, const void *vb)
{
	const struct item_ref *a = va, *b = vb;
	if (a->it->value != b->it->value)
		return a->it->value > b->it->value ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

size_t wddm_items_keep_biggest(struct wddm_items *c, size_t cap, void **scratch, size_t *scratch_cap)
{
	size_t rcap = *scratch_cap / sizeof(struct item_ref), w = 0, cut;

	if (c->n <= cap)
		return 0;
	cut = c->n - cap;
	struct item_ref *refs = *scratch = grow_array(*scratch, sizeof *refs, &rcap, c->n - 1);
	*scratch_cap = rcap * sizeof *refs;
	for (size_t i = 0; i < c->n; i++)
		refs[i] = (struct item_ref){&c->v[i], i};
	qsort(refs, c->n, sizeof *refs, cmp_bigger);
	for (size_t k = cap; k < c->n; k++) /* the smallest: marked, then left out */
		c->v[refs[k].i].name_len = FOLDED;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].name_len != FOLDED)
			c->v[w++] = c->v[i];
	c->n = w;
	return cut;
}

void wddm_items_free(struct wddm_items *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

gtm_u64 wddm_items_sum_luid(const struct wddm_items *c, uint64_t luid)
{
	gtm_u64 sum = GTM_U64_NA;

	if (!c->added)
		return sum;
	for (size_t i = 0; i < c->n; i++) {
		const struct wddm_item *it = &c->v[i];
		if (it->id.luid != luid)
			continue;
		if (!wddm_cstatus_valid(it->cstatus))
			return GTM_U64_NA;
		sum = gtm_u64_of(sum.v + it->value, GTM_MEASURED);
	}
	return sum;
}

int wddm_items_luids(const struct wddm_items *c, uint64_t *luids, int n, int cap)
{
	for (size_t i = 0; c->added && i < c->n && n < cap; i++) {
		bool have = false;
		for (int k = 0; k < n && !have; k++)
			have = luids[k] == c->v[i].id.luid;
		if (!have)
			luids[n++] = c->v[i].id.luid;
	}
	return n;
}
