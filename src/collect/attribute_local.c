/* Owner attribution, the local phase: which of the driver's PIDs are
 * processes of this /proc, which of them only coincide with one, and which
 * were processes here that exited while the driver still lists them. */
#include "collect/attribute_internal.h"

#include <stdlib.h>

#include "core/util.h"

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
void attr_remember_locals(struct attribute_state *st, struct work *w, const struct gtm_snapshot *snap)
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

void attr_resolve_local(struct work *w, const struct attribute_state *st, struct gtm_snapshot *snap,
			enum gtm_mode mode, int n_local)
{
	size_t unresolved = 0;

	for (size_t i = 0; i < w->n_raw; i++) {
		/* Under WSL a PID without a start time (NVML's) is a Windows PID. */
		bool foreign = mode == GTM_MODE_WSL && w->raw[i].start == 0;
		w->raw[i].row = foreign ? -1 : attr_find_local(w, snap, w->raw[i].pid, w->raw[i].start);
		if (!foreign)
			find_gone(w, st, snap, &w->raw[i]);
		unresolved += pairable(&w->raw[i]);
	}
	if (mode == GTM_MODE_CONTAINER && unresolved > 0)
		distrust_coincidences(w, snap, unresolved, n_local);
	for (size_t i = 0; i < w->n_raw; i++)
		if (w->raw[i].row >= 0)
			attr_charge(snap, w->raw[i].row, w, &w->raw[i], GTM_OWNER_LOCAL,
			       w->raw[i].start ? "PID and start time are this process" : "PID is this process");
}
