/* Host adapter ↔ device pairing by memory use (wsl_pair.h). */
#include "collect/wsl_pair.h"

#include "core/util.h"

static bool close_enough(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a, big = a > b ? a : b;
	uint64_t tol = WSL_PAIR_TOLERANCE_MIB * MIB;
	return d <= (big / 20 > tol ? big / 20 : tol);
}

static int candidate(const struct wsl_host_adapter *a, const struct gtm_snapshot *snap)
{
	int found = -1;

	if (!gtm_u64_ok(a->dedicated))
		return -1;
	for (int d = 0; d < snap->n_devices; d++) {
		const struct gtm_device *g = &snap->devices[d];
		if (!gtm_u64_ok(g->mem_used) || !close_enough(g->mem_used.v, a->dedicated.v))
			continue;
		if (found >= 0)
			return -1; /* two fit: ambiguous */
		found = d;
	}
	return found;
}

void wsl_pair_adapters(const struct wsl_host_sample *s, const struct gtm_snapshot *snap, int *dev)
{
	int cand[WSL_MAX_ADAPTERS];

	for (int i = 0; i < s->n_adapters; i++)
		cand[i] = candidate(&s->adapters[i], snap);
	for (int i = 0; i < s->n_adapters; i++) { /* one device per adapter: two claiming it are unmatched */
		dev[i] = cand[i] >= 0 ? snap->devices[cand[i]].index : -1;
		for (int k = 0; k < s->n_adapters && cand[i] >= 0; k++)
			if (k != i && cand[k] == cand[i])
				dev[i] = -1;
	}
}
