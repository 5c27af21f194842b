/* Owner attribution (rules in attribute.h). Works on one refresh's raw uses
 * grouped by PID; the only state kept between refreshes is what pairing needs:
 * when each host PID was first seen, the previous refresh's local CUDA
 * processes, and the pairings made (host PID → local (PID, start time)),
 * those of exited processes included while the driver lists their host PIDs. */
#include "collect/attribute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct key {
	uint32_t pid;
	uint64_t start;
};

struct seen {
	uint32_t host_pid;
	uint64_t first_seq;
};

struct pairing {
	uint32_t host_pid;
	struct key local;
	enum gtm_owner owner;   /* MATCHED or GUESSED: how sure the pairing is */
	bool exited;            /* the local process is gone: its row shows it exited */
	char reason[96];
	char name[64], user[33]; /* the local process's, for its exited row */
};

struct attribute_state {
	uint64_t seq; /* refreshes so far */
	struct seen *seen;        /* unresolved host PIDs of the previous refresh, by host_pid */
	size_t n_seen, cap_seen;
	struct key *cands;        /* previous refresh's local CUDA processes, by (pid, start) */
	size_t n_cands, cap_cands;
	struct pairing *pairs;    /* previous refresh's pairings */
	size_t n_pairs, cap_pairs;
	struct pairing *locals;   /* the driver's PIDs that were processes here, by host_pid: */
	size_t n_locals, cap_locals; /* charged locally last refresh, or exited since */
	struct gtm_process *reorder; /* scratch for order_rows, kept: rows are big and */
	size_t cap_reorder;          /* a fresh buffer each refresh costs page faults */
};

/* One distinct raw PID of this refresh and its uses (order[first .. first+n)). */
struct rawpid {
	uint32_t pid;
	uint64_t start;
	size_t first, n;
	bool compute;       /* in a compute list on some device (NVML: a CUDA or OpenCL context) */
	bool compute_only;
	int row;            /* charged local row, or -1 */
	bool taken;         /* held by a pairing: offered to no other process */
	int hold;           /* taken, no row: its pairing in work.pairs, or -1 */
	int gone;           /* taken, no row: was a process here, in work.locals, or -1 */
	uint64_t first_seq; /* when this host PID was first seen unresolved */
};

/* Per-call working set. */
struct work {
	const struct gtm_raw_uses *uses;
	size_t *order;            /* indices of non-zero-PID raw uses, by (pid, start) */
	struct rawpid *raw;
	size_t n_raw;
	struct key *local;        /* (pid, row) of the local rows, by pid */
	size_t n_local;
	int *cands;               /* rows of local CUDA processes, by (start, pid) */
	size_t n_cands;
	bool *row_paired;         /* by local row: holds a host PID this refresh */
	size_t *unres;            /* indices into raw of pairable PIDs, by (first_seq, pid) */
	size_t n_unres;
	struct pairing *pairs;    /* made or kept this refresh */
	size_t n_pairs, cap_pairs;
	bool kept_guess;          /* a pairing kept from before is a guess */
	struct pairing *locals;   /* processes here that exited while the driver lists their PIDs */
	size_t n_locals, cap_locals;
};

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

static int key_cmp(const void *a, const void *b)
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
	qsort(w->local, w->n_local, sizeof *w->local, key_cmp);
}

/* The local row with this PID (and start time when known), or -1. */
static int find_local(const struct work *w, const struct gtm_snapshot *snap, uint32_t pid, uint64_t start)
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

static void charge(struct gtm_snapshot *snap, int row, const struct work *w, const struct rawpid *rp,
		   enum gtm_owner owner, const char *reason)
{
	struct gtm_process *p = &snap->processes[row];
	static const char *const fmt[] = {[GTM_OWNER_LOCAL] = "%u", [GTM_OWNER_MATCHED] = "*%u",
					  [GTM_OWNER_GUESSED] = "?%u", [GTM_OWNER_HOST] = "H:%u"};

	p->owner = owner;
	if (owner != GTM_OWNER_LOCAL)
		p->host_pid = rp->pid;
	if (owner == GTM_OWNER_EXITED)
		snprintf(p->label, sizeof p->label, "%cx%u", p->exited_pairing == GTM_OWNER_GUESSED ? '?' : '*',
			 p->exited_pid);
	else
		snprintf(p->label, sizeof p->label, fmt[owner], owner == GTM_OWNER_HOST ? rp->pid : p->pid);
	str_copy(p->owner_reason, reason, sizeof p->owner_reason);
	for (size_t k = 0; k < rp->n; k++) {
		struct gtm_gpu_use *u = process_add_use(&snap->processes[row]);
		*u = w->uses->v[w->order[rp->first + k]].use;
		u->source_pid = rp->pid;
	}
}

/* A host PID of a container that may be paired: the driver's (no start
 * time: a source that read this /proc knows one) and in a compute list. A
 * graphics-only PID (the host's display server) is no CUDA process. */
