/* Owner attribution in a container: NVML's host PIDs paired with this
 * container's CUDA processes (rules in attribute.h), and what the next
 * refresh's pairing needs kept. */
#include "collect/attribute_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

static struct gtm_snapshot *sort_snap;

static int cand_cmp(const void *a, const void *b)
{
	const struct gtm_process *x = &sort_snap->processes[*(const int *)a], *y = &sort_snap->processes[*(const int *)b];
	if (x->start_time != y->start_time)
		return x->start_time < y->start_time ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static const struct rawpid *sort_raw;

static int unres_cmp(const void *a, const void *b)
{
	const struct rawpid *x = &sort_raw[*(const size_t *)a], *y = &sort_raw[*(const size_t *)b];
	if (x->first_seq != y->first_seq)
		return x->first_seq < y->first_seq ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	return x->host_pid < y->host_pid ? -1 : x->host_pid > y->host_pid;
}

static uint64_t first_seen(const struct attribute_state *st, uint32_t host_pid)
{
	struct seen key = {host_pid, 0};
	const struct seen *s = st->n_seen ? bsearch(&key, st->seen, st->n_seen, sizeof key, seen_cmp) : NULL;
	return s ? s->first_seq : st->seq;
}

static void collect_candidates(struct work *w, struct attribute_state *st, struct gtm_snapshot *snap, int n_local)
{
	w->cands = xcalloc((size_t)n_local + 1, sizeof *w->cands);
	for (int i = 0; i < n_local; i++) {
		const struct gtm_process *p = &snap->processes[i];
		if (p->owner == GTM_OWNER_NONE && p->pid != 0 && attribute_maps_libcuda(p->detail))
			w->cands[w->n_cands++] = i;
	}
	sort_snap = snap;
	qsort(w->cands, w->n_cands, sizeof *w->cands, cand_cmp);
	w->row_paired = xcalloc((size_t)n_local + 1, sizeof *w->row_paired);

	w->unres = xcalloc(w->n_raw + 1, sizeof *w->unres);
	for (size_t i = 0; i < w->n_raw; i++)
		if (pairable(&w->raw[i])) {
			w->raw[i].first_seq = first_seen(st, w->raw[i].pid);
			w->unres[w->n_unres++] = i;
		}
	sort_raw = w->raw;
	qsort(w->unres, w->n_unres, sizeof *w->unres, unres_cmp);
}

static struct pairing *carry(struct work *w, const struct pairing *pr)
{
	w->pairs = grow_array(w->pairs, sizeof *w->pairs, &w->cap_pairs, w->n_pairs);
	w->pairs[w->n_pairs] = *pr;
	return &w->pairs[w->n_pairs++];
}

static void pair_row(struct work *w, struct gtm_snapshot *snap, struct rawpid *rp, int row, enum gtm_owner owner,
		     const char *reason)
{
	const struct gtm_process *p = &snap->processes[row];
	struct pairing pr = {.host_pid = rp->pid, .local = {p->pid, p->start_time}, .owner = owner};

	rp->taken = w->row_paired[row] = true;
	rp->row = row;
	attr_charge(snap, row, w, rp, owner, reason);
	str_copy(pr.reason, reason, sizeof pr.reason);
	str_copy(pr.name, p->name, sizeof pr.name);
	str_copy(pr.user, p->user, sizeof pr.user);
	carry(w, &pr);
}

static void pair(struct work *w, struct gtm_snapshot *snap, size_t u, size_t c, enum gtm_owner owner,
		 const char *reason)
{
	pair_row(w, snap, &w->raw[w->unres[u]], w->cands[c], owner, reason);
}

static bool unres_free(const struct work *w, size_t u)
{
	return !w->raw[w->unres[u]].taken;
}

static bool cand_free(const struct work *w, size_t c)
{
	return !w->row_paired[w->cands[c]];
}

/* The driver's PID host_pid of this refresh while no pairing holds it, or NULL. */
static struct rawpid *free_host_pid(struct work *w, uint32_t host_pid)
{
	for (size_t i = 0; i < w->n_raw; i++)
		if (w->raw[i].pid == host_pid && w->raw[i].start == 0 && w->raw[i].row < 0 && !w->raw[i].taken)
			return &w->raw[i];
	return NULL;
}

/* A pairing made earlier holds while the driver lists its host PID: with its
 * process while that lives (same PID and start time), and once it is gone as
 * an exited row, never handed to another process (platforms.md 2.5, step 3).
 * While /proc cannot be listed nobody is known to have exited: the pairing is
 * carried as it is and its host PID shown as H: meanwhile. */
static void keep_pairings(struct work *w, const struct attribute_state *st, struct gtm_snapshot *snap)
{
	for (size_t k = 0; k < st->n_pairs; k++) {
		const struct pairing *old = &st->pairs[k];
		struct rawpid *rp = free_host_pid(w, old->host_pid);
		int row = old->exited || !rp ? -1 : attr_find_local(w, snap, old->local.pid, old->local.start);
		if (!rp)
			continue; /* the driver dropped the PID: the pairing ends */
		if (row >= 0 && (snap->processes[row].owner != GTM_OWNER_NONE || w->row_paired[row]))
			continue; /* the process is charged with its own PID now: the pairing ends */
		w->kept_guess |= old->owner == GTM_OWNER_GUESSED;
		if (row >= 0) {
			pair_row(w, snap, rp, row, old->owner, old->reason);
			continue;
		}
		rp->taken = true;
		rp->hold = (int)w->n_pairs;
		carry(w, old)->exited = old->exited || !snap->procs_unlisted;
	}
}

static bool was_candidate(const struct attribute_state *st, const struct gtm_process *p)
{
	struct key k = {p->pid, p->start_time};
	return st->n_cands > 0 && bsearch(&k, st->cands, st->n_cands, sizeof k, attr_key_cmp) != NULL;
}

/* Host PIDs first seen now and local CUDA processes new now, as many of each:
 * they started while we watched, so they pin each other. */
static void pin_new(struct work *w, const struct attribute_state *st, struct gtm_snapshot *snap)
{
	size_t new_u = 0, new_c = 0;

	if (st->seq < 2)
		return; /* on the first refresh everything is new */
	for (size_t u = 0; u < w->n_unres; u++)
		new_u += unres_free(w, u) && w->raw[w->unres[u]].first_seq == st->seq;
	for (size_t c = 0; c < w->n_cands; c++)
		new_c += cand_free(w, c) && !was_candidate(st, &snap->processes[w->cands[c]]);
	if (new_u == 0 || new_u != new_c)
		return;
	size_t u = 0, c = 0;
	for (size_t k = 0; k < new_u; k++) {
		while (!unres_free(w, u) || w->raw[w->unres[u]].first_seq != st->seq)
			u++;
		while (!cand_free(w, c) || was_candidate(st, &snap->processes[w->cands[c]]))
			c++;
		pair(w, snap, u, c, GTM_OWNER_MATCHED, "pinned: this process and the host PID appeared in the same refresh");
	}
}

/* The rest in creation order: certain only when the counts agree and every
 * pairing kept beside them is certain (if one is a guess, its process may
 * own one of the PIDs left). */
static void pair_in_order(struct work *w, struct gtm_snapshot *snap)
{
	size_t left_u = 0, left_c = 0, u = 0, c = 0;
	char reason[96];

	for (size_t i = 0; i < w->n_unres; i++)
		left_u += unres_free(w, i);
	for (size_t i = 0; i < w->n_cands; i++)
		left_c += cand_free(w, i);
	enum gtm_owner owner = left_u == left_c && !w->kept_guess ? GTM_OWNER_MATCHED : GTM_OWNER_GUESSED;
	if (owner == GTM_OWNER_MATCHED)
		snprintf(reason, sizeof reason, "paired by creation order: %zu host PIDs, %zu CUDA processes here",
			 left_u, left_c);
	else if (left_u == left_c)
		snprintf(reason, sizeof reason,
			 "guessed: %zu host PIDs, %zu CUDA processes here, beside a pairing that is a guess", left_u, left_c);
	else
		snprintf(reason, sizeof reason, "guessed by creation order: %zu host PIDs for %zu CUDA processes here",
			 left_u, left_c);
	for (size_t k = 0; k < left_u && k < left_c; k++) {
		while (!unres_free(w, u))
			u++;
		while (!cand_free(w, c))
			c++;
		pair(w, snap, u, c, owner, reason);
	}
}

/* Keeps what the next refresh's pairing needs. */
void attr_remember_pairings(struct attribute_state *st, struct work *w, const struct gtm_snapshot *snap)
{
	st->n_seen = 0;
	for (size_t i = 0; i < w->n_unres; i++) {
		st->seen = grow_array(st->seen, sizeof *st->seen, &st->cap_seen, st->n_seen);
		st->seen[st->n_seen++] = (struct seen){w->raw[w->unres[i]].pid, w->raw[w->unres[i]].first_seq};
	}
	if (st->n_seen > 1)
		qsort(st->seen, st->n_seen, sizeof *st->seen, seen_cmp);
	st->n_cands = 0;
	for (size_t i = 0; i < w->n_cands; i++) {
		const struct gtm_process *p = &snap->processes[w->cands[i]];
		st->cands = grow_array(st->cands, sizeof *st->cands, &st->cap_cands, st->n_cands);
		st->cands[st->n_cands++] = (struct key){p->pid, p->start_time};
	}
	if (st->n_cands > 1)
		qsort(st->cands, st->n_cands, sizeof *st->cands, attr_key_cmp);
	free(st->pairs);
	st->pairs = w->pairs;
	st->n_pairs = w->n_pairs;
	st->cap_pairs = w->cap_pairs;
	w->pairs = NULL;
}

/* Containers: pairings kept from before first, then host PIDs and processes
 * that appeared together, then the rest in creation order. */
void attr_pair_containers(struct work *w, struct attribute_state *st, struct gtm_snapshot *snap, int n_local)
{
	collect_candidates(w, st, snap, n_local);
	keep_pairings(w, st, snap);
	pin_new(w, st, snap);
	pair_in_order(w, snap);
}
