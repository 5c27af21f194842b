/* One pass over /proc: a steady refresh reads /proc/PID/stat only (uid from
 * the owner of that file: fs/proc/base.c task_dump_owner()); details are read
 * for new processes and when the rescan rule fires, within the budget. */
#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/parallel.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "proc_scan_internal.h"

/* A /proc entry name that is a PID: digits only, no leading zero, fits. */
static bool parse_pid(const char *s, uint32_t *pid)
{
	uint64_t v = 0;

	if (s[0] < '1' || s[0] > '9')
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*pid = (uint32_t)v;
	return true;
}

/* Enough processes to read for threads to pay off (each costs ~50 us to start). */
#define SCAN_STATS_PER_WORKER 128
#define SCAN_DETAILS_PER_WORKER 32

void scan_item_give_stat(struct scan_state *s, struct scan_item *it)
{
	struct proc_cache *c = s->c;
	c->item_stats = grow_array_raw(c->item_stats, sizeof *c->item_stats, &c->item_stats_cap, c->n_item_stats);
	it->st = (uint32_t)c->n_item_stats++;
}

void scan_items(struct scan_state *s)
{
	struct proc_cache *c = s->c;
	size_t n_stat = 0, n_new = 0, due;
	int workers;

	bool counting = s->count_others && !s->parents_known;
	c->n_item_stats = 0;
	for (size_t i = 0; i < s->n_items; i++) {
		struct scan_item *it = &s->items[i];
		it->st = SCAN_NO_STAT;
		if (counting && !is_priority(s, it->pid)) {
			it->stat = ITEM_COUNTED;
			continue;
		}
		const struct proc_entry *e = proc_cache_find(c, it->pid);
		it->stat = scan_stat_fresh(s, e, it->ino) ? ITEM_FRESH : ITEM_UNREAD;
		/* the stat file kept open for this very process (same inode) */
		it->held_slot = e && it->ino && e->ino == it->ino ? e->stat_fd_slot : 0;
		scan_item_give_stat(s, it);
		n_stat += it->stat != ITEM_FRESH;
		n_new += e == NULL;
	}
	proc_cache_reserve(c, n_new);
	/* threads for the stats of a cold scan only: a repeated full scan of
	 * known processes is cheap enough that starting them costs more CPU
	 * than it saves (bench/proc) */
	if (n_stat > 0)
		parallel_for(s->n_items, parallel_workers(n_new, SCAN_STATS_PER_WORKER), scan_stat_item, s);
	if (counting)
		scan_read_counted_parents(s);
	due = scan_apply_stats(s);
	if (due > 0) {
		s->ports = s->ports_on_demand ? NULL : proc_cache_listeners(c, s->procfd);
		s->pidfd_uid = proc_pidfd_uid_usable(c, s->procfd);
		workers = parallel_workers(due, SCAN_DETAILS_PER_WORKER);
		proc_cache_worker_io(c, workers);
		parallel_for(s->n_items, workers, scan_detail_item, s);
	}
	scan_collect_parents(s);
	scan_add_rows(s);
}

void scan_push_item(struct scan_state *s, uint32_t pid, ino_t ino)
{
	struct proc_cache *c = s->c;

	c->items = grow_array_raw(c->items, sizeof *c->items, &c->items_cap, c->n_items);
	c->items[c->n_items++] = (struct scan_item){.pid = pid, .ino = ino};
	s->items = c->items;
	s->n_items = c->n_items;
}

static int item_pid_cmp(const void *key, const void *elem)
{
	uint32_t pid = *(const uint32_t *)key, other = ((const struct scan_item *)elem)->pid;
	return pid < other ? -1 : pid > other;
}

/* Whether a priority PID is missing from the items readdir listed. /proc
 * lists PIDs in ascending order, so the items are searched in place; a
 * replayed tree's listing may be in any order: then a sorted copy. */
static bool priority_missing(const struct scan_state *s)
{
	bool sorted = true, missing = false;

	for (size_t i = 1; i < s->n_items && sorted; i++)
		sorted = s->items[i - 1].pid < s->items[i].pid;
	if (sorted) {
		for (size_t i = 0; i < s->n_priority && !missing; i++)
			missing = !bsearch(&s->priority[i], s->items, s->n_items, sizeof *s->items, item_pid_cmp);
		return missing;
	}
	uint32_t *pids = xmalloc((s->n_items ? s->n_items : 1) * sizeof *pids);
	for (size_t i = 0; i < s->n_items; i++)
		pids[i] = s->items[i].pid;
	qsort(pids, s->n_items, sizeof *pids, pid_cmp);
	for (size_t i = 0; i < s->n_priority && !missing; i++)
		missing = !bsearch(&s->priority[i], pids, s->n_items, sizeof *pids, pid_cmp);
	free(pids);
	return missing;
}

