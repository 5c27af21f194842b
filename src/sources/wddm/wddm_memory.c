#include "sources/wddm/wddm_memory.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

const char *const wddm_pm_counter_name[WDDM_PM_N] = {
	[WDDM_PM_LOCAL] = "Local Usage",
	[WDDM_PM_NONLOCAL] = "Non Local Usage",
	[WDDM_PM_COMMITTED] = "Total Committed",
	[WDDM_PM_DEDICATED] = "Dedicated Usage",
	[WDDM_PM_SHARED] = "Shared Usage",
};

static int cmp_row_key(const struct wddm_mem_row *a, const struct wddm_mem_row *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->luid != b->luid)
		return a->luid < b->luid ? -1 : 1;
	if (a->phys != b->phys)
		return a->phys < b->phys ? -1 : 1;
	return a->dup < b->dup ? -1 : a->dup > b->dup;
}

static _Thread_local const struct wddm_mem_row *sort_rows;

/* Rows of one key stay in PDH order (by index): the m-th repeat of a name
 * in one counter pairs with the m-th in the others. */
static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = cmp_row_key(&sort_rows[x], &sort_rows[y]);
	return c ? c : (x > y) - (x < y);
}

static void build_index(struct wddm_mem_rows *r)
{
	r->index = grow_array(r->index, sizeof *r->index, &r->cap_index, r->n);
	for (size_t i = 0; i < r->n; i++)
		r->index[i] = i;
	sort_rows = r->v;
	qsort(r->index, r->n, sizeof *r->index, cmp_index);
	sort_rows = NULL;
}

/* The first row of key among the first n_indexed rows (sorted index) that
 * counter k has not filled yet, or NULL. A vmwp.exe lists one instance per
 * guest process under one repeated name (platforms.md 2.4): its repeats pair
 * up in PDH order, the same index of each counter's array. */
static struct wddm_mem_row *find_row(struct wddm_mem_rows *r, size_t n_indexed, const struct wddm_mem_row *key, int k)
{
	size_t lo = 0, hi = n_indexed;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_row_key(&r->v[r->index[mid]], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n_indexed && !cmp_row_key(&r->v[r->index[lo]], key); lo++)
		if (!r->v[r->index[lo]].v[k].listed)
			return &r->v[r->index[lo]];
	return NULL;
}

static void join_counter(struct wddm_mem_rows *r, const struct wddm_items *c, int k)
{
	size_t n_indexed = r->n;

	build_index(r);
	for (size_t i = 0; i < c->n; i++) {
		const struct wddm_item *it = &c->v[i];
		if (!it->id.has_pid || it->id.has_eng)
			continue;
		struct wddm_mem_row key = {.pid = it->id.pid, .luid = it->id.luid, .phys = it->id.phys, .dup = it->id.dup};
		struct wddm_mem_row *row = find_row(r, n_indexed, &key, k);
		if (!row) {
			r->v = grow_array(r->v, sizeof *r->v, &r->cap, r->n);
			row = &r->v[r->n++];
			*row = key;
		}
		row->v[k] = (struct wddm_value){true, it->cstatus, it->value};
	}
}

void wddm_mem_rows_join(const struct wddm_items c[WDDM_PM_N], struct wddm_mem_rows *out)
{
	out->n = 0;
	for (int k = 0; k < WDDM_PM_N; k++)
		if (c[k].added)
			join_counter(out, &c[k], k);
}

void wddm_mem_rows_free(struct wddm_mem_rows *r)
{
	free(r->v);
	free(r->index);
	memset(r, 0, sizeof *r);
}

gtm_u64 wddm_value_bytes(const struct wddm_value *v)
{
	return v->listed && wddm_cstatus_valid(v->cstatus) ? gtm_u64_of(v->v, GTM_MEASURED) : GTM_U64_NA;
}

void wddm_mem_use_of(const struct wddm_mem_row *r, struct wddm_mem_use *out)
{
	const struct wddm_value *local = &r->v[WDDM_PM_LOCAL], *nonlocal = &r->v[WDDM_PM_NONLOCAL];

	memset(out, 0, sizeof *out);
	out->vram_fallback = !local->listed;
	out->spill_fallback = !nonlocal->listed;
	out->vram = wddm_value_bytes(out->vram_fallback ? &r->v[WDDM_PM_DEDICATED] : local);
	out->spill = wddm_value_bytes(out->spill_fallback ? &r->v[WDDM_PM_SHARED] : nonlocal);
	/* paged is defined by Local and Non Local only: Dedicated/Shared count
	 * shared allocations, and their difference from Committed means nothing */
	gtm_u64 committed = wddm_value_bytes(&r->v[WDDM_PM_COMMITTED]);
	gtm_u64 l = wddm_value_bytes(local), nl = wddm_value_bytes(nonlocal);
	out->paged = GTM_U64_NA;
	if (gtm_u64_ok(committed) && gtm_u64_ok(l) && gtm_u64_ok(nl)) {
		uint64_t resident = l.v + nl.v;
		out->paged = gtm_u64_of(committed.v > resident ? committed.v - resident : 0, GTM_ESTIMATED);
	}
}

static void add_u64(gtm_u64 *acc, gtm_u64 x)
{
	if (!gtm_u64_ok(*acc) || !gtm_u64_ok(x))
		*acc = GTM_U64_NA;
	else
		acc->v += x.v;
}

void wddm_mem_use_add(struct wddm_mem_use *acc, const struct wddm_mem_use *x)
{
	add_u64(&acc->vram, x->vram);
	add_u64(&acc->spill, x->spill);
	add_u64(&acc->paged, x->paged);
	acc->vram_fallback |= x->vram_fallback;
	acc->spill_fallback |= x->spill_fallback;
}
