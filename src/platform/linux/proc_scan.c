/* One pass over /proc: a steady refresh reads /proc/PID/stat only (uid from
 * the owner of that file: fs/proc/base.c task_dump_owner()); details are read
 * for new processes and when the rescan rule fires, within the budget. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/parallel.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "proc_internal.h"

/* A scan runs in phases over the PIDs readdir listed (scan_items): the
 * system calls (stat, then the due details) side by side on several threads
 * when there are enough of them, what touches the cache or the snapshot in
 * readdir order on the calling thread. */
struct scan_state {
	struct proc_cache *c;
	struct gtm_snapshot *snap;
	int procfd;
	struct scan_item *items;
	size_t n_items;
	const struct proc_listeners *ports; /* NULL: no fds read for ports */
	uint64_t now;            /* the cache's clock, for the rescan rule */
	uint64_t t0, budget_ns;  /* real monotonic time, for the budget */
	atomic_bool over_budget;
	bool trust_ino;          /* live view on the real /proc: see PROC_STAT_PERIOD_NS */
	bool ports_on_demand;
	bool defer_environ;
	bool priority_only;      /* details only for the priority PIDs, rows only for them and
	                          * their parents */
	const uint32_t *priority;
	size_t n_priority;
	uint32_t *parents;       /* sorted: the priority PIDs' parents (priority_only) */
	size_t n_parents;
	bool parents_known;      /* a later batch of items keeps them */
	bool count_others;       /* priority_only, and no stat can be refused: a process that is
	                          * neither a priority PID nor a parent of one is counted unread */
};

static int pid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static bool is_priority(const struct scan_state *s, uint32_t pid)
{
	return s->n_priority && bsearch(&pid, s->priority, s->n_priority, sizeof pid, pid_cmp);
}

/* A /proc entry name that is a PID: digits only, no leading zero, fits. */
static bool parse_pid(const char *s, uint32_t *pid)
{
	uint64_t v = 0;

	if (s[0] < '1' || s[0] > '9')
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*pid = (uint32_t)v;
	return true;
}

/* read_stat's results, and two more states of a scan item's stat */
enum stat_result {
	STAT_OK = 0, STAT_GONE, STAT_DENIED,
	ITEM_FRESH,  /* the cached stat is still good: not read */
	ITEM_UNREAD, /* to be read by the stat phase */
	ITEM_COUNTED, /* listed, matters to no view: counted, not read (count_others) */
};
enum item_detail { DETAIL_NONE = 0, DETAIL_DUE, DETAIL_SKIPPED /* budget */, DETAIL_GONE };

/* The steady path's only read: open, fstat for the owner, one read, close. */
static enum stat_result read_stat(int procfd, uint32_t pid, struct proc_stat *st, uid_t *uid)
{
	char path[32], buf[1024];
	struct stat sb;
	ssize_t k;
	int fd;

	snprintf(path, sizeof path, "%u/stat", pid);
	fd = sysroot_proc_openat(procfd, path, O_RDONLY | O_NOCTTY);
	if (fd < 0) /* exited since readdir, or hidden (mount option hidepid=1) */
		return errno == EACCES || errno == EPERM ? STAT_DENIED : STAT_GONE;
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return STAT_GONE;
	}
	do
		k = read(fd, buf, sizeof buf - 1); /* the kernel writes the whole line at once */
	while (k < 0 && errno == EINTR);
	close(fd);
	if (k <= 0)
		return STAT_GONE;
	*uid = sb.st_uid;
	return proc_stat_parse(buf, (size_t)k, st) == 0 ? STAT_OK : STAT_GONE;
}

