/* Between the phases of a /proc scan (proc_scan.c lists the PIDs and runs
 * the phases; proc_scan_stat.c, proc_scan_rows.c and proc_scan_targeted.c
 * hold them). Not a public API. */
#ifndef GTM_PROC_SCAN_INTERNAL_H
#define GTM_PROC_SCAN_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "proc_internal.h"

/* A scan runs in phases over the PIDs readdir listed (scan_items): the
 * system calls (stat, then the due details) side by side on several threads
 * when there are enough of them, what touches the cache or the snapshot in
 * readdir order on the calling thread. */
struct scan_state {
	struct proc_cache *c;
	struct gtm_snapshot *snap;
	int procfd;
	struct scan_item *items;
	size_t n_items;
	const struct proc_listeners *ports; /* NULL: no fds read for ports */
	uint64_t now;            /* the cache's clock, for the rescan rule */
	uint64_t t0, budget_ns;  /* real monotonic time, for the budget */
	atomic_bool over_budget;
	bool trust_ino;          /* live view on the real /proc: see PROC_STAT_PERIOD_NS */
	bool pidfd_uid;          /* proc_pidfd_uid_usable, asked before the parallel phases */
	bool ports_on_demand;
	bool defer_environ;
	bool priority_only;      /* details only for the priority PIDs, rows only for them and
	                          * their parents */
	const uint32_t *priority;
	size_t n_priority;
	uint32_t *parents;       /* sorted: the priority PIDs' parents (priority_only) */
	size_t n_parents;
	bool parents_known;      /* a later batch of items keeps them */
	bool count_others;       /* priority_only, and no stat can be refused: a process that is
	                          * neither a priority PID nor a parent of one is counted unread */
};

/* read_stat's results, and two more states of a scan item's stat */
enum stat_result {
	STAT_OK = 0, STAT_GONE, STAT_DENIED,
	ITEM_FRESH,  /* the cached stat is still good: not read */
	ITEM_UNREAD, /* to be read by the stat phase */
	ITEM_COUNTED, /* listed, matters to no view: counted, not read (count_others) */
};
enum item_detail { DETAIL_NONE = 0, DETAIL_DUE, DETAIL_SKIPPED /* budget */, DETAIL_GONE };

static inline int pid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static inline bool is_priority(const struct scan_state *s, uint32_t pid)
{
	return s->n_priority && bsearch(&pid, s->priority, s->n_priority, sizeof pid, pid_cmp);
}

static inline uint64_t rss_bytes(const struct proc_cache *c, const struct proc_stat *st)
{
	return st->rss_pages <= UINT64_MAX / (uint64_t)c->page_size ? st->rss_pages * (uint64_t)c->page_size
								   : UINT64_MAX;
}

/* The stat of an item that has one (it->st != SCAN_NO_STAT). */
static inline struct item_stat *item_stat_of(const struct scan_state *s, const struct scan_item *it)
{
	return &s->c->item_stats[it->st];
}

/* Gives an item a stat slot (on the scan's thread, before or after the
 * parallel phases: the array may move). */
void scan_item_give_stat(struct scan_state *s, struct scan_item *it);

/* proc_scan.c: every phase over s->items, in order */
void scan_items(struct scan_state *s);
void scan_push_item(struct scan_state *s, uint32_t pid, ino_t ino);

/* proc_scan_stat.c: phases 1 and 2 */
bool scan_stat_fresh(const struct scan_state *s, const struct proc_entry *e, ino_t ino);
void scan_stat_item(void *ctx, size_t i, int worker);
void scan_read_counted_parents(struct scan_state *s);
size_t scan_apply_stats(struct scan_state *s);

/* proc_scan_rows.c: phases 3 and 4 */
void scan_detail_item(void *ctx, size_t i, int worker);
void scan_collect_parents(struct scan_state *s);
void scan_add_rows(struct scan_state *s);

/* proc_scan_targeted.c: the live view between full listings */
void scan_targeted(struct scan_state *s);

#endif
