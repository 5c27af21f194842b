/* Per-process GPU memory from the GPU Process Memory set (platforms.md 1.3):
 *   VRAM  = Local Usage      (the fastest segment group: VRAM on a discrete card)
 *   spill = Non Local Usage  (system RAM the GPU reaches; not proof of overflow)
 *   paged = max(Total Committed - Local - Non Local, 0), estimated: committed
 *           but resident in neither group; N/A when any input is.
 * Dedicated/Shared Usage stand in when Local/Non Local are not listed, and
 * the use says so (they count cross-process shared allocations, so rows may
 * add up past the adapter). An item without a valid sample is N/A, never 0. */
#ifndef GTM_WDDM_MEMORY_H
#define GTM_WDDM_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/reading.h"
#include "sources/wddm/wddm_item.h"

enum wddm_pm_counter {
	WDDM_PM_LOCAL,
	WDDM_PM_NONLOCAL,
	WDDM_PM_COMMITTED,
	WDDM_PM_DEDICATED,
	WDDM_PM_SHARED,
	WDDM_PM_N
};
/* "Local Usage", ...: the English counter names of \GPU Process Memory(*). */
extern const char *const wddm_pm_counter_name[WDDM_PM_N];

struct wddm_value {
	bool listed;       /* the counter listed this instance */
	uint32_t cstatus;
	uint64_t v;
};

/* One instance of GPU Process Memory (pid, adapter, physical GPU) with
 * every counter's item for it: the rows a WSL host stream prints too. */
struct wddm_mem_row {
	uint32_t pid;
	uint64_t luid;
	uint32_t phys;
	uint32_t dup;
	struct wddm_value v[WDDM_PM_N];
};

struct wddm_mem_rows {
	struct wddm_mem_row *v;
	size_t n, cap;
	size_t *index;     /* scratch for the join */
	size_t cap_index;
};

/* Joins the counters' items into rows, one per instance, in PDH order of the
 * first counter that was added (Local Usage first), instances only other
 * counters list after them. Items without a pid are skipped. */
void wddm_mem_rows_join(const struct wddm_items c[WDDM_PM_N], struct wddm_mem_rows *out);
void wddm_mem_rows_free(struct wddm_mem_rows *r);

struct wddm_mem_use {
	gtm_u64 vram, spill, paged;
	bool vram_fallback, spill_fallback; /* from Dedicated / Shared Usage */
};

/* A counter's value for a row: measured bytes, or N/A when the counter did
 * not list the instance or its CStatus is not valid (never 0). */
gtm_u64 wddm_value_bytes(const struct wddm_value *v);

void wddm_mem_use_of(const struct wddm_mem_row *r, struct wddm_mem_use *out);
/* Adds x into acc (a process's rows of one adapter: every phys); a sum with
 * an N/A part is N/A. */
void wddm_mem_use_add(struct wddm_mem_use *acc, const struct wddm_mem_use *x);

#endif