static bool rescan_due(const struct proc_entry *e, uint64_t rss, uint64_t now)
{
	uint64_t delta, age;

	if (!e->detailed)
		return true;
	age = now - e->detail_at_ns;
	if (age >= PROC_RESCAN_AGE_NS)
		return true;
	if (age < PROC_RESCAN_MIN_INTERVAL_NS)
		return false;
	delta = rss > e->detail_rss ? rss - e->detail_rss : e->detail_rss - rss;
	if (delta >= PROC_RESCAN_RSS_BYTES)
		return true;
	return delta > 0 && delta >= e->detail_rss / 100 * PROC_RESCAN_RSS_PERCENT;
}

/* Whether a due detail may be read now: past the budget only a priority
 * PID's is (the rest keep what is cached and the scan is marked partial). */
static bool detail_allowed(struct scan_state *s, uint32_t pid)
{
	if (s->budget_ns && !atomic_load(&s->over_budget) && now_monotonic_ns() - s->t0 > s->budget_ns)
		atomic_store(&s->over_budget, true);
	return !atomic_load(&s->over_budget) || is_priority(s, pid);
}

static void add_row(struct scan_state *s, const struct proc_entry *e, const struct proc_stat *st, uid_t uid,
		    uint64_t rss)
{
	struct gtm_process *p = snapshot_add_process(s->snap);

	/* a non-dumpable process's /proc files belong to root: status knows better */
	if (uid == 0 && e->has_status_uid)
		uid = e->status_uid;
	p->pid = e->pid;
	snprintf(p->label, sizeof p->label, "%u", e->pid);
	p->owner = GTM_OWNER_NONE;
	p->start_time = e->start_time;
	p->ppid = st->ppid;
	p->uid = uid;
	str_copy(p->user, proc_users_name(&s->c->users, uid), sizeof p->user);
	memcpy(p->name, st->comm, sizeof p->name < sizeof st->comm ? sizeof p->name : sizeof st->comm);
	p->name[sizeof p->name - 1] = '\0';
	p->rss = gtm_u64_of(rss, GTM_MEASURED);
	p->detail = proc_detail_ref(e->detail);
	memcpy(p->ports, e->ports, sizeof p->ports);
	p->n_ports = e->n_ports;
	p->ports_read = e->ports_read;
	s->snap->n_procs_total++;
	if (e->denied)
		s->snap->n_procs_uninspectable++;
}

/* A known process whose /proc inode is unchanged keeps its last stat for a
 * while (proc.h: PROC_STAT_PERIOD_NS); one that matters to no view (not a
 * priority PID, with details_priority_only) for as long as the inode stays. */
static bool stat_fresh(const struct scan_state *s, const struct proc_entry *e, ino_t ino)
{
	if (!s->trust_ino || !e || !e->have_stat || ino == 0 || e->ino != ino)
		return false;
	if (s->priority_only && !is_priority(s, e->pid))
		return true;
	return s->now - e->stat_at_ns < PROC_STAT_PERIOD_NS + (e->pid % 8) * PROC_STAT_STAGGER_NS;
}

static uint64_t rss_bytes(const struct proc_cache *c, const struct proc_stat *st)
{
	return st->rss_pages <= UINT64_MAX / (uint64_t)c->page_size ? st->rss_pages * (uint64_t)c->page_size
								   : UINT64_MAX;
}

/* Phase 1, per item and side by side: the stat of each process not fresh. */
static void stat_item(void *ctx, size_t i, int worker)
{
	struct scan_state *s = ctx;
	struct scan_item *it = &s->items[i];

	(void)worker;
	if (it->stat == ITEM_UNREAD)
		it->stat = (uint8_t)read_stat(s->procfd, it->pid, &it->st, &it->uid);
}

/* Whether this process's details are read at all: with priority_only, what
 * ps reads (its stat) is all a process that uses no GPU gets, and a detail
 * read while it mattered is dropped. */
static bool wants_detail(const struct scan_state *s, struct proc_entry *e)
{
	if (!s->priority_only || is_priority(s, e->pid))
		return true;
	proc_entry_release(e);
	e->detailed = false;
	e->denied = false;
	return false;
}

