#include "sources/wddm/wddm_item.h"

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
