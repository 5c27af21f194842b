/* One host-stream line from one PDH collect (docs/wsl.md): the header, an A
 * record per adapter, vmwp.exe's GPU Process Memory instances as V records
 * in PDH order (newest first), and every other process's memory per adapter
 * as a P record with its engines. A value whose CStatus is not valid is
 * written '-', never 0. */
#include "host_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Bounds of the reader (wsl_proto.h): past them a line would be refused,
 * so the helper stops short and says so in the header. */
#define LINE_ROOM (WSL_LINE_MAX - 1024)
#define MAX_VMWP 16

struct hs_plan {
	uint64_t luids[WSL_MAX_ADAPTERS];
	int n_luids;
	bool too_many_adapters, too_many_contexts;
};

static int luid_index(const struct hs_plan *p, uint64_t luid)
{
	for (int i = 0; i < p->n_luids; i++)
		if (p->luids[i] == luid)
			return i;
	return -1;
}

static void plan_luid(struct hs_plan *p, uint64_t luid)
{
	if (luid_index(p, luid) >= 0)
		return;
	if (p->n_luids == WSL_MAX_ADAPTERS)
		p->too_many_adapters = true;
	else
		p->luids[p->n_luids++] = luid;
}

static gtm_u64 row_bytes(const struct wddm_mem_row *r, enum wddm_pm_counter k)
{
	return wddm_value_bytes(&r->v[k]);
}

static bool is_vmwp(const struct host_stream *hs, uint32_t pid)
{
	const char *name = hs_names_of(&hs->names, pid);
	return pid && name && _stricmp(name, HS_VMWP_IMAGE) == 0;
}

/* The vmwp.exe whose contexts become V records: the one chosen before while
 * it still holds GPU memory (a new PID resets the Linux side's matching),
 * else the one holding the most (WSL's VM with work on the GPU, rather than
 * an idle Sandbox); 0 when none holds any. */
static uint32_t choose_vmwp(const struct host_stream *hs, const struct wddm_mem_rows *rows)
{
	uint32_t pid[MAX_VMWP];
	uint64_t bytes[MAX_VMWP];
	int n = 0, best = -1;

	for (size_t i = 0; i < rows->n; i++) {
		const struct wddm_mem_row *r = &rows->v[i];
		if (!is_vmwp(hs, r->pid))
			continue;
		if (r->pid == hs->vmwp)
			return hs->vmwp;
		int k = 0;
		while (k < n && pid[k] != r->pid)
			k++;
		if (k == n && n == MAX_VMWP)
			continue;
		if (k == n)
			pid[n] = r->pid, bytes[n++] = 0;
		gtm_u64 l = row_bytes(r, WDDM_PM_LOCAL), nl = row_bytes(r, WDDM_PM_NONLOCAL);
		bytes[k] += (gtm_u64_ok(l) ? l.v : 0) + (gtm_u64_ok(nl) ? nl.v : 0);
	}
	for (int k = 0; k < n; k++)
		if (best < 0 || bytes[k] > bytes[best] || (bytes[k] == bytes[best] && pid[k] < pid[best]))
			best = k;
	return best < 0 ? 0 : pid[best];
}

/* The adapters of the line: those GPU Adapter Memory lists, then any other
 * LUID a process's memory names, at most the reader's four. */
static void plan_line(struct host_stream *hs, const struct wddm_mem_rows *rows, struct hs_plan *p)
{
	static const enum pdh_counter_id sets[] = {PDH_ADAPTER_DEDICATED, PDH_ADAPTER_SHARED, PDH_ADAPTER_COMMITTED};
	int per_adapter[WSL_MAX_ADAPTERS] = {0};

	memset(p, 0, sizeof *p);
	for (size_t k = 0; k < ARRAY_LEN(sets); k++) {
		const struct wddm_items *c = pdh_reader_items(hs->src.pdh, sets[k]);
		for (size_t i = 0; i < c->n; i++)
			plan_luid(p, c->v[i].id.luid);
	}
	for (size_t i = 0; i < rows->n; i++)
		if (rows->v[i].pid)
			plan_luid(p, rows->v[i].luid);
	for (size_t i = 0; i < rows->n; i++) {
		int a = rows->v[i].pid == hs->vmwp && hs->vmwp ? luid_index(p, rows->v[i].luid) : -1;
		if (a >= 0 && ++per_adapter[a] > WSL_MAX_CTX)
			p->too_many_contexts = true;
	}
}

