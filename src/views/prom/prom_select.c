/* Which processes get their own series. On each GPU its rows are ranked by
 * measured VRAM there (a row with none measured ranks last: among those, a
 * WSL row matched or guessed to a VM context by that context's size), ties by
 * PID, and the first N are kept; a process kept on any GPU keeps its series
 * on every one. Hysteresis: a process kept in the previous collection ranks
 * as if it held a quarter more (at least 16 MiB more), so one hovering at the
 * cut does not flip between its own series and pid="other" at every
 * collection. An exited owner the driver still lists (owner exited, or a
 * host PID that was paired with a local process before) is never kept: its
 * bytes stay in pid="other" until the driver lets them go, so it never
 * appears as a new series. Every device a process uses appears once, its
 * uses there merged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "identify/ident.h"
#include "explain/explain.h"
#include "views/prom/prom_internal.h"

static bool prov_inferred(enum gtm_prov p)
{
	return p == GTM_MATCHED || p == GTM_GUESSED;
}

/* A measured sum stays measured only when every part is; a sum with an
 * inferred part is inferred (kept out of the measured families). */
static void add_reading(gtm_u64 *sum, gtm_u64 v, bool first)
{
	if (first)
		*sum = v;
	else if (!gtm_u64_ok(v) || !gtm_u64_ok(*sum) || sum->v > UINT64_MAX - v.v)
		*sum = GTM_U64_NA;
	else
		*sum = gtm_u64_of(sum->v + v.v, prov_inferred(v.prov) ? v.prov : sum->prov);
}

static void merge_uses(const struct gtm_snapshot *s, struct prom_proc *pp)
{
	const struct gtm_process *p = pp->p;
	pp->uses = xcalloc((size_t)(p->n_uses ? p->n_uses : 1), sizeof *pp->uses);
	for (int i = 0; i < p->n_uses; i++) {
		const struct gtm_gpu_use *u = &p->uses[i];
		struct prom_use *m = NULL;
		for (int k = 0; k < pp->n_uses && !m; k++)
			if (pp->uses[k].gpu == u->dev_index)
				m = &pp->uses[k];
		bool first = !m;
		if (!m) {
			m = &pp->uses[pp->n_uses++];
			m->gpu = u->dev_index;
			m->dev = prom_device_at(s, u->dev_index);
			m->first = u;
		}
		add_reading(&m->vram, u->vram, first);
		add_reading(&m->spill, u->spill, first);
		add_reading(&m->paged, u->paged, first);
		m->inferred |= prov_inferred(u->vram.prov) || prov_inferred(u->spill.prov);
	}
	for (int k = 0; k < pp->n_uses; k++) {
		const struct prom_use *m = &pp->uses[k];
		if (gtm_u64_ok(m->vram) && m->inferred)
			pp->rank_inferred += m->vram.v;
		else if (gtm_u64_ok(m->vram) && m->vram.prov == GTM_MEASURED)
			pp->rank += m->vram.v + (pp->rank ? 0 : 1);
	}
}

static const char *owner_label(const struct gtm_process *p)
{
	if (p->owner == GTM_OWNER_HOST && str_starts(p->label, "W:"))
		return "windows";
	return gtm_owner_name(p->owner);
}

/* The runtime that explains the process: the explanation's, else the first
 * AI runtime identified, else the first runtime. */
static const char *runtime_label(const struct gtm_process *p)
{
	if (p->explain && p->explain->runtime[0])
		return p->explain->runtime;
	if (!p->ident || !p->ident->n_runtimes)
		return "";
	const struct ident_runtime *ai = ident_find_trait(p->ident, RT_T_AI);
	return ai ? ai->id : p->ident->runtimes[0].id;
}

static void pid_label(const struct gtm_process *p, char *buf, size_t n)
{
	const char *l = p->label;
	if (p->pid && p->owner != GTM_OWNER_EXITED) {
		snprintf(buf, n, "%u", p->pid);
		return;
	}
	while (*l == '*' || *l == '?') /* the owner label says matched or guessed */
		l++;
	str_copy(buf, *l ? l : "unknown", n);
}

#define SLACK_MIN (16ull << 20)

struct prom_memory {
	uint64_t *kept;        /* keys of the processes kept last time, sorted */
	size_t n_kept;
	uint32_t *paired;      /* host PIDs paired with a local process while listed, sorted */
	size_t n_paired;
};

struct prom_memory *prom_memory_new(void)
{
	return xcalloc(1, sizeof(struct prom_memory));
}

void prom_memory_free(struct prom_memory *m)
{
	if (!m)
		return;
	free(m->kept);
	free(m->paired);
	free(m);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* bsearch wants a base even for no elements. */
static bool has_key(const uint64_t *v, size_t n, uint64_t key)
{
	return n && bsearch(&key, v, n, sizeof *v, u64_cmp);
}

static bool has_pid(const uint32_t *v, size_t n, uint32_t pid)
{
	return n && bsearch(&pid, v, n, sizeof *v, u32_cmp);
}

/* FNV-1a of the PID label and the start time: a process across collections. */
static uint64_t proc_key(const struct prom_proc *pp)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *c = pp->pid; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	return (h ^ pp->p->start_time) * 1099511628211ull;
}

static uint32_t host_pid_of(const struct gtm_process *p)
{
	if (p->host_pid)
		return p->host_pid;
	return p->n_uses ? p->uses[0].source_pid : 0;
}

static bool paired_owner(enum gtm_owner o)
{
	return o == GTM_OWNER_MATCHED || o == GTM_OWNER_GUESSED || o == GTM_OWNER_EXITED;
}

