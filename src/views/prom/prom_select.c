/* Which processes get their own series: the GPU rows ranked by measured VRAM
 * (a row with none measured ranks last: among those, a WSL row matched or
 * guessed to a VM context by that context's size), ties by PID, the first N
 * kept; every device a process uses appears once, its uses there merged. */
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

static void merge_uses(struct prom_proc *pp)
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

static int by_rank(const void *a, const void *b)
{
	const struct prom_proc *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->rank_inferred != y->rank_inferred)
		return x->rank_inferred > y->rank_inferred ? -1 : 1;
	int c = strcmp(x->pid, y->pid);
	return c ? c : (x->p < y->p ? -1 : x->p > y->p);
}

void prom_select(const struct gtm_snapshot *s, int max_processes, struct prom_selection *sel)
{
	int n = s->n_gpu_processes < s->n_processes ? s->n_gpu_processes : s->n_processes;
	memset(sel, 0, sizeof *sel);
	sel->procs = xcalloc((size_t)(n > 0 ? n : 1), sizeof *sel->procs);
	for (int i = 0; i < n; i++) {
		struct prom_proc *pp = &sel->procs[sel->n++];
		pp->p = &s->processes[i];
		pp->owner = owner_label(pp->p);
		pp->runtime = runtime_label(pp->p);
		pid_label(pp->p, pp->pid, sizeof pp->pid);
		merge_uses(pp);
	}
	qsort(sel->procs, (size_t)sel->n, sizeof *sel->procs, by_rank);
	sel->kept = sel->n < max_processes ? sel->n : max_processes;
	if (sel->kept < 0)
		sel->kept = 0;
}

void prom_selection_free(struct prom_selection *sel)
{
	for (int i = 0; i < sel->n; i++)
		free(sel->procs[i].uses);
	free(sel->procs);
	memset(sel, 0, sizeof *sel);
}