static bool pairable(const struct rawpid *rp)
{
	return rp->row < 0 && rp->start == 0 && rp->compute && rp->gone < 0;
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
	charge(snap, snap->n_processes - 1, w, rp, GTM_OWNER_HOST, reason);
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
	charge(snap, snap->n_processes - 1, w, rp, GTM_OWNER_EXITED, reason);
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
		*process_add_use(p) = r->use;
	}
}

/* ---- local PIDs ---- */

/* Libraries whose presence says a process computes on an NVIDIA GPU itself:
 * the driver API, the runtime (which loads the driver API later, so a cached
 * map may not show it yet), OpenCL (compute list, no libcuda), and llama.cpp's
 * CUDA backend. */
static const char *const nvidia_compute_libs[] = {
	"libcuda.so", "libcudart.so", "libnvidia-opencl.so", "libggml-cuda.so",
};

static bool maps_nvidia_compute(const struct gtm_proc_detail *d)
{
	for (size_t i = 0; d && i < d->n_maps; i++)
		for (size_t k = 0; d->maps[i] && k < ARRAY_LEN(nvidia_compute_libs); k++)
			if (str_starts(path_base(d->maps[i]), nvidia_compute_libs[k]))
				return true;
	return false;
}

/* Local CUDA processes no raw PID resolved to. */
static size_t count_idle_cuda(const struct work *w, const struct gtm_snapshot *snap, int n_local)
{
	bool *taken = xcalloc((size_t)n_local + 1, sizeof *taken);
	size_t n = 0;

	for (size_t i = 0; i < w->n_raw; i++)
		if (w->raw[i].row >= 0 && w->raw[i].row < n_local)
			taken[w->raw[i].row] = true;
	for (int row = 0; row < n_local; row++)
		n += !taken[row] && snap->processes[row].pid != 0 && attribute_maps_libcuda(snap->processes[row].detail);
	free(taken);
	return n;
}

/* A host PID can equal the PID of an unrelated process of this container.
 * Only evidence makes us distrust the same PID: the local process is a
 * compute-only user that maps no NVIDIA compute library, and this container
 * has more idle CUDA processes than unresolved compute host PIDs, so one of
 * them lacks its driver entry. At most that surplus is re-paired, lowest PIDs
 * first. */
static void distrust_coincidences(struct work *w, const struct gtm_snapshot *snap, size_t unresolved, int n_local)
{
	size_t idle = count_idle_cuda(w, snap, n_local);
	size_t surplus = idle > unresolved ? idle - unresolved : 0;

	for (size_t i = 0; i < w->n_raw && surplus > 0; i++) {
		struct rawpid *rp = &w->raw[i];
		const struct gtm_proc_detail *d = rp->row >= 0 ? snap->processes[rp->row].detail : NULL;
		if (rp->start == 0 && rp->compute_only && d && d->n_maps > 0 && !maps_nvidia_compute(d)) {
			rp->row = -1;
			surplus--;
		}
	}
}

static int locals_cmp(const void *a, const void *b)
{
	const struct pairing *x = a, *y = b;
	return x->host_pid < y->host_pid ? -1 : x->host_pid > y->host_pid;
}

/* The driver's PID rp was a process here (charged locally last refresh, or
 * exited since). When that process is gone, or the PID now names another
 * process (a later start) that maps no NVIDIA compute library, the use is
 * its exited owner's: never a host PID to pair with someone else. While
 * /proc cannot be listed nobody is known to have exited: carried, shown H:. */
static void find_gone(struct work *w, const struct attribute_state *st, const struct gtm_snapshot *snap,
		      struct rawpid *rp)
{
	struct pairing key = {.host_pid = rp->pid};
	const struct pairing *was =
		st->n_locals ? bsearch(&key, st->locals, st->n_locals, sizeof key, locals_cmp) : NULL;

	if (!was || rp->start != 0)
		return;
	if (rp->row >= 0) {
		const struct gtm_proc_detail *d = snap->processes[rp->row].detail;
		if (snap->processes[rp->row].start_time == was->local.start || !d || d->n_maps == 0 ||
		    maps_nvidia_compute(d))
			return; /* the same process, or a new one the driver's PID may be */
		rp->row = -1;
	}
	rp->taken = true;
	rp->gone = (int)w->n_locals;
	w->locals = grow_array(w->locals, sizeof *w->locals, &w->cap_locals, w->n_locals);
	w->locals[w->n_locals] = *was;
	w->locals[w->n_locals++].exited = was->exited || !snap->procs_unlisted;
}

/* Keeps the driver's PIDs charged locally now, beside the exited ones still
 * listed, for find_gone in the next refresh. */
