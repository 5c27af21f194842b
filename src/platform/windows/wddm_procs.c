/* The WDDM source's per-process readings: one raw use per (process,
 * adapter) that GPU Process Memory or GPU Engine lists, keyed by PID with
 * the process's start time, so identify joins it to the process list and a
 * reused PID never inherits the old process's engine counters. */
#include "wddm_source.h"

#include <windows.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "sources/wddm/wddm_use.h"

static int cmp_start(const void *a, const void *b)
{
	uint32_t x = ((const struct wddm_pid_start *)a)->pid, y = ((const struct wddm_pid_start *)b)->pid;
	return (x > y) - (x < y);
}

static uint64_t filetime_ticks(FILETIME ft)
{
	return ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
}

void wddm_mark_collect(struct wddm_source *s)
{
	FILETIME now;
	GetSystemTimeAsFileTime(&now);
	s->collect_ticks = filetime_ticks(now);
}

/* Opens pid and reads its creation time as proc_windows.c does (FILETIME
 * ticks: the same number, so the collector's join by (pid, start time)
 * holds). Returns the handle to hold, or NULL: refused or gone (*start 0),
 * or created after the collect (*start WDDM_START_LATE). */
static HANDLE open_held(const struct wddm_source *s, uint32_t pid, uint64_t *start)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, pid);
	FILETIME created, exited, kernel, user;
	bool hold = h != NULL;

	*start = 0;
	/* a process that grants no SYNCHRONIZE: read, not held (asked anew each
	 * refresh); no process at all (ERROR_INVALID_PARAMETER) is not asked twice */
	if (!h && GetLastError() == ERROR_ACCESS_DENIED)
		h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	if (!h)
		return NULL;
	if (GetProcessTimes(h, &created, &exited, &kernel, &user))
		*start = filetime_ticks(created);
	if (*start > s->collect_ticks && s->collect_ticks)
		*start = WDDM_START_LATE;
	if (!hold || *start == 0 || *start == WDDM_START_LATE) {
		CloseHandle(h);
		return NULL;
	}
	return h;
}

static int cmp_held(const void *a, const void *b)
{
	uint32_t x = ((const struct wddm_held *)a)->pid, y = ((const struct wddm_held *)b)->pid;
	return (x > y) - (x < y);
}

/* pid's start time, from the handle held since an earlier refresh while
 * its process lives, else from a fresh open; what is held this refresh
 * goes to held_next. */
static uint64_t start_of(struct wddm_source *s, uint32_t pid)
{
	struct wddm_held key = {.pid = pid}, *f = s->n_held ? bsearch(&key, s->held, s->n_held, sizeof key, cmp_held) : NULL;
	uint64_t start;
	HANDLE h = NULL;

	if (f && !f->exited) {
		h = f->handle, start = f->start_time;
		f->handle = NULL; /* moved to held_next */
	} else if (f) {
		/* It exited: gone (0). Our handle kept its PID from anyone else,
		 * and a fresh open would find the exited process itself; the
		 * handle closes below, and the next refresh opens the PID anew. */
		start = 0;
	} else {
		h = open_held(s, pid, &start);
	}
	if (h) {
		s->held_next = grow_array(s->held_next, sizeof *s->held_next, &s->cap_held_next, s->n_held_next);
		s->held_next[s->n_held_next++] = (struct wddm_held){pid, h, start, false};
	}
	return start;
}

/* Marks the held processes that have exited: one wait on up to 64 handles
 * (MAXIMUM_WAIT_OBJECTS) answers for all of them while none has, where a
 * wait each cost a system call (a wineserver round trip under Wine) per
 * listed process and refresh. The wait names the lowest signalled handle;
 * the ones after it are asked again. */
static void mark_exited_batch(struct wddm_held *h, size_t n)
{
	HANDLE hs[MAXIMUM_WAIT_OBJECTS];
	size_t from = 0;

	for (size_t k = 0; k < n; k++)
		hs[k] = h[k].handle, h[k].exited = false;
	while (from < n) {
		DWORD r = WaitForMultipleObjects((DWORD)(n - from), hs + from, FALSE, 0);
		if (r == WAIT_TIMEOUT)
			return;
		if (r >= WAIT_OBJECT_0 + (n - from)) { /* failed (or abandoned): each on its own */
			for (size_t k = from; k < n; k++)
				h[k].exited = WaitForSingleObject(hs[k], 0) == WAIT_OBJECT_0; /* a failed wait is no exit */
			return;
		}
		from += r - WAIT_OBJECT_0;
		h[from++].exited = true;
	}
}

