/* WSL2's rows (wsl_rows.h). A matched size is the context's measured bytes
 * with the match's provenance (MATCHED/GUESSED): it sorts and feeds the
 * breakdown like a measured one, and views never add it to the VM row, which
 * already holds it (gtm_process.wsl_vm_row). */
#include "collect/wsl_rows.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

/* Engine types (PDH engtype_ names, platforms.md 1.1) onto the use's load fields. */
enum eng_field { ENG_GFX, ENG_SM, ENG_COPY, ENG_DEC, ENG_ENC, ENG_VIDEO };
static const struct {
	const char *prefix;
	enum eng_field field;
} eng_types[] = {
	{"3D", ENG_GFX}, {"Graphics", ENG_GFX}, {"High Priority 3D", ENG_GFX}, {"Compute", ENG_SM}, {"Cuda", ENG_SM},
	{"High Priority Compute", ENG_SM}, {"Copy", ENG_COPY}, {"VideoDecode", ENG_DEC}, {"Video Decode", ENG_DEC},
	{"VideoEncode", ENG_ENC}, {"Video Encode", ENG_ENC}, {"Video Codec", ENG_VIDEO},
};

static gtm_f64 *eng_slot(struct gtm_gpu_use *u, enum eng_field f)
{
	gtm_f64 *const slots[] = {&u->gfx_pct, &u->sm_pct, &u->copy_pct, &u->dec_pct, &u->enc_pct, &u->video_pct};
	return slots[f];
}

/* A process's load per kind: the busiest engine of the kind (platforms.md 1.3);
 * its GPU load, the busiest engine of all, as Task Manager shows it and as
 * every other row's gpu_pct is. */
static void set_engines(struct gtm_gpu_use *u, const struct wsl_host_proc *p)
{
	for (int i = 0; i < p->n_eng; i++) {
		if (!gtm_f64_ok(u->busy_pct) || u->busy_pct.v < p->eng[i].pct)
			u->busy_pct = gtm_f64_of(p->eng[i].pct, GTM_MEASURED);
		for (size_t k = 0; k < ARRAY_LEN(eng_types); k++) {
			if (!str_starts(p->eng[i].type, eng_types[k].prefix))
				continue;
			gtm_f64 *s = eng_slot(u, eng_types[k].field);
			if (!gtm_f64_ok(*s) || s->v < p->eng[i].pct)
				*s = gtm_f64_of(p->eng[i].pct, GTM_MEASURED);
			break;
		}
	}
}

/* a + b, N/A when either is or the sum would wrap (a wrapped sum would read
 * as a small measured number). */
static gtm_u64 sum_or_na(gtm_u64 a, gtm_u64 b)
{
	if (!gtm_u64_ok(a) || !gtm_u64_ok(b) || a.v > UINT64_MAX - b.v)
		return GTM_U64_NA;
	return gtm_u64_of(a.v + b.v, a.prov);
}

/* Paged estimate = committed − local − non-local, clamped (platforms.md 1.3). */
static gtm_u64 paged_of(gtm_u64 committed, gtm_u64 local, gtm_u64 nonlocal)
{
	gtm_u64 held = sum_or_na(local, nonlocal);
	if (!gtm_u64_ok(committed) || !gtm_u64_ok(held))
		return GTM_U64_NA;
	return gtm_u64_of(committed.v > held.v ? committed.v - held.v : 0, GTM_ESTIMATED);
}

/* A context's Total Committed: unavailable ('-') stays N/A, never 0. */
static gtm_u64 committed_of(const struct wsl_ctx *c, enum gtm_prov prov)
{
	return c->committed_na ? GTM_U64_NA : gtm_u64_of(c->committed, prov);
}

static struct gtm_process *windows_row(struct gtm_snapshot *snap, uint32_t pid, const char *name, const char *why)
{
	struct gtm_process *p = snapshot_add_process(snap);
	p->owner = GTM_OWNER_HOST;
	p->host_pid = pid;
	p->windows_row = true;
	snprintf(p->label, sizeof p->label, "W:%u", pid);
	str_copy(p->name, name, sizeof p->name);
	str_copy(p->owner_reason, why, sizeof p->owner_reason);
	return p;
}

void wsl_add_vm_row(struct gtm_snapshot *snap, const struct wsl_host_sample *s, int a, int dev, int n_here,
		    int n_foreign)
{
	const struct wsl_adapter_ctxs *vm = &s->adapters[a].vm;
	gtm_u64 local = gtm_u64_of(0, GTM_MEASURED), nonlocal = local, committed = local;
	char why[96];

	for (int i = 0; i < vm->n; i++) { /* any context's N/A makes its sum N/A */
		local = sum_or_na(local, gtm_u64_of(vm->ctx[i].local, GTM_MEASURED));
		nonlocal = sum_or_na(nonlocal, gtm_u64_of(vm->ctx[i].nonlocal, GTM_MEASURED));
		committed = sum_or_na(committed, committed_of(&vm->ctx[i], GTM_MEASURED));
	}
	snprintf(why, sizeof why, "the WSL VM: %d contexts, %d of this distro, %d foreign", vm->n, n_here, n_foreign);
	struct gtm_process *p = windows_row(snap, s->vmwp_pid, s->n_vms > 1 ? "VM worker" : "vmwp.exe", why);
	p->wsl_vm_row = true;
	struct gtm_gpu_use *u = process_add_use(p);
	u->dev_index = dev;
	u->source_pid = s->vmwp_pid;
	u->vram = local;
	u->spill = nonlocal;
	u->paged = paged_of(committed, u->vram, u->spill);
}

