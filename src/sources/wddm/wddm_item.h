/* One counter's value for one instance, as a PDH reader hands it over: the
 * instance (its name and parsed fields), the item's CStatus and its value
 * (formatted bytes, or a raw counter's first value and time stamp). */
#ifndef GTM_WDDM_ITEM_H
#define GTM_WDDM_ITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/reading.h"
#include "sources/wddm/wddm_instance.h"

/* PDH_CSTATUS_VALID_DATA (0) and PDH_CSTATUS_NEW_DATA (1) are samples;
 * every other status (INVALID_DATA, NO_INSTANCE, the CALC_NEGATIVE_* ones) is
 * no sample: N/A, never 0 (mingw pdhmsg.h; platforms.md 1.2 step 6). */
#define WDDM_CSTATUS_VALID_DATA 0x0u
#define WDDM_CSTATUS_NEW_DATA 0x1u
static inline bool wddm_cstatus_valid(uint32_t s)
{
	return s == WDDM_CSTATUS_VALID_DATA || s == WDDM_CSTATUS_NEW_DATA;
}

struct wddm_item {
	struct wddm_instance id;
	uint32_t cstatus;
	uint64_t value;  /* bytes (PDH_FMT_LARGE), or a raw counter's FirstValue */
	uint64_t stamp;  /* raw counters: the sample's time, 100 ns ticks; else 0 */
	uint16_t name_len;
	char name[WDDM_INSTANCE_MAX + 1];
};

/* A counter's items of one refresh; added false: the counter could not be
 * added to the query (its set or counter is absent), so it lists nothing. */
struct wddm_items {
	bool added;
	struct wddm_item *v;
	size_t n, cap;
};

/* The sum over the items of one adapter (every phys and part): N/A when the
 * counter lists none of it or any of its items has no valid sample. */
gtm_u64 wddm_items_sum_luid(const struct wddm_items *c, uint64_t luid);

/* Task Manager sums a GPU Engine instance that one collect lists twice (the
 * same name: one process's two engine handles): out gets c's items in PDH
 * order with every repeated name folded into its first, values summed (a raw
 * Running Time summed before any delta), no sample (an invalid CStatus) if
 * any of them has none. out's array is the caller's, kept between calls;
 * scratch too. Returns how many items were folded away. */
size_t wddm_items_fold_repeats(const struct wddm_items *c, struct wddm_items *out, void **scratch, size_t *scratch_cap);
void wddm_items_free(struct wddm_items *c);

/* The bound on one counter's instances in one collect: a machine listing
 * more (100,000 took 25 s and a gigabyte under Wine) keeps the largest. */
#define WDDM_MAX_INSTANCES 16384

/* Keeps the cap items of c with the largest values (bytes, or Running Time:
 * the busiest), in PDH order; equal values keep the earlier. Returns how many
 * were left out. scratch as for wddm_items_fold_repeats. */
size_t wddm_items_keep_biggest(struct wddm_items *c, size_t cap, void **scratch, size_t *scratch_cap);

/* Appends the LUIDs c lists that luids lacks, in PDH order, up to cap.
 * Returns the new count. */
int wddm_items_luids(const struct wddm_items *c, uint64_t *luids, int n, int cap);

#endif
