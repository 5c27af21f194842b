#include "sources/wddm/wddm_relist.h"

static bool has(const wddm_luid *v, int n, wddm_luid l)
{
	for (int i = 0; i < n; i++)
		if (v[i] == l)
			return true;
	return false;
}

int wddm_unlisted_luids(const wddm_luid *seen, int n_seen, const struct wddm_adapter *a, int n_a,
			const struct wddm_luids *skipped, wddm_luid *out, int cap)
{
	int k = 0;
	for (int i = 0; i < n_seen && k < cap; i++) {
		bool listed = skipped && has(skipped->v, skipped->n, seen[i]);
		for (int j = 0; j < n_a && !listed; j++)
			listed = a[j].luid == seen[i];
		if (!listed && !has(out, k, seen[i]))
			out[k++] = seen[i];
	}
	return k;
}

bool wddm_relist_due(struct wddm_relist *r, int n_unlisted, uint64_t now_ns)
{
	if (n_unlisted <= 0)
		return false;
	if (r->asked && now_ns - r->at_ns < WDDM_RELIST_INTERVAL_NS)
		return false;
	r->asked = true;
	r->at_ns = now_ns;
	return true;
}
