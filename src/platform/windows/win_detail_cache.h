/* The Windows scan's details kept between scans, keyed by (PID, start time)
 * as on Linux (docs/architecture.md: caches are keyed by what invalidates
 * them). A process's start time comes from each scan's listing
 * (SystemProcessInformation's CreateTime, or a fresh handle with the Toolhelp
 * fallback), so a reused PID never finds the old process's entry. Reading a detail
 * (image path, command line, working folder, a VirtualQueryEx walk of its
 * DLLs and mapped files, its user) costs tens of system calls; the scan
 * re-read every GPU process each refresh, which under Wine with 200 live
 * GPU processes was ~670 ms of CPU per refresh. An entry is read again by
 * Linux's rules (src/platform/linux/proc.h: every 120 s, or when the
 * working set moved by 64 MiB or 10 %, not within 5 s of the last read).
 * An entry may hold no detail: a parent's row keeps only its user, and a
 * process that refused to be opened is kept as refused, so that a scan
 * whose listing gave start time and working set opens neither again. */
#ifndef GTM_WIN_DETAIL_CACHE_H
#define GTM_WIN_DETAIL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

struct win_detail_entry {
	uint32_t pid;
	uint64_t start_time;
	struct gtm_proc_detail *detail; /* one reference held by the cache; NULL: none read */
	char user[33];
	bool ok;           /* what the read returned: with a detail, full rights and a
			    * command line; without, that the process could be opened */
	bool refused;      /* the process could not be opened (detail NULL, ok false) */
	bool carried;      /* moved into the next generation (the cache's own) */
	uint64_t rss;      /* working set at the read */
	uint64_t read_ns;  /* when it was read (monotonic) */
};

struct win_detail_cache {
	struct win_detail_entry *v, *next; /* this scan's, sorted by PID; the one being built */
	size_t n, cap, n_next, cap_next;
};

/* What a lookup accepts: a detail read; a detail or a refusal (a full row
 * of a listing that gave what ps shows: no handle to read with yet); any
 * entry, for its user (a parent's row). */
enum win_detail_want { WIN_WANT_DETAIL, WIN_WANT_DETAIL_OR_REFUSAL, WIN_WANT_USER };

/* The entry of (pid, start_time) that needs no new read at rss and now_ns
 * and gives what want asks, or NULL. A found entry is carried into the next
 * generation. */
const struct win_detail_entry *win_detail_cache_get(struct win_detail_cache *c, uint32_t pid, uint64_t start_time,
						    uint64_t rss, uint64_t now_ns, enum win_detail_want want);
/* Keeps a fresh read for the next generation (takes a reference on its
 * detail, if any). */
void win_detail_cache_put(struct win_detail_cache *c, const struct win_detail_entry *e);
/* Ends a scan: what it did not carry or put is dropped. */
void win_detail_cache_end_scan(struct win_detail_cache *c);
void win_detail_cache_free(struct win_detail_cache *c);

#endif
