#include "sources/wddm/wddm_relist.h"

#include <string.h>

#include "sources/wddm/wddm_order.h"

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

int wddm_relist_unknown(const struct wddm_relist *r, const wddm_luid *v, int n, wddm_luid *out)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (!has(r->unresolved.v, r->unresolved.n, v[i]))
			out[k++] = v[i];
	return k;
}

void wddm_relist_remember(struct wddm_relist *r, const wddm_luid *v, int n)
{
	r->unresolved.n = n < WDDM_MAX_ADAPTERS ? n : WDDM_MAX_ADAPTERS;
	memcpy(r->unresolved.v, v, sizeof *v * (size_t)r->unresolved.n);
}

static bool same_pci(const struct wddm_adapter *x, const struct wddm_adapter *y)
{
	return x->has_pci && y->has_pci && x->pci_bus == y->pci_bus && x->pci_dev == y->pci_dev &&
	       x->pci_fn == y->pci_fn;
}

/* The same card by what DXGI says of it; never two whose PCI locations
 * both are known and differ (two of one model in two slots). */
static bool same_model(const struct wddm_adapter *x, const struct wddm_adapter *y)
{
	return !(x->has_pci && y->has_pci) && x->vendor_id == y->vendor_id && x->device_id == y->device_id &&
	       x->dedicated_video == y->dedicated_video && strcmp(x->name, y->name) == 0;
}

/* The one unused fresh adapter of old[i]'s model, when exactly one unmatched
 * old adapter and one unused fresh one have it; else -1. */
static int model_match(const struct wddm_adapter *old, int n_old, const int *old_to, int i,
		       const struct wddm_adapter *fresh, int n_fresh, const bool *used)
{
	int found = -1, n_found = 0, n_twins = 0;
	for (int j = 0; j < n_fresh; j++)
		if (!used[j] && same_model(&old[i], &fresh[j]))
			found = j, n_found++;
	for (int k = 0; k < n_old; k++)
		n_twins += old_to[k] < 0 && same_model(&old[k], &old[i]);
	return n_found == 1 && n_twins == 1 ? found : -1;
}

int wddm_merge_adapters(const struct wddm_adapter *old, int n_old, const struct wddm_adapter *fresh, int n_fresh,
			struct wddm_adapter *out, struct wddm_merge *m)
{
	int old_to[WDDM_MAX_ADAPTERS];
	bool used[WDDM_MAX_ADAPTERS] = {0};
	int n = 0;

	memset(m, 0, sizeof *m);
	for (int i = 0; i < n_old; i++) {
		old_to[i] = -1;
		for (int j = 0; j < n_fresh && old_to[i] < 0; j++)
			if (!used[j] && same_pci(&old[i], &fresh[j]))
				old_to[i] = j, used[j] = true;
	}
	for (int i = 0; i < n_old; i++) {
		if (old_to[i] >= 0)
			continue;
		int j = model_match(old, n_old, old_to, i, fresh, n_fresh, used);
		if (j >= 0)
			old_to[i] = j, used[j] = true;
	}
	for (int i = 0; i < n_old; i++) {
		out[n] = old_to[i] >= 0 ? fresh[old_to[i]] : old[i];
		m->gone[n] = old_to[i] < 0;
		m->n_gone += m->gone[n++];
	}
	for (int j = 0; j < n_fresh; j++) {
		if (used[j])
			continue;
		if (n < WDDM_MAX_ADAPTERS)
			out[n++] = fresh[j], m->n_added++;
		else
			m->n_dropped++;
	}
	wddm_order_adapters(out + n_old, n - n_old);
	return n;
}
