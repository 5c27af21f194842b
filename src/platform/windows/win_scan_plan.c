/* The Windows scan's plan (win_scan_plan.h): what each listed process gets,
 * decided before any process is opened, since opening one is what costs. */
#include "win_scan_plan.h"

#include <stdlib.h>

#include "core/util.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static bool in_sorted(const uint32_t *v, size_t n, uint32_t pid)
{
	return n && bsearch(&pid, v, n, sizeof pid, cmp_u32) != NULL;
}

bool win_is_priority(const struct proc_scan_opts *o, uint32_t pid)
{
	return o && in_sorted(o->priority_pids, o->n_priority, pid);
}

/* The listed PIDs, sorted (malloc'd). */
static uint32_t *sorted_pids(const struct win_listed *l, size_t n)
{
	uint32_t *v = xmalloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = l[i].pid;
	qsort(v, n, sizeof *v, cmp_u32);
	return v;
}

static bool priority_missing(const struct win_listed *l, size_t n, const struct proc_scan_opts *o)
{
	uint32_t *v = sorted_pids(l, n);
	bool missing = false;
	for (size_t i = 0; i < o->n_priority && !missing; i++)
		missing = !in_sorted(v, n, o->priority_pids[i]);
	free(v);
	return missing;
}

/* only_pid: it and its parent, read in full; nothing else is looked at. */
static void plan_only(const struct win_listed *l, size_t n, uint32_t only, uint8_t *rows)
{
	uint32_t parent = 0;
	for (size_t i = 0; i < n; i++)
		if (l[i].pid == only)
			parent = l[i].ppid;
	for (size_t i = 0; i < n; i++)
		rows[i] = l[i].pid == only || (parent && l[i].pid == parent) ? WIN_ROW_FULL : WIN_ROW_SKIP;
}

bool win_scan_plan(const struct win_listed *l, size_t n, const struct proc_scan_opts *o, uint8_t *rows)
{
	if (o && o->only_pid) {
		plan_only(l, n, o->only_pid, rows);
		return false;
	}
	bool priority_only = o && o->details_priority_only;
	if (priority_only && o->pair_if_missing && priority_missing(l, n, o))
		priority_only = false;
	if (!priority_only) {
		for (size_t i = 0; i < n; i++)
			rows[i] = WIN_ROW_FULL;
		return false;
	}
	/* the priority PIDs' parents (PID 0, the Idle process, is nobody's) */
	uint32_t *parents = xmalloc((n ? n : 1) * sizeof *parents);
	size_t np = 0;
	for (size_t i = 0; i < n; i++)
		if (l[i].ppid && win_is_priority(o, l[i].pid))
			parents[np++] = l[i].ppid;
	qsort(parents, np, sizeof *parents, cmp_u32);
	for (size_t i = 0; i < n; i++)
		rows[i] = win_is_priority(o, l[i].pid)		 ? WIN_ROW_FULL
			  : in_sorted(parents, np, l[i].pid) ? WIN_ROW_BASIC
							     : WIN_ROW_COUNT;
	free(parents);
	return true;
}
