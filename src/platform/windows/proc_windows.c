/* The Windows process scan: one listing of every process (PID, parent,
 * image name, start time, working set: win_proc_list.c, from
 * SystemProcessInformation); a process whose user or detail must be read
 * (win_detail_cache.h) is then opened with the least rights that tell its
 * image path, user, command line, DLLs and mapped files. Where the listing
 * came from Toolhelp (the fallback) each process is opened for its start
 * time and working set too. A process that refuses to be opened is listed
 * with what the listing gave and counted as not inspectable; nothing is
 * made up. */
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "core/snapshot.h"
#include "core/util.h"
#include "portable.h"
#include "proc_win.h"
#include "win_detail_cache.h"
#include "win_proc_list.h"
#include "win_scan_plan.h"

struct proc_cache {
	struct win_dos_map dos; /* in this scan: read only for a mapped file */
	struct win_tcp_listener *listeners;
	size_t n_listeners;
	bool listeners_read; /* this scan's table was asked for */
	bool listeners_ok;   /* and both families' tables were read */
	/* the snapshot the current scan fills: proc_refresh_ports is called for
	 * its rows (collector.c) until the next scan, and notes an unread table
	 * there once */
	struct gtm_snapshot *snap;
	struct win_proc_list list; /* the last listing */
	struct win_listed *wl;     /* its PIDs and parents, for win_scan_plan */
	uint8_t *rows;             /* enum win_row per entry */
	uint32_t *listed; /* the last scan's PIDs, sorted */
	size_t n_listed, cap_listed;
	bool scanned;
	struct win_detail_cache details; /* the GPU processes' details, by (PID, start time) */
};

struct proc_cache *proc_cache_new(void)
{
	return xcalloc(1, sizeof(struct proc_cache));
}

void proc_cache_free(struct proc_cache *c)
{
	if (!c)
		return;
	free(c->listeners);
	free(c->listed);
	win_proc_list_free(&c->list);
	free(c->wl);
	free(c->rows);
	win_detail_cache_free(&c->details);
	free(c);
}

/* Keeps what was just read of p (its detail, if any, and user) by (PID,
 * start time); ok is what the read returns. */
static void keep(struct proc_cache *c, const struct gtm_process *p, bool ok, bool refused, uint64_t now)
{
	struct win_detail_entry e = {.pid = p->pid, .start_time = p->start_time, .detail = p->detail, .ok = ok,
				     .refused = refused, .rss = p->rss.v, .read_ns = now};
	snprintf(e.user, sizeof e.user, "%s", p->user);
	win_detail_cache_put(&c->details, &e);
}

/* The cache's entry for p under want, into p (its detail only where a
 * detail is wanted: a parent's row has none); NULL when a read is due. */
static const struct win_detail_entry *from_cache(struct proc_cache *c, struct gtm_process *p,
						 enum win_detail_want want, uint64_t now)
{
	const struct win_detail_entry *e = win_detail_cache_get(&c->details, p->pid, p->start_time, p->rss.v, now, want);
	if (e) {
		if (e->detail && want != WIN_WANT_USER)
			p->detail = proc_detail_ref(e->detail);
		snprintf(p->user, sizeof p->user, "%s", e->user);
	}
	return e;
}

/* p's detail and user (p's start time and working set read from h): the
 * cache's while (PID, start time) holds and no re-read is due, else read
 * from h and kept. Returns whether the process gave it in full. */
static bool detail_of(struct proc_cache *c, HANDLE h, bool full, bool defer_environ, struct gtm_process *p)
{
	uint64_t now = now_monotonic_ns();
	const struct win_detail_entry *e = from_cache(c, p, WIN_WANT_DETAIL, now);

	if (e)
		return e->ok;
	win_read_user(h, p);
	p->detail = win_read_detail(&c->dos, h, full, defer_environ);
	bool ok = full && p->detail->argc > 0;
	keep(c, p, ok, false, now);
	return ok;
}

