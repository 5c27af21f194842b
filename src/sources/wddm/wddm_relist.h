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
 * the listing at start does not delay the first one), and what the
 * re-lists left: the slots whose adapter DXGI no longer lists. */
struct wddm_relist {
	bool asked;
	uint64_t at_ns; /* a monotonic clock */
	bool gone[WDDM_MAX_ADAPTERS];
	/* the LUIDs the last listing that answered left unlisted: adapters DXGI
	 * never lists (compute-only MCDM/TCC devices) that PDH names */
	struct wddm_luids unresolved;
};

/* Whether to ask DXGI again now, with n_unlisted LUIDs unlisted; when it
 * says yes it notes now as the last time. */
bool wddm_relist_due(struct wddm_relist *r, int n_unlisted, uint64_t now_ns);

/* The LUIDs of v[0..n) that are not in r's unresolved set, into out (room
 * for n), in v's order; returns how many. Only these call for a re-list:
 * asking DXGI again for a LUID it did not list a moment ago would repeat
 * every 10 s forever. */
int wddm_relist_unknown(const struct wddm_relist *r, const wddm_luid *v, int n, wddm_luid *out);
/* Keeps v[0..n) (at most WDDM_MAX_ADAPTERS) as the unresolved set: the LUIDs
 * still unlisted after a listing that answered (one that failed proves
 * nothing and keeps the old set). */
void wddm_relist_remember(struct wddm_relist *r, const wddm_luid *v, int n);

/* What wddm_merge_adapters did, for the notes. */
struct wddm_merge {
	int n_gone;  /* old adapters no fresh one matched: kept in their slots */
	int n_added; /* fresh adapters no old one matched: appended */
	int n_dropped; /* fresh ones left out: no room after the old ones */
	bool gone[WDDM_MAX_ADAPTERS]; /* out[i] is an old adapter DXGI no longer lists */
};

/* A fresh DXGI listing merged into the adapters listed so far, so that
 * `--gpu N` keeps naming the same card (an eGPU plugged in, a driver update
 * listing a card late): each old adapter keeps its slot, matched to a fresh
 * one by PCI location when both have one, else by (vendor, device id,
 * dedicated memory, name) when exactly one old and one fresh adapter have
 * it, and takes the fresh one's LUID, name and the rest; an old one without
 * a match stays as it was (its LUID's counters are gone: N/A). Unmatched
 * fresh adapters are appended, in --gpu order among themselves. Writes at
 * most WDDM_MAX_ADAPTERS into out (not old or fresh) and returns how many. */
int wddm_merge_adapters(const struct wddm_adapter *old, int n_old, const struct wddm_adapter *fresh, int n_fresh,
			struct wddm_adapter *out, struct wddm_merge *m);

#endif