/* A priority-only scan of a /proc whose link count counts its processes
 * (proc_count.c): the priority PIDs and their parents looked up, nothing
 * listed. An entry no scan touched for a listing period is let go (a listing
 * let go of those it did not list). false: this /proc must be listed. */
static bool scan_counted(struct scan_state *s)
{
	struct proc_cache *c = s->c;
	int procfd = proc_cache_procfd(c), n;

	if (procfd < 0 || (n = proc_count_processes(c, procfd, s->now)) < 0)
		return false;
	s->procfd = procfd;
	c->gen++;
	c->n_items = 0;
	c->listed_total = n;
	c->listed_uninspectable = 0;
	scan_targeted(s);
	if (!c->evict_gen || s->now - c->evict_at_ns >= PROC_LIST_PERIOD_NS) {
		if (c->evict_gen)
			proc_cache_evict_before(c, c->evict_gen);
		c->evict_gen = c->gen;
		c->evict_at_ns = s->now;
	}
	return true;
}

int proc_cache_scan(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o)
{
	struct scan_state s = {.c = c, .snap = snap, .budget_ns = o ? o->budget_ns : 0, .parents = c->parents};
	uint32_t only = o ? o->only_pid : 0;
	s.ports_on_demand = o && o->ports_on_demand;
	s.defer_environ = o && o->defer_environ;
	s.priority_only = o && o->details_priority_only;
	s.priority = o ? o->priority_pids : NULL;
	s.n_priority = o ? o->n_priority : 0;
	struct dirent *de;
	uint32_t pid;
	DIR *d;

	proc_cache_check_root(c);
	s.t0 = now_monotonic_ns();
	s.now = c->clock();
	atomic_init(&s.over_budget, false);
	s.trust_ino = s.budget_ns != 0 && sysroot_prefix()[0] == '\0';
	/* pair_if_missing does not matter there: a /proc that counts itself is
	 * the initial PID namespace's, whose PIDs are the driver's (a priority
	 * PID it lacks has exited, no host PID to pair) */
	if (!only && s.priority_only && scan_counted(&s))
		return 0;
	/* between listings nothing is listed: the /proc kept open serves (an
	 * opendir and its close were five system calls a refresh) */
	if (!only && s.priority_only && s.trust_ino && c->listed_at_ns && s.now - c->listed_at_ns < PROC_LIST_PERIOD_NS &&
	    (s.procfd = proc_cache_procfd(c)) >= 0) {
		c->gen++;
		c->n_items = 0;
		scan_targeted(&s);
		return 0;
	}
	d = sysroot_opendir("/proc");
	if (!d)
		return -1;
	s.procfd = dirfd(d);
	c->gen++;
	c->n_items = 0;
	if (only) {
		/* and its parents: an Ollama runner's API is its parent's port, a
		 * vLLM worker's its grandparent's (API server -> engine core -> worker) */
		scan_push_item(&s, only, 0);
		scan_items(&s);
		for (int up = 0; up < 3 && snap->n_processes > 0 && snap->processes[snap->n_processes - 1].ppid > 1; up++) {
			int before = snap->n_processes;
			c->n_items = 0;
			scan_push_item(&s, snap->processes[snap->n_processes - 1].ppid, 0);
			scan_items(&s);
			if (snap->n_processes == before)
				break;
		}
	} else {
		c->listings++;
		while ((de = readdir(d)))
			if (parse_pid(de->d_name, &pid))
				scan_push_item(&s, pid, de->d_ino);
		if (s.priority_only && o->pair_if_missing && priority_missing(&s))
			s.priority_only = false;
		s.count_others = s.priority_only && !proc_stat_may_be_refused(c);
		scan_items(&s);
		c->listed_total = snap->n_procs_total;
		c->listed_uninspectable = snap->n_procs_uninspectable;
		c->listed_at_ns = s.trust_ino && s.priority_only ? (s.now ? s.now : 1) : 0;
	}
	closedir(d);
	proc_cache_evict(c);
	return 0;
}

bool proc_cache_scanned(const struct proc_cache *c)
{
	return c->gen > 0;
}

bool proc_cache_listed(struct proc_cache *c, uint32_t pid)
{
	const struct proc_entry *e = proc_cache_find(c, pid);
	if (e && e->gen == c->gen)
		return true;
	return c->counted_gen == c->gen && c->n_counted &&
	       bsearch(&pid, c->counted, c->n_counted, sizeof pid, pid_cmp) != NULL;
}