/* Phase 2, in order: the cache takes the stats (inserting moves entries, so
 * items keep an index) and the due details are counted. */
static size_t apply_stats(struct scan_state *s)
{
	struct proc_cache *c = s->c;
	size_t due = 0;

	for (size_t i = 0; i < s->n_items; i++) {
		struct scan_item *it = &s->items[i];
		struct proc_entry *e = proc_cache_find(c, it->pid);

		it->detail = DETAIL_NONE;
		if (it->stat == ITEM_COUNTED) {
			/* kept as listed (proc_cache_listed); what it held is dropped */
			if (!e)
				e = proc_cache_insert(c, it->pid, 0);
			e->gen = c->gen;
			it->entry = (uint32_t)(e - c->entries);
			wants_detail(s, e);
			continue;
		}
		if (it->stat == ITEM_FRESH) {
			e->gen = c->gen;
			it->entry = (uint32_t)(e - c->entries);
			/* a known process that just started to matter (a GPU user now) */
			if (wants_detail(s, e) && !e->detailed) {
				it->st = e->last_stat;
				it->detail = DETAIL_DUE;
				due++;
			}
			continue;
		}
		c->stat_reads++;
		if (it->stat != STAT_OK)
			continue;
		if (e && e->start_time != it->st.start_time)
			proc_entry_reset(e, it->st.start_time); /* the PID was reused */
		if (!e)
			e = proc_cache_insert(c, it->pid, it->st.start_time);
		e->gen = c->gen;
		e->stat_uid = it->uid;
		e->ino = it->ino;
		e->have_stat = true;
		e->stat_at_ns = s->now;
		e->last_stat = it->st;
		it->entry = (uint32_t)(e - c->entries);
		if (wants_detail(s, e) && rescan_due(e, rss_bytes(c, &it->st), s->now)) {
			it->detail = DETAIL_DUE;
			due++;
		}
	}
	return due;
}

/* Phase 3, side by side: the due details, each worker with its own buffer. */
static void detail_item(void *ctx, size_t i, int worker)
{
	struct scan_state *s = ctx;
	struct scan_item *it = &s->items[i];
	struct proc_entry *e;

	if (it->detail != DETAIL_DUE)
		return;
	if (!detail_allowed(s, it->pid)) {
		it->detail = DETAIL_SKIPPED;
		return;
	}
	e = &s->c->entries[it->entry];
	if (proc_detail_read(s->procfd, s->c->worker_io[worker], s->ports, e, (it->st.flags & PROC_PF_KTHREAD) != 0,
			     s->defer_environ) != PROC_DETAIL_OK) {
		it->detail = DETAIL_GONE;
		return;
	}
	e->detail_rss = rss_bytes(s->c, &it->st);
	e->detail_at_ns = s->now;
}

/* With priority_only, the parents of the priority PIDs (from their stat),
 * sorted: they get rows (an Ollama runner serves through its parent). */
static void collect_parents(struct scan_state *s)
{
	if (s->parents_known)
		return;
	s->n_parents = 0;
	if (!s->priority_only)
		return;
	for (size_t i = 0; i < s->n_items; i++) {
		const struct scan_item *it = &s->items[i];
		if ((it->stat != ITEM_FRESH && it->stat != STAT_OK) || !is_priority(s, it->pid))
			continue;
		/* before the stats are applied (count_others) as after */
		const struct proc_entry *e = it->stat == ITEM_FRESH ? proc_cache_find(s->c, it->pid) : NULL;
		uint32_t ppid = e ? e->last_stat.ppid : it->st.ppid;
		if (ppid > 1) {
			s->parents = grow_array(s->parents, sizeof *s->parents, &s->c->parents_cap, s->n_parents);
			s->parents[s->n_parents++] = ppid;
		}
	}
	if (s->n_parents > 1)
		qsort(s->parents, s->n_parents, sizeof *s->parents, pid_cmp);
	s->c->parents = s->parents;
}