/* Fills what an open handle tells, the detail too when asked; false when
 * the process refused it (or, with detail, its memory). The Toolhelp
 * fallback's way, and proc_detail_load's. */
static bool inspect(struct proc_cache *c, struct gtm_process *p, bool detail, bool defer_environ)
{
	bool full, ok = true;
	HANDLE h = win_open_process(p->pid, &full);
	if (!h)
		return false;
	win_read_basic(h, p);
	if (detail)
		ok = detail_of(c, h, full, defer_environ, p);
	else
		win_read_user(h, p);
	CloseHandle(h);
	return ok;
}

/* inspect() for a row whose start time and working set the listing gave:
 * the cache's user and detail while they hold, else the process opened to
 * read them; a refusal is kept too, so neither is asked again until due.
 * The one open handle is checked against the listing's start time: the
 * PID may name a newer process by then. */
static bool inspect_listed(struct proc_cache *c, struct gtm_process *p, bool detail, bool defer_environ)
{
	uint64_t now = now_monotonic_ns();
	const struct win_detail_entry *e =
		from_cache(c, p, detail ? WIN_WANT_DETAIL_OR_REFUSAL : WIN_WANT_USER, now);
	if (e)
		return e->ok;
	bool full;
	HANDLE h = win_open_process(p->pid, &full);
	if (!h) {
		keep(c, p, false, true, now);
		return false;
	}
	bool ok = win_start_time(h) == p->start_time;
	if (ok) {
		win_read_user(h, p);
		if (detail)
			p->detail = win_read_detail(&c->dos, h, full, defer_environ);
		ok = !detail || (full && p->detail->argc > 0);
		keep(c, p, ok, false, now);
	}
	CloseHandle(h);
	return ok;
}

static void read_listeners(struct proc_cache *c)
{
	free(c->listeners);
	c->listeners_ok = win_tcp_listeners_read(&c->listeners, &c->n_listeners);
	c->listeners_read = true;
	if (!c->listeners_ok && c->snap)
		snapshot_add_note(c->snap, "ports: the listening TCP table (GetExtendedTcpTable) cannot be read: "
					   "listening ports are N/A, and no local API is probed");
}

/* An unread table leaves the row as it was: a row of this scan (nothing is
 * kept between scans) has ports_read false, JSON null; "no ports" would be
 * a reading nobody made. */
int proc_refresh_ports(struct proc_cache *c, struct gtm_process *p)
{
	if (!c->listeners_read)
		read_listeners(c);
	if (!c->listeners_ok)
		return -1;
	p->n_ports = win_ports_of(c->listeners, c->n_listeners, p->pid, p->ports, (int)ARRAY_LEN(p->ports));
	p->ports_read = true;
	return 0;
}

