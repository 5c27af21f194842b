/* Owner attribution (rules in attribute.h). Works on one refresh's raw uses
 * grouped by PID; the only state kept between refreshes is what pairing needs:
 * when each host PID was first seen, the previous refresh's local CUDA
 * processes, and the pairings made (host PID → local (PID, start time)),
 * those of exited processes included while the driver lists their host PIDs.
 * This file groups the raw uses, charges them and drives the phases:
 * attribute_local.c (PIDs of this /proc), attribute_pair.c (containers' host
 * PIDs), attribute_order.c (row order). */
#include "collect/attribute_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct attribute_state *attribute_state_new(void)
{
	return xcalloc(1, sizeof(struct attribute_state));
}

void attribute_state_free(struct attribute_state *st)
{
	if (!st)
		return;
	free(st->seen);
	free(st->cands);
	free(st->pairs);
	free(st->locals);
	free(st->reorder);
	free(st);
}

bool attribute_maps_libcuda(const struct gtm_proc_detail *d)
{
	if (!d)
		return false;
	for (size_t i = 0; i < d->n_maps; i++)
		if (d->maps[i] && str_starts(path_base(d->maps[i]), "libcuda.so"))
			return true;
	return false;
}

/* ---- grouping and lookup ---- */

static const struct gtm_raw_uses *sort_uses; /* qsort has no context argument */

static int order_cmp(const void *a, const void *b)
{
	const struct gtm_raw_use *x = &sort_uses->v[*(const size_t *)a], *y = &sort_uses->v[*(const size_t *)b];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start_time < y->start_time ? -1 : x->start_time > y->start_time;
}

int attr_key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void group_raw(struct work *w)
{
	const struct gtm_raw_uses *u = w->uses;
	size_t n = 0;

	w->order = xcalloc(u->n + 1, sizeof *w->order);
	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].pid != 0)
			w->order[n++] = i;
	sort_uses = u;
	qsort(w->order, n, sizeof *w->order, order_cmp);
	w->raw = xcalloc(n + 1, sizeof *w->raw);
	for (size_t i = 0; i < n;) {
		const struct gtm_raw_use *r = &u->v[w->order[i]];
		struct rawpid *rp = &w->raw[w->n_raw++];
		*rp = (struct rawpid){.pid = r->pid, .start = r->start_time, .first = i, .compute_only = true, .row = -1,
				      .hold = -1, .gone = -1};
		for (; i < n && u->v[w->order[i]].pid == rp->pid && u->v[w->order[i]].start_time == rp->start; i++) {
			rp->n++;
			rp->compute |= u->v[w->order[i]].use.compute;
			if (u->v[w->order[i]].use.graphics || !u->v[w->order[i]].use.compute)
				rp->compute_only = false;
		}
	}
}

static void index_local(struct work *w, const struct gtm_snapshot *snap)
{
	w->local = xcalloc((size_t)snap->n_processes + 1, sizeof *w->local);
	for (int i = 0; i < snap->n_processes; i++)
		if (snap->processes[i].pid != 0 && snap->processes[i].owner == GTM_OWNER_NONE)
			w->local[w->n_local++] = (struct key){snap->processes[i].pid, (uint64_t)i};
	qsort(w->local, w->n_local, sizeof *w->local, attr_key_cmp);
}

int attr_find_local(const struct work *w, const struct gtm_snapshot *snap, uint32_t pid, uint64_t start)
{
	size_t lo = 0, hi = w->n_local;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->local[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->n_local && w->local[lo].pid == pid; lo++) {
		int row = (int)w->local[lo].start;
		if (start == 0 || snap->processes[row].start_time == start)
			return row;
	}
	return -1;
}

/* ---- charging ---- */

void attr_charge(struct gtm_snapshot *snap, int row, const struct work *w, const struct rawpid *rp,
		 enum gtm_owner owner, const char *reason)
{
	struct gtm_process *p = &snap->processes[row];
	static const char *const prefix[] = {[GTM_OWNER_LOCAL] = "", [GTM_OWNER_MATCHED] = "*",
					     [GTM_OWNER_GUESSED] = "?", [GTM_OWNER_HOST] = "H:"};

	p->owner = owner;
	if (owner != GTM_OWNER_LOCAL)
		p->host_pid = rp->pid;
	if (owner == GTM_OWNER_EXITED)
		snprintf(p->label, sizeof p->label, "%cx%u", p->exited_pairing == GTM_OWNER_GUESSED ? '?' : '*',
			 p->exited_pid);
	else
		str_u64(p->label, sizeof p->label, (size_t)owner < ARRAY_LEN(prefix) && prefix[owner] ? prefix[owner] : "",
			owner == GTM_OWNER_HOST ? rp->pid : p->pid);
	str_copy(p->owner_reason, reason, sizeof p->owner_reason);
	for (size_t k = 0; k < rp->n; k++) {
		struct gtm_gpu_use *u = process_add_use(&snap->processes[row]);
		gpu_use_copy(u, &w->uses->v[w->order[rp->first + k]].use);
		u->source_pid = rp->pid;
	}
}