static void remember_locals(struct attribute_state *st, struct work *w, const struct gtm_snapshot *snap)
{
	for (size_t i = 0; i < w->n_raw; i++) {
		const struct rawpid *rp = &w->raw[i];
		if (rp->row < 0 || rp->start != 0 || snap->processes[rp->row].owner != GTM_OWNER_LOCAL)
			continue;
		const struct gtm_process *p = &snap->processes[rp->row];
		struct pairing pr = {.host_pid = rp->pid, .local = {p->pid, p->start_time}, .owner = GTM_OWNER_LOCAL};
		str_copy(pr.name, p->name, sizeof pr.name);
		str_copy(pr.user, p->user, sizeof pr.user);
		w->locals = grow_array(w->locals, sizeof *w->locals, &w->cap_locals, w->n_locals);
		w->locals[w->n_locals++] = pr;
	}
	if (w->n_locals > 1)
		qsort(w->locals, w->n_locals, sizeof *w->locals, locals_cmp);
	free(st->locals);
	st->locals = w->locals;
	st->n_locals = w->n_locals;
	st->cap_locals = w->cap_locals;
	w->locals = NULL;
}

static void resolve_local(struct work *w, const struct attribute_state *st, struct gtm_snapshot *snap,
			  enum gtm_mode mode, int n_local)
{
	size_t unresolved = 0;

	for (size_t i = 0; i < w->n_raw; i++) {
		/* Under WSL a PID without a start time (NVML's) is a Windows PID. */
		bool foreign = mode == GTM_MODE_WSL && w->raw[i].start == 0;
		w->raw[i].row = foreign ? -1 : find_local(w, snap, w->raw[i].pid, w->raw[i].start);
		if (!foreign)
			find_gone(w, st, snap, &w->raw[i]);
		unresolved += pairable(&w->raw[i]);
	}
	if (mode == GTM_MODE_CONTAINER && unresolved > 0)
		distrust_coincidences(w, snap, unresolved, n_local);
	for (size_t i = 0; i < w->n_raw; i++)
		if (w->raw[i].row >= 0)
			charge(snap, w->raw[i].row, w, &w->raw[i], GTM_OWNER_LOCAL,
			       w->raw[i].start ? "PID and start time are this process" : "PID is this process");
}

/* ---- pairing (containers) ---- */

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
	charge(snap, row, w, rp, owner, reason);
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
		int row = old->exited || !rp ? -1 : find_local(w, snap, old->local.pid, old->local.start);
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
	return st->n_cands > 0 && bsearch(&k, st->cands, st->n_cands, sizeof k, key_cmp) != NULL;
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
static void remember(struct attribute_state *st, struct work *w, const struct gtm_snapshot *snap)
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
		qsort(st->cands, st->n_cands, sizeof *st->cands, key_cmp);
	free(st->pairs);
	st->pairs = w->pairs;
	st->n_pairs = w->n_pairs;
	st->cap_pairs = w->cap_pairs;
	w->pairs = NULL;
}

/* ---- row order: GPU rows first, by VRAM descending (unavailable last) ---- */

struct rank {
	int row;
	bool has_vram;
	uint64_t vram;
	uint32_t pid;
};

static int rank_cmp(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	if (x->has_vram != y->has_vram)
		return x->has_vram ? -1 : 1;
	if (x->vram != y->vram)
		return x->vram > y->vram ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->row - y->row;
}

static void order_rows(struct attribute_state *st, struct gtm_snapshot *snap)
{
	size_t n = (size_t)snap->n_processes, n_gpu = 0, w = 0;
	struct rank *gpu = xcalloc(n + 1, sizeof *gpu);

	st->reorder = grow_array(st->reorder, sizeof *st->reorder, &st->cap_reorder, n);
	struct gtm_process *out = st->reorder;

	for (size_t i = 0; i < n; i++) {
		const struct gtm_process *p = &snap->processes[i];
		if (p->n_uses == 0)
			continue;
		gtm_u64 v = process_vram_total(p);
		gpu[n_gpu++] = (struct rank){(int)i, gtm_u64_ok(v), v.v, p->pid ? p->pid : p->host_pid};
	}
	qsort(gpu, n_gpu, sizeof *gpu, rank_cmp);
	for (size_t i = 0; i < n_gpu; i++)
		out[w++] = snap->processes[gpu[i].row];
	for (size_t i = 0; i < n; i++)
		if (snap->processes[i].n_uses == 0)
			out[w++] = snap->processes[i];
	if (n > 0)
		memcpy(snap->processes, out, n * sizeof *out);
	snap->n_gpu_processes = (int)n_gpu;
	free(gpu);
}

void attribute_order_rows(struct attribute_state *st, struct gtm_snapshot *snap)
{
	order_rows(st, snap);
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
	resolve_local(&w, st, snap, snap->mode, n_local);
	if (container) {
		collect_candidates(&w, st, snap, n_local);
		keep_pairings(&w, st, snap);
		pin_new(&w, st, snap);
		pair_in_order(&w, snap);
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
		remember(st, &w, snap);
	remember_locals(st, &w, snap);
	order_rows(st, snap);
	work_free(&w);
}