static void write_header(struct host_stream *hs, const struct hs_plan *p)
{
	char why[256] = "";
	const char *missing = pdh_reader_missing(hs->src.pdh);

	if (missing[0])
		snprintf(why, sizeof why, "counters missing: %s", missing);
	if (p->too_many_adapters)
		snprintf(why + strlen(why), sizeof why - strlen(why), "%smore than %d adapters: the rest left out",
			 why[0] ? "; " : "", WSL_MAX_ADAPTERS);
	if (p->too_many_contexts)
		snprintf(why + strlen(why), sizeof why - strlen(why), "%smore than %d vmwp.exe contexts: the oldest left out",
			 why[0] ? "; " : "", WSL_MAX_CTX);
	size_t listed, cut = pdh_reader_cut(hs->src.pdh, &listed);
	if (cut)
		snprintf(why + strlen(why), sizeof why - strlen(why), "%s%llu of %llu PDH instances left out (the smallest)",
			 why[0] ? "; " : "", (unsigned long long)cut, (unsigned long long)listed);
	wsl_line_header(&hs->line, hs->seq, hs->vmwp, hs_names_count(&hs->names, HS_VMWP_IMAGE),
			why[0] ? WSL_HELPER_PARTIAL : WSL_HELPER_OK, why);
}

static void write_adapters(struct host_stream *hs, const struct hs_plan *p)
{
	const struct pdh_reader *r = hs->src.pdh;

	for (int i = 0; i < p->n_luids; i++)
		wsl_line_adapter(&hs->line, p->luids[i],
				 wddm_items_sum_luid(pdh_reader_items(r, PDH_ADAPTER_DEDICATED), p->luids[i]),
				 wddm_items_sum_luid(pdh_reader_items(r, PDH_ADAPTER_SHARED), p->luids[i]),
				 wddm_items_sum_luid(pdh_reader_items(r, PDH_ADAPTER_COMMITTED), p->luids[i]));
}

static void write_vm(struct host_stream *hs, const struct hs_plan *p, const struct wddm_mem_rows *rows)
{
	int per_adapter[WSL_MAX_ADAPTERS] = {0};

	for (size_t i = 0; hs->vmwp && i < rows->n; i++) {
		const struct wddm_mem_row *r = &rows->v[i];
		int a = r->pid == hs->vmwp ? luid_index(p, r->luid) : -1;
		if (a < 0 || ++per_adapter[a] > WSL_MAX_CTX)
			continue;
		wsl_line_vm(&hs->line, r->luid, row_bytes(r, WDDM_PM_LOCAL), row_bytes(r, WDDM_PM_NONLOCAL),
			    row_bytes(r, WDDM_PM_COMMITTED));
	}
}

static void sum_into(gtm_u64 *acc, gtm_u64 x)
{
	*acc = gtm_u64_ok(*acc) && gtm_u64_ok(x) ? gtm_u64_of(acc->v + x.v, GTM_MEASURED) : GTM_U64_NA;
}

static int cmp_key(const void *va, const void *vb)
{
	const struct hs_group *a = va, *b = vb;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->luid > b->luid) - (a->luid < b->luid);
}

/* Largest VRAM first (the reader keeps the first WSL_HOST_MAX_PROCS), N/A last. */
static int cmp_local(const void *va, const void *vb)
{
	const struct hs_group *a = va, *b = vb;
	bool ka = gtm_u64_ok(a->local), kb = gtm_u64_ok(b->local);
	if (ka != kb)
		return ka ? -1 : 1;
	if (ka && a->local.v != b->local.v)
		return a->local.v > b->local.v ? -1 : 1;
	return cmp_key(va, vb);
}