/* A PID from outside this PID namespace: "H:<pid>" (host), or "W:<pid>" under
 * WSL, where NVML's PIDs are Windows PIDs (platforms.md 2.2). */
static void add_host_row(struct gtm_snapshot *snap, const struct work *w, const struct rawpid *rp, enum gtm_mode mode)
{
	const char *reason = "not in this /proc: exited, or hidden from this user";
	struct gtm_process *p = snapshot_add_process(snap);

	if (mode == GTM_MODE_WSL)
		reason = "a Windows PID (WSL): never looked up here";
	else if (rp->hold >= 0 || rp->gone >= 0)
		reason = rp->gone >= 0 ? "a process here earlier; /proc cannot be listed now to see it"
				       : "paired earlier; /proc cannot be listed now to see that process";
	else if (mode == GTM_MODE_CONTAINER && rp->start == 0)
		reason = rp->compute ? "host PID: no process of this container to pair it with"
				     : "host PID in the graphics list only: no process here is proven to be it";
	p->rss = GTM_U64_NA;
	attr_charge(snap, snap->n_processes - 1, w, rp, GTM_OWNER_HOST, reason);
	if (mode == GTM_MODE_WSL)
		snprintf(snap->processes[snap->n_processes - 1].label, sizeof p->label, "W:%u", rp->pid);
}

/* The row of a host PID whose paired process exited while the driver still
 * lists the PID (memory not yet released): labelled by the local PID it had,
 * with that pairing's mark; never looked up locally (the PID may be reused). */
static void add_exited_row(struct gtm_snapshot *snap, const struct work *w, const struct rawpid *rp,
			   const struct pairing *pr, const char *reason)
{
	struct gtm_process *p = snapshot_add_process(snap);

	p->rss = GTM_U64_NA;
	p->exited_pid = pr->local.pid;
	p->exited_pairing = pr->owner;
	p->start_time = pr->local.start;
	str_copy(p->name, pr->name, sizeof p->name);
	str_copy(p->user, pr->user, sizeof p->user);
	attr_charge(snap, snap->n_processes - 1, w, rp, GTM_OWNER_EXITED, reason);
}

/* pid 0: one "unattributed" row per device; bytes add up. */
static void add_unattributed(struct gtm_snapshot *snap, const struct gtm_raw_uses *uses)
{
	int first = snap->n_processes;

	for (size_t i = 0; i < uses->n; i++) {
		const struct gtm_raw_use *r = &uses->v[i];
		struct gtm_gpu_use *have = NULL;
		if (r->pid != 0)
			continue;
		for (int k = first; k < snap->n_processes && !have; k++)
			if (snap->processes[k].uses[0].dev_index == r->use.dev_index)
				have = &snap->processes[k].uses[0];
		if (have) {
			if (gtm_u64_ok(r->use.vram))
				have->vram = gtm_u64_of((gtm_u64_ok(have->vram) ? have->vram.v : 0) + r->use.vram.v,
							 r->use.vram.prov);
			continue;
		}
		struct gtm_process *p = snapshot_add_process(snap);
		p->owner = GTM_OWNER_UNATTRIBUTED;
		p->rss = GTM_U64_NA;
		str_copy(p->label, "unattributed", sizeof p->label);
		str_copy(p->owner_reason, "memory the driver charges to no process", sizeof p->owner_reason);
		gpu_use_copy(process_add_use(p), &r->use);
	}
}

static void work_free(struct work *w)
{
	free(w->order);
	free(w->raw);
	free(w->local);
	free(w->cands);
	free(w->row_paired);
	free(w->unres);
	free(w->pairs);
	free(w->locals);
}

void attribute_uses(struct attribute_state *st, struct gtm_snapshot *snap, const struct gtm_raw_uses *uses)
{
	struct work w = {.uses = uses};
	bool container = snap->mode == GTM_MODE_CONTAINER;
	int n_local = snap->n_processes;

	st->seq++;
	index_local(&w, snap);
	group_raw(&w);
	add_unattributed(snap, uses);
	attr_resolve_local(&w, st, snap, snap->mode, n_local);
	if (container) {
		attr_pair_containers(&w, st, snap, n_local);
	}
	for (size_t i = 0; i < w.n_raw; i++) {
		const struct rawpid *rp = &w.raw[i];
		if (rp->row >= 0)
			continue;
		if (rp->hold >= 0 && w.pairs[rp->hold].exited)
			add_exited_row(snap, &w, rp, &w.pairs[rp->hold],
				       "exited: the process paired with this host PID is gone; the driver still lists it");
		else if (rp->gone >= 0 && w.locals[rp->gone].exited)
			add_exited_row(snap, &w, rp, &w.locals[rp->gone],
				       "exited: this PID was a process here; the driver still lists it");
		else
			add_host_row(snap, &w, rp, snap->mode);
	}
	if (container)
		attr_remember_pairings(st, &w, snap);
	attr_remember_locals(st, &w, snap);
	attribute_order_rows(st, snap);
	work_free(&w);
}
