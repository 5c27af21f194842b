/* The WDDM source's PDH query (platforms.md 1.2): opened once with English
 * counter names and wildcard instances, collected once per refresh, each
 * counter's array read with the size protocol into one growing buffer of
 * its own. A counter that fails to add is never read: Wine's pdh.dll has
 * the array functions as stubs that abort the program. */
#ifndef GTM_PDH_READER_H
#define GTM_PDH_READER_H

#include <stddef.h>

#include "sources/wddm/wddm_item.h"
#include "sources/wddm/wddm_memory.h"

enum pdh_counter_id {
	PDH_ENGINE_RUNNING,                     /* \GPU Engine(*)\Running Time, raw */
	PDH_PM_FIRST,                           /* \GPU Process Memory(*)\..., wddm_pm_counter order */
	PDH_PM_LAST = PDH_PM_FIRST + WDDM_PM_N - 1,
	PDH_ADAPTER_DEDICATED,                  /* \GPU Adapter Memory(*)\Dedicated Usage */
	PDH_ADAPTER_SHARED,                     /* \GPU Adapter Memory(*)\Shared Usage */
	PDH_ADAPTER_LOCAL,                      /* \GPU Local Adapter Memory(*)\Local Usage */
	PDH_ADAPTER_NONLOCAL,                   /* \GPU Non Local Adapter Memory(*)\Non Local Usage */
	PDH_ADAPTER_COMMITTED,                  /* \GPU Adapter Memory(*)\Total Committed (the host stream's A) */
	PDH_COUNTER_N
};

struct pdh_reader;

/* Opens the query and adds every counter. Returns NULL when none could be
 * added (no GPU counters: a driver below WDDM 2.0, or Wine), with why set. */
struct pdh_reader *pdh_reader_open(char *why, size_t cap);
/* Collects and reads every added counter. Returns 0, or -1 with why set
 * (the items of counters read before the failure stay). */
int pdh_reader_collect(struct pdh_reader *r, char *why, size_t cap);
const struct wddm_items *pdh_reader_items(const struct pdh_reader *r, enum pdh_counter_id c);
/* The counters that could not be added, as a short list for the sources
 * line ("" when every one was). */
const char *pdh_reader_missing(const struct pdh_reader *r);
/* Instances the last collect left out (past WDDM_MAX_INSTANCES of one
 * counter: the smallest), and in *listed how many were listed in all. */
size_t pdh_reader_cut(const struct pdh_reader *r, size_t *listed);
/* Instances of the last collect whose names are outside the grammar. */
size_t pdh_reader_unparsed(const struct pdh_reader *r);
void pdh_reader_close(struct pdh_reader *r);

/* The GPU Process Memory rows of the last collect (pid, adapter, phys and
 * each counter's item), in PDH order: what a WSL host stream prints for
 * vmwp.exe's contexts. Valid until the next collect. */
const struct wddm_mem_rows *pdh_reader_process_memory(struct pdh_reader *r);

#endif