/* Whether a process gets a row: every one, or with priority_only what a view
 * lists or may need (a priority PID, a priority PID's parent). */
static bool wants_row(const struct scan_state *s, uint32_t pid)
{
	return !s->priority_only || is_priority(s, pid) ||
	       (s->n_parents && bsearch(&pid, s->parents, s->n_parents, sizeof pid, pid_cmp));
}

/* Phase 4, in order: the snapshot's rows. */
static void add_rows(struct scan_state *s)
{
	for (size_t i = 0; i < s->n_items; i++) {
		struct scan_item *it = &s->items[i];
		struct proc_entry *e;
		bool fresh = it->stat == ITEM_FRESH;

		switch (it->stat) {
		case ITEM_FRESH:
		case STAT_OK:
			break;
		case ITEM_COUNTED:
			s->snap->n_procs_total++; /* seen, and no view lists it */
			continue;
		case STAT_DENIED: /* a process we may not even list: counted, no row */
			s->snap->n_procs_total++;
			s->snap->n_procs_uninspectable++;
			continue;
		default: /* STAT_GONE; ITEM_UNREAD never: the stat phase read every one */
			continue;
		}
		e = &s->c->entries[it->entry];
		if (it->detail == DETAIL_GONE) {
			e->gen = 0; /* exited mid-read: evicted below, no row */
			continue;
		}
		if (it->detail == DETAIL_SKIPPED)
			s->snap->partial_scan = true;
		if (!wants_row(s, e->pid)) {
			s->snap->n_procs_total++; /* seen, and no view lists it */
			continue;
		}
		if (fresh)
			add_row(s, e, &e->last_stat, e->stat_uid, rss_bytes(s->c, &e->last_stat));
		else
			add_row(s, e, &it->st, it->uid, rss_bytes(s->c, &it->st));
	}
}

/* count_others: the priority PIDs' stats are in; their parents, counted so
 * far, get theirs (a handful: read on this thread). */
static void read_counted_parents(struct scan_state *s)
{
	collect_parents(s);
	s->parents_known = true;
	for (size_t i = 0; i < s->n_items && s->n_parents; i++) {
		struct scan_item *it = &s->items[i];
		if (it->stat != ITEM_COUNTED || !bsearch(&it->pid, s->parents, s->n_parents, sizeof it->pid, pid_cmp))
			continue;
		const struct proc_entry *e = proc_cache_find(s->c, it->pid);
		it->stat = stat_fresh(s, e, it->ino) ? ITEM_FRESH : ITEM_UNREAD;
		stat_item(s, i, 0);
	}
}

/* Enough processes to read for threads to pay off (each costs ~50 us to start). */
#define SCAN_STATS_PER_WORKER 128
#define SCAN_DETAILS_PER_WORKER 32

static void scan_items(struct scan_state *s)
{
	struct proc_cache *c = s->c;
	size_t n_stat = 0, n_new = 0, due;
	int workers;

	bool counting = s->count_others && !s->parents_known;
	for (size_t i = 0; i < s->n_items; i++) {
		struct scan_item *it = &s->items[i];
		if (counting && !is_priority(s, it->pid)) {
			it->stat = ITEM_COUNTED;
			continue;
		}
		const struct proc_entry *e = proc_cache_find(c, it->pid);
		it->stat = stat_fresh(s, e, it->ino) ? ITEM_FRESH : ITEM_UNREAD;
		n_stat += it->stat != ITEM_FRESH;
		n_new += e == NULL;
	}
	/* threads for the stats of a cold scan only: a repeated full scan of
	 * known processes is cheap enough that starting them costs more CPU
	 * than it saves (bench/proc) */
	if (n_stat > 0)
		parallel_for(s->n_items, parallel_workers(n_new, SCAN_STATS_PER_WORKER), stat_item, s);
	if (counting)
		read_counted_parents(s);
	due = apply_stats(s);
	if (due > 0) {
		s->ports = s->ports_on_demand ? NULL : proc_cache_listeners(c, s->procfd);
		workers = parallel_workers(due, SCAN_DETAILS_PER_WORKER);
		proc_cache_worker_io(c, workers);
		parallel_for(s->n_items, workers, detail_item, s);
	}
	collect_parents(s);
	add_rows(s);
}

