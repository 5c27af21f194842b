#include "sources/wddm/wddm_engine_agg.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Process, then adapter, then engine: one pass then sees each process's
 * engines together and each engine's instances next to each other. */
static int cmp_proc_engine(const void *va, const void *vb)
{
	const struct wddm_engine_sample *a = va, *b = vb;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start_time != b->start_time)
		return a->start_time < b->start_time ? -1 : 1;
	if (a->luid != b->luid)
		return a->luid < b->luid ? -1 : 1;
	if (a->phys != b->phys)
		return a->phys < b->phys ? -1 : 1;
	return a->eng < b->eng ? -1 : a->eng > b->eng;
}

static bool same_engine(const struct wddm_engine_sample *a, const struct wddm_engine_sample *b)
{
	return a->luid == b->luid && a->phys == b->phys && a->eng == b->eng;
}

static double clamp100(double v)
{
	return v < 0 ? 0 : v > 100 ? 100 : v;
}

/* Takes one engine's load into a load: its type's busiest, the busiest. */
static void load_add_engine(struct wddm_load *l, const char *type, bool ok, double pct)
{
	struct wddm_type_load *t = NULL;

	for (int i = 0; i < l->n_types && !t; i++)
		if (strcmp(l->types[i].type, type) == 0)
			t = &l->types[i];
	if (!t && l->n_types < WDDM_MAX_TYPES) {
		t = &l->types[l->n_types++];
		str_copy(t->type, type, sizeof t->type);
	}
	if (!ok)
		return;
	if (t && (!t->ok || pct > t->pct)) {
		t->ok = true;
		t->pct = pct;
	}
	if (!l->ok || pct > l->busiest_pct) {
		l->ok = true;
		l->busiest_pct = pct;
		str_copy(l->busiest_type, type, sizeof l->busiest_type);
	}
}

/* Samples [i, j) are one engine (of one process, or of all): their sum. */
static bool engine_sum(const struct wddm_engine_sample *s, size_t i, size_t j, double *sum)
{
	bool ok = false;
	*sum = 0;
	for (size_t k = i; k < j; k++)
		if (s[k].ok) {
			ok = true;
			*sum += s[k].pct;
		}
	*sum = clamp100(*sum);
	return ok;
}

static struct wddm_adapter_load *adapter_of(struct wddm_engine_loads *out, uint64_t luid)
{
	for (size_t i = 0; i < out->n_adapters; i++)
		if (out->adapters[i].luid == luid)
			return &out->adapters[i];
	out->adapters = grow_array(out->adapters, sizeof *out->adapters, &out->cap_adapters, out->n_adapters);
	struct wddm_adapter_load *a = &out->adapters[out->n_adapters++];
	memset(a, 0, sizeof *a);
	a->luid = luid;
	return a;
}

static void per_process(struct wddm_engine_sample *s, size_t n, struct wddm_engine_loads *out)
{
	struct wddm_proc_load *p = NULL;

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && s[j].pid == s[i].pid && s[j].start_time == s[i].start_time && same_engine(&s[i], &s[j]); j++)
			;
		if (!p || p->pid != s[i].pid || p->start_time != s[i].start_time || p->luid != s[i].luid) {
			out->procs = grow_array(out->procs, sizeof *out->procs, &out->cap_procs, out->n_procs);
			p = &out->procs[out->n_procs++];
			memset(p, 0, sizeof *p);
			p->pid = s[i].pid;
			p->start_time = s[i].start_time;
			p->luid = s[i].luid;
		}
		double sum;
		bool ok = engine_sum(s, i, j, &sum);
		load_add_engine(&p->load, s[i].type, ok, sum);
	}
}

static int cmp_engine_idx(const void *va, const void *vb, const struct wddm_engine_sample *s)
{
	const struct wddm_engine_sample *a = &s[*(const size_t *)va], *b = &s[*(const size_t *)vb];
	if (a->luid != b->luid)
		return a->luid < b->luid ? -1 : 1;
	if (a->phys != b->phys)
		return a->phys < b->phys ? -1 : 1;
	return a->eng < b->eng ? -1 : a->eng > b->eng;
}

/* qsort has no context argument in C17: the samples being ordered, for
 * cmp_engine_idx, set for the length of one sort on this thread. */
static _Thread_local const struct wddm_engine_sample *sort_samples;

static int cmp_engine_order(const void *a, const void *b)
{
	return cmp_engine_idx(a, b, sort_samples);
}

/* Per engine over every process: the sum, clamped (Task Manager's rule). */
static void per_adapter(const struct wddm_engine_sample *s, size_t n, struct wddm_engine_loads *out)
{
	out->order = grow_array(out->order, sizeof *out->order, &out->cap_order, n);
	for (size_t i = 0; i < n; i++)
		out->order[i] = i;
	sort_samples = s;
	qsort(out->order, n, sizeof *out->order, cmp_engine_order);
	sort_samples = NULL;
	for (size_t i = 0, j; i < n; i = j) {
		const struct wddm_engine_sample *e = &s[out->order[i]];
		double sum = 0;
		bool ok = false;
		for (j = i; j < n && same_engine(e, &s[out->order[j]]); j++)
			if (s[out->order[j]].ok) {
				ok = true;
				sum += s[out->order[j]].pct;
			}
		load_add_engine(&adapter_of(out, e->luid)->load, e->type, ok, clamp100(sum));
	}
}

void wddm_engine_aggregate(struct wddm_engine_sample *s, size_t n, struct wddm_engine_loads *out)
{
	out->n_adapters = 0;
	out->n_procs = 0;
	if (n == 0)
		return;
	qsort(s, n, sizeof *s, cmp_proc_engine);
	per_process(s, n, out);
	per_adapter(s, n, out);
}

const struct wddm_load *wddm_engine_loads_adapter(const struct wddm_engine_loads *l, uint64_t luid)
{
	for (size_t i = 0; i < l->n_adapters; i++)
		if (l->adapters[i].luid == luid)
			return &l->adapters[i].load;
	return NULL;
}

void wddm_engine_loads_free(struct wddm_engine_loads *l)
{
	free(l->adapters);
	free(l->procs);
	free(l->order);
	memset(l, 0, sizeof *l);
}

const struct wddm_load *wddm_engine_loads_proc(const struct wddm_engine_loads *l, uint32_t pid, uint64_t start_time,
					       uint64_t luid)
{
	size_t lo = 0, hi = l->n_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct wddm_proc_load *p = &l->procs[mid];
		int c = p->pid != pid ? (p->pid < pid ? -1 : 1)
		      : p->start_time != start_time ? (p->start_time < start_time ? -1 : 1)
		      : p->luid != luid ? (p->luid < luid ? -1 : 1) : 0;
		if (c == 0)
			return &p->load;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