/* Never kept: an exited owner, or a host row whose PID was paired before. */
static bool folded_always(const struct prom_proc *pp, const struct prom_memory *m)
{
	uint32_t hp = host_pid_of(pp->p);
	if (pp->p->owner == GTM_OWNER_EXITED)
		return true;
	return m && pp->p->owner == GTM_OWNER_HOST && !pp->p->windows_row && hp && has_pid(m->paired, m->n_paired, hp);
}

/* One process's place in one GPU's ranking. */
struct slot {
	int proc;
	int tier;        /* 2 measured VRAM, 1 matched/guessed (WSL), 0 none */
	uint64_t score;  /* VRAM there, plus the incumbent's slack */
	const char *pid; /* ties */
};

static int by_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	if (x->tier != y->tier)
		return x->tier > y->tier ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return strcmp(x->pid, y->pid);
}

static void keep_per_gpu(const struct gtm_snapshot *s, struct prom_selection *sel, int max, struct prom_memory *m)
{
	struct slot *slots = xcalloc((size_t)(sel->n ? sel->n : 1), sizeof *slots);
	for (int d = 0; d < s->n_devices; d++) {
		int n = 0;
		for (int i = 0; i < sel->n; i++) {
			const struct prom_proc *pp = &sel->procs[i];
			if (folded_always(pp, m))
				continue;
			for (int k = 0; k < pp->n_uses; k++) {
				const struct prom_use *u = &pp->uses[k];
				if (u->gpu != s->devices[d].index)
					continue;
				struct slot *sl = &slots[n++];
				sl->proc = i;
				sl->pid = pp->pid;
				sl->tier = !gtm_u64_ok(u->vram) ? 0 : u->inferred ? 1 : u->vram.prov == GTM_MEASURED ? 2 : 0;
				sl->score = sl->tier ? u->vram.v : 0;
				if (m && has_key(m->kept, m->n_kept, pp->key)) {
					uint64_t slack = sl->score / 4 > SLACK_MIN ? sl->score / 4 : SLACK_MIN;
					sl->score = sl->score > UINT64_MAX - slack ? UINT64_MAX : sl->score + slack;
				}
				break;
			}
		}
		qsort(slots, (size_t)n, sizeof *slots, by_slot);
		for (int r = 0; r < n && r < max; r++)
			sel->procs[slots[r].proc].kept = true;
	}
	free(slots);
}

static int by_rank(const void *a, const void *b)
{
	const struct prom_proc *x = a, *y = b;
	if (x->kept != y->kept)
		return x->kept ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->rank_inferred != y->rank_inferred)
		return x->rank_inferred > y->rank_inferred ? -1 : 1;
	int c = strcmp(x->pid, y->pid);
	return c ? c : (x->p < y->p ? -1 : x->p > y->p);
}

/* The container of a local process, by PID and start time. */
static const struct prom_container *container_of(const struct prom_opts *o, const struct gtm_process *p)
{
	if (!o->containers || !p->pid || p->owner == GTM_OWNER_EXITED)
		return NULL;
	int lo = 0, hi = o->n_containers;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (o->containers[mid].pid < p->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->n_containers && o->containers[lo].pid == p->pid && o->containers[lo].start_time == p->start_time)
		return &o->containers[lo];
	return NULL;
}

/* What the next collection needs: the kept processes, and the host PIDs
 * paired now or before that the driver still lists. */
static void remember(const struct prom_selection *sel, struct prom_memory *m)
{
	uint64_t *kept = xcalloc((size_t)(sel->kept ? sel->kept : 1), sizeof *kept);
	uint32_t *paired = xcalloc((size_t)(sel->n ? sel->n : 1), sizeof *paired);
	size_t n_paired = 0;
	for (int i = 0; i < sel->kept; i++)
		kept[i] = sel->procs[i].key;
	qsort(kept, (size_t)sel->kept, sizeof *kept, u64_cmp);
	for (int i = 0; i < sel->n; i++) {
		const struct gtm_process *p = sel->procs[i].p;
		uint32_t hp = host_pid_of(p);
		if (hp && (paired_owner(p->owner) ||
			   (p->owner == GTM_OWNER_HOST && has_pid(m->paired, m->n_paired, hp))))
			paired[n_paired++] = hp;
	}
	qsort(paired, n_paired, sizeof *paired, u32_cmp);
	free(m->kept);
	free(m->paired);
	m->kept = kept;
	m->n_kept = (size_t)sel->kept;
	m->paired = paired;
	m->n_paired = n_paired;
}

void prom_select(const struct gtm_snapshot *s, const struct prom_opts *opts, struct prom_selection *sel)
{
	int n = s->n_gpu_processes < s->n_processes ? s->n_gpu_processes : s->n_processes;
	memset(sel, 0, sizeof *sel);
	sel->s = s;
	sel->procs = xcalloc((size_t)(n > 0 ? n : 1), sizeof *sel->procs);
	for (int i = 0; i < n; i++) {
		struct prom_proc *pp = &sel->procs[sel->n++];
		pp->p = &s->processes[i];
		pp->owner = owner_label(pp->p);
		pp->runtime = runtime_label(pp->p);
		pid_label(pp->p, pp->pid, sizeof pp->pid);
		pp->key = proc_key(pp);
		pp->container = container_of(opts, pp->p);
		merge_uses(s, pp);
	}
	if (opts->max_processes > 0)
		keep_per_gpu(s, sel, opts->max_processes, opts->memory);
	qsort(sel->procs, (size_t)sel->n, sizeof *sel->procs, by_rank);
	while (sel->kept < sel->n && sel->procs[sel->kept].kept)
		sel->kept++;
	if (opts->memory)
		remember(sel, opts->memory);
}

void prom_selection_free(struct prom_selection *sel)
{
	for (int i = 0; i < sel->n; i++)
		free(sel->procs[i].uses);
	free(sel->procs);
	memset(sel, 0, sizeof *sel);
}