static void push_item(struct scan_state *s, uint32_t pid, ino_t ino)
{
	struct proc_cache *c = s->c;

	c->items = grow_array(c->items, sizeof *c->items, &c->items_cap, c->n_items);
	c->items[c->n_items++] = (struct scan_item){.pid = pid, .ino = ino};
	s->items = c->items;
	s->n_items = c->n_items;
}

/* Whether a priority PID is missing from the items readdir listed. */
static bool priority_missing(const struct scan_state *s)
{
	uint32_t *pids = xmalloc((s->n_items ? s->n_items : 1) * sizeof *pids);
	bool missing = false;

	for (size_t i = 0; i < s->n_items; i++)
		pids[i] = s->items[i].pid;
	qsort(pids, s->n_items, sizeof *pids, pid_cmp);
	for (size_t i = 0; i < s->n_priority && !missing; i++)
		missing = !bsearch(&s->priority[i], pids, s->n_items, sizeof *pids, pid_cmp);
	free(pids);
	return missing;
}

/* The inode of /proc/PID, or 0 when it is gone. */
static ino_t pid_ino(int procfd, uint32_t pid)
{
	char name[16];
	struct stat st;
	snprintf(name, sizeof name, "%u", pid);
	return fstatat(procfd, name, &st, 0) == 0 ? st.st_ino : 0;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* A priority PID known by its /proc inode gets a pidfd: the process it names
 * cannot change while the pidfd does not report an exit (a PID is reused
 * only after its process is gone), so one poll replaces an fstatat per PID.
 * The inode is checked again after the open: a reuse in between shows. */
static void hold_pidfd(int procfd, struct proc_entry *e)
{
	if (e->pidfd_slot || !e->ino || e->gen == 0)
		return;
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)e->pid, 0);
	if (fd < 0)
		return; /* before Linux 5.3, or no more fds: looked up by inode */
	if (pid_ino(procfd, e->pid) != e->ino) {
		close(fd);
		return;
	}
	e->pidfd_slot = fd + 1;
}

/* The live view between full listings: the priority PIDs (a poll of their
 * pidfds, an fstatat of /proc/PID for those without one), then their parents
 * by inode; everything else keeps its entry (no eviction) and the count of
 * the last listing. */
static void scan_targeted(struct scan_state *s)
{
	struct proc_cache *c = s->c;
	size_t n = 0;
	ino_t ino;

	for (size_t i = 0; i < s->n_priority; i++) {
		struct proc_entry *e = proc_cache_find(c, s->priority[i]);
		if (e && e->pidfd_slot && (i == 0 || s->priority[i] != s->priority[i - 1])) {
			c->pfds = grow_array(c->pfds, sizeof *c->pfds, &c->pfds_cap, n);
			c->pfds[n++] = (struct pollfd){.fd = e->pidfd_slot - 1, .events = POLLIN};
		}
	}
	if (n && poll(c->pfds, (nfds_t)n, 0) < 0)
		for (size_t k = 0; k < n; k++)
			c->pfds[k].revents = POLLERR; /* no answer: look them up */
	for (size_t i = 0, k = 0; i < s->n_priority; i++) {
		if (i > 0 && s->priority[i] == s->priority[i - 1])
			continue;
		struct proc_entry *e = proc_cache_find(c, s->priority[i]);
		if (e && e->pidfd_slot) {
			bool exited = c->pfds[k++].revents != 0;
			if (!exited) {
				push_item(s, e->pid, e->ino);
				continue;
			}
			close(e->pidfd_slot - 1);
			e->pidfd_slot = 0;
		}
		if ((ino = pid_ino(s->procfd, s->priority[i])))
			push_item(s, s->priority[i], ino);
	}
	scan_items(s);
	for (size_t i = 0; i < s->n_items; i++) {
		struct proc_entry *e = proc_cache_find(c, s->items[i].pid);
		if (e && e->gen == c->gen)
			hold_pidfd(s->procfd, e);
	}
	s->parents_known = true;
	c->n_items = 0;
	for (size_t i = 0; i < s->n_parents; i++)
		if ((i == 0 || s->parents[i] != s->parents[i - 1]) && !is_priority(s, s->parents[i]) &&
		    (ino = pid_ino(s->procfd, s->parents[i])))
			push_item(s, s->parents[i], ino);
	s->n_items = c->n_items;
	if (c->n_items)
		scan_items(s);
	if (s->snap->n_procs_total < c->listed_total)
		s->snap->n_procs_total = c->listed_total;
	if (s->snap->n_procs_uninspectable < c->listed_uninspectable)
		s->snap->n_procs_uninspectable = c->listed_uninspectable;
}

