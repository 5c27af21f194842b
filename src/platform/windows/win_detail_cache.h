/* The Windows scan's details kept between scans, keyed by (PID, start time)
 * as on Linux (docs/architecture.md: caches are keyed by what invalidates
 * them). A process's start time is read from a fresh handle at every scan,
 * so a reused PID never finds the old process's entry. Reading a detail
 * (image path, command line, working folder, a VirtualQueryEx walk of its
 * DLLs and mapped files, its user) costs tens of system calls; the scan
 * re-read every GPU process each refresh, which under Wine with 200 live
 * GPU processes was ~670 ms of CPU per refresh. An entry is read again by
 * Linux's rules (src/platform/linux/proc.h: every 120 s, or when the
 * working set moved by 64 MiB or 10 %, not within 5 s of the last read). */
#ifndef GTM_WIN_DETAIL_CACHE_H
#define GTM_WIN_DETAIL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

struct win_detail_entry {
	uint32_t pid;
	uint64_t start_time;
	struct gtm_proc_detail *detail; /* one reference held by the cache */
	char user[33];
	bool ok;           /* what the read returned: full rights and a command line */
	uint64_t rss;      /* working set at the read */
	uint64_t read_ns;  /* when it was read (monotonic) */
};

struct win_detail_cache {
	struct win_detail_entry *v, *next; /* this scan's, sorted by PID; the one being built */
	size_t n, cap, n_next, cap_next;
};

/* The entry of (pid, start_time) that needs no new read at rss and now_ns,
 * or NULL. A found entry is carried into the next generation. */
const struct win_detail_entry *win_detail_cache_get(struct win_detail_cache *c, uint32_t pid, uint64_t start_time,
						    uint64_t rss, uint64_t now_ns);
/* Keeps a fresh read for the next generation (takes a reference on d). */
void win_detail_cache_put(struct win_detail_cache *c, const struct win_detail_entry *e);
/* Ends a scan: what it did not carry or put is dropped. */
void win_detail_cache_end_scan(struct win_detail_cache *c);
void win_detail_cache_free(struct win_detail_cache *c);

#endif
