/* A scan's phases 3 and 4 (proc_scan_internal.h): the due details, read
 * side by side, then the snapshot's rows in order. */
#include <stdio.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_scan_internal.h"

/* Whether a due detail may be read now: past the budget only a priority
 * PID's is (the rest keep what is cached and the scan is marked partial). */
static bool detail_allowed(struct scan_state *s, uint32_t pid)
{
	if (s->budget_ns && !atomic_load(&s->over_budget) && now_monotonic_ns() - s->t0 > s->budget_ns)
		atomic_store(&s->over_budget, true);
	return !atomic_load(&s->over_budget) || is_priority(s, pid);
}

/* Phase 3, side by side: the due details, each worker with its own buffer. */
void scan_detail_item(void *ctx, size_t i, int worker)
{
	struct scan_state *s = ctx;
	struct scan_item *it = &s->items[i];
	struct proc_entry *e;

	if (it->detail != DETAIL_DUE)
		return;
	if (!detail_allowed(s, it->pid)) {
		it->detail = DETAIL_SKIPPED;
		return;
	}
	e = &s->c->entries[it->entry];
	const struct proc_stat *st = &item_stat_of(s, it)->st;
	struct proc_detail_how how = {.ports = s->ports,
				      .kthread = (st->flags & PROC_PF_KTHREAD) != 0,
				      .defer_environ = s->defer_environ,
				      .pidfd_uid = s->pidfd_uid,
				      .spans = s->c->spans,
				      .start_code = st->start_code};
	if (proc_detail_read(s->procfd, s->c->worker_io[worker], &how, e) != PROC_DETAIL_OK) {
		it->detail = DETAIL_GONE;
		return;
	}
	e->detail_rss = rss_bytes(s->c, st);
	e->detail_at_ns = s->now;
}

/* With priority_only, the parents of the priority PIDs (from their stat),
 * sorted: they get rows (an Ollama runner serves through its parent). */
void scan_collect_parents(struct scan_state *s)
{
	if (s->parents_known)
		return;
	s->n_parents = 0;
	if (!s->priority_only)
		return;
	for (size_t i = 0; i < s->n_items; i++) {
		const struct scan_item *it = &s->items[i];
		if ((it->stat != ITEM_FRESH && it->stat != STAT_OK) || !is_priority(s, it->pid))
			continue;
		/* before the stats are applied (count_others) as after */
		const struct proc_entry *e = it->stat == ITEM_FRESH ? proc_cache_find(s->c, it->pid) : NULL;
		uint32_t ppid = e ? e->last_stat.ppid : item_stat_of(s, it)->st.ppid;
		if (ppid > 1) {
			s->parents = grow_array(s->parents, sizeof *s->parents, &s->c->parents_cap, s->n_parents);
			s->parents[s->n_parents++] = ppid;
		}
	}
	if (s->n_parents > 1)
		qsort(s->parents, s->n_parents, sizeof *s->parents, pid_cmp);
	s->c->parents = s->parents;
}

/* Whether a process gets a row: every one, or with priority_only what a view
 * lists or may need (a priority PID, a priority PID's parent). */
static bool wants_row(const struct scan_state *s, uint32_t pid)
{
	return !s->priority_only || is_priority(s, pid) ||
	       (s->n_parents && bsearch(&pid, s->parents, s->n_parents, sizeof pid, pid_cmp));
}

static void add_row(struct scan_state *s, const struct proc_entry *e, const struct proc_stat *st, uid_t uid,
		    uint64_t rss)
{
	struct gtm_process *p = snapshot_add_process(s->snap);

	/* a non-dumpable process's /proc files belong to root: status knows better */
	if (uid == 0 && e->has_status_uid)
		uid = e->status_uid;
	p->pid = e->pid;
	str_u64(p->label, sizeof p->label, "", e->pid);
	p->owner = GTM_OWNER_NONE;
	p->start_time = e->start_time;
	p->ppid = st->ppid;
	p->uid = uid;
	str_copy(p->user, proc_users_name(&s->c->users, uid), sizeof p->user);
	memcpy(p->name, st->comm, sizeof p->name < sizeof st->comm ? sizeof p->name : sizeof st->comm);
	p->name[sizeof p->name - 1] = '\0';
	p->rss = gtm_u64_of(rss, GTM_MEASURED);
	p->detail = proc_detail_ref(e->detail);
	memcpy(p->ports, e->ports, sizeof p->ports);
	p->n_ports = e->n_ports;
	p->ports_read = e->ports_read;
	s->snap->n_procs_total++;
	if (e->denied)
		s->snap->n_procs_uninspectable++;
}

/* Phase 4, in order: the snapshot's rows. */
void scan_add_rows(struct scan_state *s)
{
	for (size_t i = 0; i < s->n_items; i++) {
		struct scan_item *it = &s->items[i];
		struct proc_entry *e;
		bool fresh = it->stat == ITEM_FRESH;

		switch (it->stat) {
		case ITEM_FRESH:
		case STAT_OK:
			break;
		case ITEM_COUNTED:
			s->snap->n_procs_total++; /* seen, and no view lists it */
			continue;
		case STAT_DENIED: /* a process we may not even list: counted, no row */
			s->snap->n_procs_total++;
			s->snap->n_procs_uninspectable++;
			continue;
		default: /* STAT_GONE; ITEM_UNREAD never: the stat phase read every one */
			continue;
		}
		e = &s->c->entries[it->entry];
		if (it->detail == DETAIL_GONE) {
			e->gen = 0; /* exited mid-read: evicted below, no row */
			continue;
		}
		if (it->detail == DETAIL_SKIPPED)
			s->snap->partial_scan = true;
		if (!wants_row(s, e->pid)) {
			s->snap->n_procs_total++; /* seen, and no view lists it */
			continue;
		}
		if (fresh)
			add_row(s, e, &e->last_stat, e->stat_uid, rss_bytes(s->c, &e->last_stat));
		else
			add_row(s, e, &item_stat_of(s, it)->st, item_stat_of(s, it)->uid,
				rss_bytes(s->c, &item_stat_of(s, it)->st));
	}
}