static void mark_exited(struct wddm_source *s)
{
	for (size_t i = 0; i < s->n_held; i += MAXIMUM_WAIT_OBJECTS)
		mark_exited_batch(s->held + i, s->n_held - i < MAXIMUM_WAIT_OBJECTS ? s->n_held - i : MAXIMUM_WAIT_OBJECTS);
}

/* Closes what the last refresh held and this one did not keep (exited,
 * or no longer listed), then makes this refresh's list the held one. */
static void swap_held(struct wddm_source *s)
{
	for (size_t i = 0; i < s->n_held; i++)
		if (s->held[i].handle)
			CloseHandle(s->held[i].handle);
	struct wddm_held *t = s->held;
	size_t cap = s->cap_held;
	s->held = s->held_next, s->cap_held = s->cap_held_next, s->n_held = s->n_held_next;
	s->held_next = t, s->cap_held_next = cap, s->n_held_next = 0;
}

void wddm_procs_release(struct wddm_source *s)
{
	swap_held(s); /* closes the last refresh's leftovers */
	swap_held(s); /* and what this one held */
	free(s->held);
	free(s->held_next);
	free(s->starts);
	free(s->keys);
}

static void add_pids(struct wddm_source *s, const struct wddm_items *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!c->v[i].id.has_pid)
			continue;
		s->starts = grow_array(s->starts, sizeof *s->starts, &s->cap_starts, s->n_starts);
		s->starts[s->n_starts++] = (struct wddm_pid_start){c->v[i].id.pid, 0};
	}
}

/* Every PID the counters list, sorted, each with its start time. */
static void look_up_starts(struct wddm_source *s)
{
	size_t w = 0;

	s->n_starts = 0;
	add_pids(s, pdh_reader_items(s->pdh, PDH_ENGINE_RUNNING));
	for (int k = 0; k < WDDM_PM_N; k++)
		add_pids(s, pdh_reader_items(s->pdh, PDH_PM_FIRST + k));
	qsort(s->starts, s->n_starts, sizeof *s->starts, cmp_start);
	for (size_t i = 0; i < s->n_starts; i++)
		if (w == 0 || s->starts[w - 1].pid != s->starts[i].pid)
			s->starts[w++] = s->starts[i];
	s->n_starts = w;
	s->n_held_next = 0;
	mark_exited(s);
	for (size_t i = 0; i < s->n_starts; i++)
		s->starts[i].start_time = s->starts[i].pid ? start_of(s, s->starts[i].pid) : 0;
	swap_held(s);
}

uint64_t wddm_pid_start_time(struct wddm_source *s, uint32_t pid)
{
	struct wddm_pid_start key = {pid, 0};
	const struct wddm_pid_start *f = bsearch(&key, s->starts, s->n_starts, sizeof key, cmp_start);
	return f ? f->start_time : 0;
}

void wddm_engines_update(struct wddm_source *s)
{
	/* an instance listed twice is one engine: its Running Times summed before the delta */
	wddm_items_fold_repeats(pdh_reader_items(s->pdh, PDH_ENGINE_RUNNING), &s->engines, &s->fold_scratch,
				&s->fold_scratch_cap);
	const struct wddm_items *c = &s->engines;

	look_up_starts(s);
	s->n_samples = 0;
	wddm_engine_tracker_begin(s->tracker);
	for (size_t i = 0; i < c->n; i++) {
		const struct wddm_item *it = &c->v[i];
		if (!it->id.has_pid || !it->id.has_eng)
			continue;
		s->samples = grow_array(s->samples, sizeof *s->samples, &s->cap_samples, s->n_samples);
		struct wddm_engine_sample *e = &s->samples[s->n_samples++];
		memset(e, 0, sizeof *e);
		e->pid = it->id.pid;
		e->start_time = wddm_pid_start_time(s, it->id.pid);
		e->luid = it->id.luid;
		e->phys = it->id.phys;
		e->eng = it->id.eng;
		str_copy(e->type, it->id.engtype, sizeof e->type);
		/* a bad CStatus is no sample: N/A now, and the instance starts over */
		e->ok = wddm_cstatus_valid(it->cstatus) &&
			wddm_engine_tracker_update(s->tracker, it->name, it->name_len, e->start_time, it->value, it->stamp,
						   &e->pct);
	}
	wddm_engine_tracker_end(s->tracker);
	wddm_engine_aggregate(s->samples, s->n_samples, &s->loads);
}