int proc_cache_scan(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o)
{
	struct scan_state s = {.c = c, .snap = snap, .budget_ns = o ? o->budget_ns : 0, .parents = c->parents};
	uint32_t only = o ? o->only_pid : 0;
	s.ports_on_demand = o && o->ports_on_demand;
	s.defer_environ = o && o->defer_environ;
	s.priority_only = o && o->details_priority_only;
	s.priority = o ? o->priority_pids : NULL;
	s.n_priority = o ? o->n_priority : 0;
	struct dirent *de;
	uint32_t pid;
	DIR *d;

	proc_cache_check_root(c);
	d = sysroot_opendir("/proc");
	if (!d)
		return -1;
	s.procfd = dirfd(d);
	s.t0 = now_monotonic_ns();
	s.now = c->clock();
	atomic_init(&s.over_budget, false);
	c->gen++;
	s.trust_ino = s.budget_ns != 0 && sysroot_prefix()[0] == '\0';
	c->n_items = 0;
	if (only) {
		/* and its parent: an Ollama runner's API is its parent's port */
		push_item(&s, only, 0);
		scan_items(&s);
		if (snap->n_processes > 0 && snap->processes[snap->n_processes - 1].ppid > 1) {
			c->n_items = 0;
			push_item(&s, snap->processes[snap->n_processes - 1].ppid, 0);
			scan_items(&s);
		}
	} else if (s.priority_only && s.trust_ino && c->listed_at_ns && s.now - c->listed_at_ns < PROC_LIST_PERIOD_NS) {
		scan_targeted(&s);
		closedir(d);
		return 0;
	} else {
		while ((de = readdir(d)))
			if (parse_pid(de->d_name, &pid))
				push_item(&s, pid, de->d_ino);
		if (s.priority_only && o->pair_if_missing && priority_missing(&s))
			s.priority_only = false;
		s.count_others = s.priority_only && !proc_stat_may_be_refused(c);
		scan_items(&s);
		c->listed_total = snap->n_procs_total;
		c->listed_uninspectable = snap->n_procs_uninspectable;
		c->listed_at_ns = s.trust_ino && s.priority_only ? (s.now ? s.now : 1) : 0;
	}
	closedir(d);
	proc_cache_evict(c);
	return 0;
}

bool proc_cache_scanned(const struct proc_cache *c)
{
	return c->gen > 0;
}

bool proc_cache_listed(struct proc_cache *c, uint32_t pid)
{
	const struct proc_entry *e = proc_cache_find(c, pid);
	return e && e->gen == c->gen;
}

