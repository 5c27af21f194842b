/* When the WDDM source asks DXGI for its adapters again: PDH names an
 * adapter LUID that no listed adapter has (a driver restart gives every
 * adapter a new LUID) and DXGI did not leave out itself (a software
 * adapter), at most once per WDDM_RELIST_INTERVAL_NS, never every refresh.
 * Pure, so the Linux unit tests reach it. */
#ifndef GTM_WDDM_RELIST_H
#define GTM_WDDM_RELIST_H

#include <stdbool.h>
#include <stdint.h>

#include "sources/wddm/wddm_adapter_info.h"

#define WDDM_RELIST_INTERVAL_NS (10ull * 1000000000ull)

/* A set of LUIDs: DXGI's software adapters, left out of the list. */
struct wddm_luids {
	wddm_luid v[WDDM_MAX_ADAPTERS];
	int n;
};

/* The LUIDs of seen[0..n_seen) that no adapter of a[0..n_a) has and that
 * skipped (may be NULL) does not hold, in seen's order, at most cap. */
int wddm_unlisted_luids(const wddm_luid *seen, int n_seen, const struct wddm_adapter *a, int n_a,
			const struct wddm_luids *skipped, wddm_luid *out, int cap);

/* The relisting clock: when DXGI was last asked again (never, at first:
 * the listing at start does not delay the first one). */
struct wddm_relist {
	bool asked;
	uint64_t at_ns; /* a monotonic clock */
};

/* Whether to ask DXGI again now, with n_unlisted LUIDs unlisted; when it
 * says yes it notes now as the last time. */
bool wddm_relist_due(struct wddm_relist *r, int n_unlisted, uint64_t now_ns);

#endif