int proc_refresh_ports_if_older(struct proc_cache *c, struct gtm_process *p, uint64_t max_age_ns)
{
	(void)max_age_ns; /* the table is read once per scan: this is that scan's */
	return proc_refresh_ports(c, p);
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The listing into the cache's arrays; false when it fails. A listing
 * from Toolhelp says so in a note: each row then costs four calls more. */
static bool list_processes(struct proc_cache *c, struct gtm_snapshot *snap)
{
	struct win_proc_list *l = &c->list;
	if (!win_proc_list_read(l))
		return false;
	if (!l->basic)
		snapshot_add_note(snap, "processes listed with Toolhelp (%s)", l->why);
	size_t room = l->n ? l->n : 1;
	c->wl = xrealloc(c->wl, room * sizeof *c->wl);
	c->rows = xrealloc(c->rows, room);
	for (size_t i = 0; i < l->n; i++)
		c->wl[i] = (struct win_listed){l->v[i].pid, l->v[i].ppid};
	return true;
}

static void add_row(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o,
		    const struct win_proc *lp, bool full)
{
	struct gtm_process *p = snapshot_add_process(snap);
	bool defer = o && o->defer_environ, ok;
	p->pid = lp->pid;
	p->ppid = lp->ppid;
	snprintf(p->label, sizeof p->label, "%u", p->pid);
	snprintf(p->name, sizeof p->name, "%s", lp->name);
	if (c->list.basic) {
		p->start_time = lp->start_time;
		/* a live process never has an empty working set: 0 is what Wine
		 * leaves when it cannot read one (and the Idle process's) */
		p->rss = lp->rss ? gtm_u64_of(lp->rss, GTM_MEASURED) : GTM_U64_NA;
		ok = inspect_listed(c, p, full, defer);
	} else {
		ok = inspect(c, p, full, defer);
	}
	if (!ok)
		snap->n_procs_uninspectable++;
	if (!(o && o->ports_on_demand))
		proc_refresh_ports(c, p);
}

/* One listing; each process then read as win_scan_plan says (with
 * details_priority_only only the GPU users in full, their parents for what
 * ps shows, the rest only counted: opening a process is the cost of a
 * refresh). What was read is kept by (PID, start time) between scans
 * (win_detail_cache.h); with the listing's start times a scan opens only
 * the processes whose entry is missing or due, with Toolhelp's it opens
 * every process it reads, a handle being its only way to a start time. The budget
 * is not applied: a scan cut short at the same point each refresh would
 * leave the processes late in the listing without details (with `--all`);
 * priority_only and the detail cache are what keep a refresh cheap. */
int proc_cache_scan(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o)
{
	if (!list_processes(c, snap))
		return -1;
	c->dos.read = false; /* drives may be mapped since: read again when a mapped file needs them */
	c->listeners_read = false;
	c->snap = snap;
	c->n_listed = 0;
	win_scan_plan(c->wl, c->list.n, o, c->rows);
	for (size_t i = 0; i < c->list.n; i++) {
		if (c->rows[i] == WIN_ROW_SKIP)
			continue;
		c->listed = grow_array(c->listed, sizeof *c->listed, &c->cap_listed, c->n_listed);
		c->listed[c->n_listed++] = c->wl[i].pid;
		snap->n_procs_total++;
		if (c->rows[i] == WIN_ROW_COUNT)
			continue;
		add_row(c, snap, o, &c->list.v[i], c->rows[i] == WIN_ROW_FULL);
	}
	qsort(c->listed, c->n_listed, sizeof *c->listed, cmp_pid);
	win_detail_cache_end_scan(&c->details); /* what this scan did not list is dropped */
	c->scanned = true;
	return 0;
}

bool proc_cache_listed(struct proc_cache *c, uint32_t pid)
{
	return c->n_listed && bsearch(&pid, c->listed, c->n_listed, sizeof pid, cmp_pid) != NULL;
}

bool proc_cache_scanned(const struct proc_cache *c)
{
	return c->scanned;
}

int proc_detail_load(struct proc_cache *c, struct gtm_process *p)
{
	if (p->detail)
		return 0;
	/* read into a copy: a reused PID's memory and user must not reach the row */
	struct gtm_process q = *p;
	bool full = inspect(c, &q, true, true);
	if (!q.detail)
		return -1; /* gone, or not ours to open */
	if (p->start_time && q.start_time != p->start_time) {
		proc_detail_unref(q.detail); /* the PID now names another process */
		return -1;
	}
	*p = q;
	return full ? 0 : 1;
}

/* FILETIME's epoch, 1601-01-01, is 11644473600 s before Unix's. Never
 * /proc/stat: under Wine, Z: is the Linux root and its btime is Linux's. */
int64_t proc_start_epoch_s(void)
{
	return -11644473600LL;
}

bool proc_pid_exists(uint32_t pid)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	if (!h)
		return GetLastError() == ERROR_ACCESS_DENIED; /* there, but not ours to open */
	DWORD code = 0;
	bool alive = GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
	CloseHandle(h);
	return alive;
}