int proc_detail_load(struct proc_cache *c, struct gtm_process *p)
{
	struct proc_entry *e = c && p && p->pid ? proc_cache_find(c, p->pid) : NULL;
	int procfd = e ? proc_cache_procfd(c) : -1;

	if (!e || e->start_time != p->start_time || procfd < 0)
		return -1;
	if (!e->detailed) {
		if (proc_detail_read(procfd, c->io, NULL, e, (e->last_stat.flags & PROC_PF_KTHREAD) != 0, true) !=
		    PROC_DETAIL_OK)
			return -1;
		e->detail_rss = rss_bytes(c, &e->last_stat);
		e->detail_at_ns = c->clock();
	}
	proc_detail_unref(p->detail);
	p->detail = proc_detail_ref(e->detail);
	return e->denied ? 1 : 0;
}

int proc_refresh_ports(struct proc_cache *c, struct gtm_process *p)
{
	const struct proc_listeners *t;
	uint16_t ports[PROC_MAX_PORTS];
	struct proc_entry *e;
	int n = 0, procfd;

	if (!c || !p || p->pid == 0)
		return -1;
	/* one /proc fd for every row of a refresh, not an open per row */
	procfd = proc_cache_procfd(c);
	if (procfd < 0)
		return -1;
	t = proc_cache_listeners(c, procfd);
	if (t->n > 0 && proc_read_ports(procfd, p->pid, t, ports, &n) != 0)
		return -1;
	memcpy(p->ports, ports, (size_t)n * sizeof *ports);
	p->n_ports = n;
	p->ports_read = true;
	e = proc_cache_find(c, p->pid);
	if (e && e->start_time == p->start_time) {
		memcpy(e->ports, ports, (size_t)n * sizeof *ports);
		e->n_ports = n;
		e->ports_read = true;
		e->ports_sig = t->sig;
		e->ports_fds_at_ns = c->clock();
	}
	return 0;
}

/* The listeners are the set they were at this entry's last fd read. */
static bool listeners_unchanged(struct proc_cache *c, const struct proc_entry *e, uint64_t now)
{
	int procfd;

	if (!e->ports_read || now - e->ports_fds_at_ns >= PROC_PORTS_MAX_AGE_NS)
		return false;
	procfd = proc_cache_procfd(c);
	return procfd >= 0 && proc_cache_listeners(c, procfd)->sig == e->ports_sig;
}

int proc_refresh_ports_if_older(struct proc_cache *c, struct gtm_process *p, uint64_t max_age_ns)
{
	struct proc_entry *e = c && p && p->pid ? proc_cache_find(c, p->pid) : NULL;
	uint64_t now = c ? c->clock() : 0;
	bool known = max_age_ns && e && e->start_time == p->start_time && e->ports_at_ns;

	if (known && now - e->ports_at_ns < max_age_ns)
		return 1;
	if (known && listeners_unchanged(c, e, now)) {
		e->ports_at_ns = now ? now : 1;
		return 1;
	}
	int r = proc_refresh_ports(c, p);
	if (r == 0 && e && e->start_time == p->start_time)
		e->ports_at_ns = now ? now : 1;
	return r;
}

int64_t proc_start_epoch_s(void)
{
	char buf[8192];
	if (sysroot_read(buf, sizeof buf, "/proc/stat") <= 0)
		return INT64_MIN;
	const char *b = strstr(buf, "\nbtime ");
	return b ? strtoll(b + 7, NULL, 10) : INT64_MIN;
}

bool proc_pid_exists(uint32_t pid)
{
	char buf[4096];
	struct proc_status st;
	struct stat sb;
	ssize_t k;

	if (pid == 0 || sysroot_stat(&sb, "/proc/%u", pid) != 0 || !S_ISDIR(sb.st_mode))
		return false;
	/* /proc/TID of a thread resolves too, though readdir never lists it */
	k = sysroot_read(buf, sizeof buf, "/proc/%u/status", pid);
	if (k > 0 && proc_status_parse(buf, (size_t)k, &st) == 0 && st.has_tgid && st.tgid != pid)
		return false;
	return true;
}