/* The other processes' rows, one group per (process, adapter). */
static size_t group_rows(struct host_stream *hs, const struct hs_plan *p, const struct wddm_mem_rows *rows)
{
	size_t n = 0, w = 0;

	for (size_t i = 0; i < rows->n; i++) {
		const struct wddm_mem_row *r = &rows->v[i];
		if (!r->pid || r->pid == hs->vmwp || luid_index(p, r->luid) < 0)
			continue; /* pid_0 is no process; vmwp's are V records */
		hs->groups = grow_array(hs->groups, sizeof *hs->groups, &hs->cap_groups, n);
		hs->groups[n++] = (struct hs_group){r->pid, r->luid, row_bytes(r, WDDM_PM_LOCAL),
						    row_bytes(r, WDDM_PM_NONLOCAL), row_bytes(r, WDDM_PM_COMMITTED)};
	}
	qsort(hs->groups, n, sizeof *hs->groups, cmp_key);
	for (size_t i = 0; i < n; i++) {
		struct hs_group *g = &hs->groups[i];
		if (w && !cmp_key(&hs->groups[w - 1], g)) {
			sum_into(&hs->groups[w - 1].local, g->local);
			sum_into(&hs->groups[w - 1].nonlocal, g->nonlocal);
			sum_into(&hs->groups[w - 1].committed, g->committed);
		} else {
			hs->groups[w++] = *g;
		}
	}
	qsort(hs->groups, w, sizeof *hs->groups, cmp_local);
	return w;
}

static int cmp_engine(const void *va, const void *vb)
{
	const struct wsl_host_engine *a = va, *b = vb;
	return (a->pct < b->pct) - (a->pct > b->pct);
}

/* A process's engines on one adapter, busiest type first; none before its
 * second sample (the protocol has no N/A percentage: left out). */
static int engines_of(struct host_stream *hs, uint32_t pid, uint64_t luid, struct wsl_host_engine *out)
{
	const struct wddm_load *l =
		wddm_engine_loads_proc(&hs->src.loads, pid, wddm_pid_start_time(&hs->src, pid), luid);
	int n = 0;

	for (int i = 0; l && i < l->n_types; i++)
		if (l->types[i].ok) {
			str_copy(out[n].type, l->types[i].type, sizeof out[n].type);
			out[n++].pct = l->types[i].pct;
		}
	qsort(out, (size_t)n, sizeof *out, cmp_engine);
	return n;
}

static void write_procs(struct host_stream *hs, const struct hs_plan *p, const struct wddm_mem_rows *rows)
{
	size_t n = group_rows(hs, p, rows);

	for (size_t i = 0; i < n && hs->line.len < LINE_ROOM; i++) {
		const struct hs_group *g = &hs->groups[i];
		struct wsl_host_engine eng[WDDM_MAX_TYPES];
		int n_eng = engines_of(hs, g->pid, g->luid, eng);
		wsl_line_proc(&hs->line, g->pid, hs_names_of(&hs->names, g->pid), g->luid, g->local, g->nonlocal,
			      g->committed, eng, n_eng);
	}
}

void host_stream_sample(struct host_stream *hs)
{
	char why[200];
	struct hs_plan plan;

	hs->seq++;
	hs_names_read(&hs->names);
	if (hs->src.pdh)
		wddm_mark_collect(&hs->src);
	if (!hs->src.pdh || pdh_reader_collect(hs->src.pdh, why, sizeof why) != 0) {
		/* still a line: gputaskman sees the helper alive and says why */
		wsl_line_header(&hs->line, hs->seq, 0, hs_names_count(&hs->names, HS_VMWP_IMAGE), WSL_HELPER_ERROR,
				hs->src.pdh ? why : hs->open_why);
		wsl_line_end(&hs->line);
		return;
	}
	wddm_engines_update(&hs->src);
	const struct wddm_mem_rows *rows = pdh_reader_process_memory(hs->src.pdh);
	hs->vmwp = choose_vmwp(hs, rows);
	plan_line(hs, rows, &plan);
	write_header(hs, &plan);
	write_adapters(hs, &plan);
	write_vm(hs, &plan, rows);
	write_procs(hs, &plan, rows);
	wsl_line_end(&hs->line);
}
