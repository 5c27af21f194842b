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

/* Creation time as proc_windows.c reads it (FILETIME ticks): the same
 * number, so the collector's join by (pid, start time) holds. */
static uint64_t process_start_time(uint32_t pid)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	FILETIME created, exited, kernel, user;
	uint64_t t = 0;

	if (!h)
		return 0;
	if (GetProcessTimes(h, &created, &exited, &kernel, &user))
		t = ((uint64_t)created.dwHighDateTime << 32) | created.dwLowDateTime;
	CloseHandle(h);
	return t;
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
	for (size_t i = 0; i < s->n_starts; i++)
		s->starts[i].start_time = s->starts[i].pid ? process_start_time(s->starts[i].pid) : 0;
}

uint64_t wddm_pid_start_time(struct wddm_source *s, uint32_t pid)
{
	struct wddm_pid_start key = {pid, 0};
	const struct wddm_pid_start *f = bsearch(&key, s->starts, s->n_starts, sizeof key, cmp_start);
	return f ? f->start_time : 0;
}

void wddm_engines_update(struct wddm_source *s)
{
	const struct wddm_items *c = pdh_reader_items(s->pdh, PDH_ENGINE_RUNNING);

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
	size_t n = collect_keys(s, rows);

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && s->keys[j].pid == s->keys[i].pid && s->keys[j].luid == s->keys[i].luid; j++)
			;
		int dev = wddm_device_of(s, base, s->keys[i].luid);
		if (dev < 0)
			continue; /* an adapter DXGI does not list (a software one) */
		add_use(s, rows, i, j, dev, uses);
		if (s->keys[i].pid)
			snap->devices[dev].n_processes_seen++;
	}
}