void wsl_add_windows_rows(struct gtm_snapshot *snap, const struct wsl_host_sample *s, const int *dev)
{
	for (int i = 0; i < s->n_procs; i++) {
		const struct wsl_host_proc *w = &s->procs[i];
		if (w->adapter < 0 || dev[w->adapter] < 0 || w->pid == s->vmwp_pid)
			continue;
		struct gtm_process *p = windows_row(snap, w->pid, w->name, "a Windows process (host counters): never looked up here");
		struct gtm_gpu_use *u = process_add_use(p);
		u->dev_index = dev[w->adapter];
		u->source_pid = w->pid;
		u->vram = w->local;
		u->spill = w->nonlocal;
		u->paged = paged_of(w->committed, w->local, w->nonlocal);
		set_engines(u, w);
	}
}

static struct gtm_process *local_row(struct gtm_snapshot *snap, uint32_t pid, uint64_t start)
{
	for (int i = 0; i < snap->n_processes; i++) {
		struct gtm_process *p = &snap->processes[i];
		if (p->pid == pid && p->start_time == start && !p->windows_row && p->owner != GTM_OWNER_EXITED)
			return p;
	}
	return NULL;
}

static void size_use(struct gtm_gpu_use *u, const struct wsl_row *r, int dev)
{
	enum gtm_prov prov = r->matched ? GTM_MATCHED : GTM_GUESSED;
	u->dev_index = dev;
	u->vram = gtm_u64_of(r->v.local, prov);
	u->spill = gtm_u64_of(r->v.nonlocal, prov);
	u->paged = paged_of(committed_of(&r->v, prov), u->vram, u->spill);
}

static void matched_row(struct gtm_snapshot *snap, const struct wsl_row *r, int dev)
{
	struct gtm_process *p = local_row(snap, r->pid, r->start);
	if (!p)
		return; /* the scan missed it (exited between the two reads) */
	p->owner = r->matched ? GTM_OWNER_MATCHED : GTM_OWNER_GUESSED;
	snprintf(p->label, sizeof p->label, "%c%u", r->matched ? '*' : '?', r->pid);
	str_copy(p->owner_reason,
		 r->matched ? "vmwp.exe context matched: one explanation fits (docs/wsl.md)"
			    : "vmwp.exe context guessed: several explanations fit (docs/wsl.md)",
		 sizeof p->owner_reason);
	p->vram_inferred_by = WSL_INFERRED_BY;
	size_use(process_add_use(p), r, dev);
}

static void exited_row(struct gtm_snapshot *snap, const struct wsl_row *r, int dev)
{
	struct gtm_process *p = snapshot_add_process(snap);
	p->owner = GTM_OWNER_EXITED;
	p->exited_pid = r->pid;
	p->exited_pairing = r->matched ? GTM_OWNER_MATCHED : GTM_OWNER_GUESSED;
	p->start_time = r->start;
	str_copy(p->name, r->comm, sizeof p->name);
	snprintf(p->label, sizeof p->label, "%cx%u", r->matched ? '*' : '?', r->pid);
	str_copy(p->owner_reason, "exited: its vmwp.exe context is still listed by the host", sizeof p->owner_reason);
	p->vram_inferred_by = WSL_INFERRED_BY;
	size_use(process_add_use(p), r, dev);
}

static void na_use(struct gtm_process *p, int dev, const char *why)
{
	struct gtm_gpu_use *u = process_add_use(p);
	u->dev_index = dev;
	str_copy(u->na_reason, why, sizeof u->na_reason);
	if (p->owner == GTM_OWNER_NONE) {
		p->owner = GTM_OWNER_LOCAL;
		snprintf(p->label, sizeof p->label, "%u", p->pid);
	}
}

int wsl_first_nvidia(const struct gtm_snapshot *snap)
{
	for (int d = 0; d < snap->n_devices; d++)
		if (snap->devices[d].vendor == GTM_VENDOR_NVIDIA)
			return snap->devices[d].index;
	return snap->n_devices ? snap->devices[0].index : -1;
}

/* A pending holder has no adapter: it is shown on the first paired device,
 * else where holders go without host numbers (wsl_first_nvidia). */
static int pending_dev(const struct gtm_snapshot *snap, const int *dev, int n_adapters)
{
	for (int a = 0; a < n_adapters && a < WSL_MAX_ADAPTERS; a++)
		if (dev[a] >= 0)
			return dev[a];
	return wsl_first_nvidia(snap);
}

void wsl_apply_rows(struct gtm_snapshot *snap, const struct wsl_result *r, const int *dev, int n_adapters)
{
	int first_dev = pending_dev(snap, dev, n_adapters);

	for (int i = 0; i < r->n_rows; i++) {
		const struct wsl_row *w = &r->rows[i];
		int d = w->adapter >= 0 ? dev[w->adapter] : first_dev;
		if (d < 0)
			continue; /* an unmatched adapter: its contexts are in no device's rows */
		if (w->owner == WSL_OWNER_PROC)
			matched_row(snap, w, d);
		else if (w->owner == WSL_OWNER_EXITED)
			exited_row(snap, w, d);
		else if (w->owner == WSL_OWNER_PENDING) {
			struct gtm_process *p = local_row(snap, w->pid, w->start);
			if (p && p->n_uses == 0)
				na_use(p, d, "holds /dev/dxg; no host context yet");
		}
	}
}

void wsl_add_holders_na(struct gtm_snapshot *snap, const struct wsl_proc *h, int n, int dev, const char *why)
{
	for (int i = 0; i < n; i++) {
		struct gtm_process *p = local_row(snap, h[i].pid, h[i].start);
		if (p && p->n_uses == 0)
			na_use(p, dev, why);
	}
}