static int cmp_key(const void *va, const void *vb)
{
	const struct wddm_use_key *a = va, *b = vb;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->luid != b->luid)
		return a->luid < b->luid ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

static size_t collect_keys(struct wddm_source *s, const struct wddm_mem_rows *rows)
{
	size_t n = 0;

	for (size_t i = 0; i < rows->n; i++) {
		s->keys = grow_array(s->keys, sizeof *s->keys, &s->cap_keys, n);
		s->keys[n++] = (struct wddm_use_key){rows->v[i].pid, rows->v[i].luid, i};
	}
	for (size_t i = 0; i < s->loads.n_procs; i++) {
		s->keys = grow_array(s->keys, sizeof *s->keys, &s->cap_keys, n);
		s->keys[n++] = (struct wddm_use_key){s->loads.procs[i].pid, s->loads.procs[i].luid, SIZE_MAX};
	}
	qsort(s->keys, n, sizeof *s->keys, cmp_key);
	return n;
}

/* One (process, adapter) pair: keys [i, j), memory rows first. */
static void add_use(struct wddm_source *s, const struct wddm_mem_rows *rows, size_t i, size_t j, int dev,
		    struct gtm_raw_uses *uses)
{
	struct gtm_raw_use *r = raw_uses_add(uses);
	uint32_t pid = s->keys[i].pid;
	struct wddm_mem_use m;
	bool have_mem = false;

	r->pid = pid;
	r->start_time = wddm_pid_start_time(s, pid);
	r->use.dev_index = dev;
	r->use.source_pid = pid;
	for (size_t k = i; k < j && s->keys[k].row != SIZE_MAX; k++) {
		struct wddm_mem_use x;
		wddm_mem_use_of(&rows->v[s->keys[k].row], &x);
		if (!have_mem)
			m = x;
		else
			wddm_mem_use_add(&m, &x);
		have_mem = true;
	}
	if (have_mem)
		wddm_use_fill_memory(&r->use, &m);
	else
		str_copy(r->use.na_reason, "no GPU Process Memory instance", sizeof r->use.na_reason);
	const struct wddm_load *l = wddm_engine_loads_proc(&s->loads, pid, r->start_time, s->keys[i].luid);
	if (l)
		wddm_use_fill_engines(&r->use, l);
}

void wddm_procs_add(struct wddm_source *s, struct gtm_snapshot *snap, int base, struct gtm_raw_uses *uses)
{
	const struct wddm_mem_rows *rows = pdh_reader_process_memory(s->pdh);
	size_t n = collect_keys(s, rows), late = 0;

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && s->keys[j].pid == s->keys[i].pid && s->keys[j].luid == s->keys[i].luid; j++)
			;
		int dev = wddm_device_of(s, base, s->keys[i].luid);
		if (dev < 0)
			continue; /* an adapter DXGI does not list (a software one) */
		if (wddm_pid_start_time(s, s->keys[i].pid) == WDDM_START_LATE) {
			late++; /* an exited process's counters, under its PID's new owner */
			continue;
		}
		add_use(s, rows, i, j, dev, uses);
		if (s->keys[i].pid)
			snap->devices[dev].n_processes_seen++;
	}
	if (late)
		snapshot_add_note(snap, "wddm: %u GPU row%s left out: the PID belongs to a process started after the "
				  "counters were read (an exited process's PID reused)", (unsigned)late, late == 1 ? "" : "s");
}
