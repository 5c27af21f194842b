#include "sources/drm_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/parallel.h"
#include "core/sysroot.h"
#include "core/util.h"

/* include/linux/sched.h: the task is a kernel thread (stat field 9) */
#define PF_KTHREAD 0x00200000u

/* Refreshes a process whose fd count changed waits before its re-list. */
#define COUNT_RELIST_GAP 3u

/* A cached list is re-read after this many refreshes even when nothing
 * signalled a change (an fd swapped for another keeps the count). */
#define RELIST_EVERY 10u

enum drm_fd_kind drm_fd_classify(const char *target, char *node, size_t cap)
{
	static const struct {
		const char *prefix;
		enum drm_fd_kind kind;
	} kinds[] = {
		{"/dev/dri/renderD", DRM_FD_RENDER},
		{"/dev/dri/card", DRM_FD_PRIMARY},
	};

	if (cap)
		node[0] = '\0';
	if (strcmp(target, "/dev/kfd") == 0)
		return DRM_FD_KFD;
	for (size_t i = 0; i < ARRAY_LEN(kinds); i++) {
		size_t pl = strlen(kinds[i].prefix);
		if (strncmp(target, kinds[i].prefix, pl) != 0)
			continue;
		const char *num = target + pl;
		size_t nd = strspn(num, "0123456789");
		/* digits only: "/dev/dri/card0 (deleted)" is a removed device */
		if (nd == 0 || nd > 6 || num[nd] != '\0')
			return DRM_FD_NONE;
		const char *base = target + strlen("/dev/dri/");
		if (strlen(base) >= cap)
			return DRM_FD_NONE;
		strcpy(node, base);
		return kinds[i].kind;
	}
	return DRM_FD_NONE;
}

/* An unsigned decimal field at *p; advances past it. */
static bool stat_u64(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (*p == end || **p < '0' || **p > '9')
		return false;
	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(**p - '0');
	}
	*out = v;
	return true;
}

bool proc_stat_identity(const char *buf, size_t len, uint64_t *start_time, uint32_t *flags)
{
	const char *p = NULL, *end = buf + len;
	uint64_t v;

	for (size_t i = len; i > 0 && !p; i--)
		if (buf[i - 1] == ')')
			p = buf + i;
	if (!p)
		return false;
	/* after ')': field 3 (state) ... field 9 (flags) ... field 22 (starttime) */
	for (int field = 3; field <= 22; field++) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			return false;
		if (field == 9) {
			if (!stat_u64(&p, end, &v) || v > UINT32_MAX)
				return false;
			*flags = (uint32_t)v;
		} else if (field == 22) {
			return stat_u64(&p, end, start_time);
		}
		while (p < end && *p != ' ')
			p++;
	}
	return false;
}

void drm_scan_init(struct drm_scan *s)
{
	memset(s, 0, sizeof *s);
}

static void proc_clear(struct drm_proc *p)
{
	free(p->fds);
	p->fds = NULL;
	p->n_fds = p->cap_fds = 0;
}

void drm_scan_free(struct drm_scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		proc_clear(&s->procs[i]);
	free(s->procs);
	memset(s, 0, sizeof *s);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The numeric entries of /proc, sorted. */
static uint32_t *list_pids(int procfd, size_t *n)
{
	int fd = openat(procfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	uint32_t *pids = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((e = readdir(d))) {
		const char *s = e->d_name;
		if (*s < '1' || *s > '9' || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
			continue;
		pids = grow_array(pids, sizeof *pids, &cap, *n);
		pids[(*n)++] = (uint32_t)strtoul(s, NULL, 10);
	}
	closedir(d);
	if (!pids)
		pids = xmalloc(sizeof *pids);
	qsort(pids, *n, sizeof *pids, cmp_u32);
	return pids;
}

/* Rebuilds the process table from this refresh's PIDs, keeping cached
 * entries whose PID is still present. */
static void merge_pids(struct drm_scan *s, const uint32_t *pids, size_t n)
{
	struct drm_proc *np = xcalloc(n ? n : 1, sizeof *np);
	size_t j = 0;

	for (size_t i = 0; i < n; i++) {
		while (j < s->n && s->procs[j].pid < pids[i])
			proc_clear(&s->procs[j++]);
		if (j < s->n && s->procs[j].pid == pids[i]) {
			np[i] = s->procs[j++];
		} else {
			np[i].pid = pids[i];
			np[i].fd_count = -1;
		}
	}
	while (j < s->n)
		proc_clear(&s->procs[j++]);
	free(s->procs);
	s->procs = np;
	s->n = s->cap = n;
}

static void fd_add(struct drm_proc *p, int fd, enum drm_fd_kind kind, const char *node)
{
	if (p->n_fds == p->cap_fds) {
		size_t cap = (size_t)p->cap_fds;
		p->fds = grow_array(p->fds, sizeof *p->fds, &cap, (size_t)p->n_fds);
		p->cap_fds = (int)cap;
	}
	struct drm_fd_ref *r = &p->fds[p->n_fds++];
	r->fd = fd;
	r->kind = kind;
	str_copy(r->node, node, sizeof r->node);
	if (kind == DRM_FD_KFD)
		p->kfd = true;
}

/* Reads a process's start time and flags through the /proc folder fd. */
static bool read_identity(int procfd, uint32_t pid, uint64_t *start, uint32_t *flags)
{
	char path[32], buf[1024];
	ssize_t n;

	snprintf(path, sizeof path, "%u/stat", pid);
	int fd = sysroot_proc_openat(procfd, path, O_RDONLY);
	if (fd < 0)
		return false;
	do
		n = read(fd, buf, sizeof buf - 1); /* the kernel writes the line at once */
	while (n < 0 && errno == EINTR);
	close(fd);
	return n > 0 && proc_stat_identity(buf, (size_t)n, start, flags);
}

static void forget(struct drm_proc *p)
{
	proc_clear(p);
	p->listed_gen = 0;
	p->unlistable = p->kfd = p->stale = p->count_changed = false;
	p->fd_count = -1;
	p->key = (struct drm_proc_key){0};
}

static int64_t ts_ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct drm_file_key file_key(const struct stat *st, bool with_size)
{
	return (struct drm_file_key){(uint64_t)st->st_ino, ts_ns(st->st_mtim), ts_ns(st->st_ctim),
				     with_size ? (int64_t)st->st_size : 0};
}

static bool same_file(struct drm_file_key a, struct drm_file_key b)
{
	return a.ino == b.ino && a.mtime_ns == b.mtime_ns && a.ctime_ns == b.ctime_ns && a.size == b.size;
}

/* A key is trusted when every time in it is older than when it was taken by
 * more than a coarse clock tick: a change after that moment then shows. */
#define RACY_MARGIN_NS 100000000

static bool key_settled(const struct drm_proc_key *k, int64_t now_ns)
{
	int64_t newest = k->stat.mtime_ns;
	const int64_t t[] = {k->stat.ctime_ns, k->fd.mtime_ns, k->fd.ctime_ns};
	for (size_t i = 0; i < ARRAY_LEN(t); i++)
		newest = t[i] > newest ? t[i] : newest;
	return newest < now_ns - RACY_MARGIN_NS;
}

/* Start time (only when /proc/PID/stat or the fd folder changed since a
 * trusted look) and fd count; false when the process is gone. */
static bool refresh_identity(int procfd, struct drm_proc *p, int64_t now_ns)
{
	static const char *const names[] = {"stat", "fd"};
	struct stat st[2];
	int err[2];
	uint64_t start;
	uint32_t flags = 0;

	sysroot_proc_stat_names(procfd, p->pid, names, 2, st, err);
	if (err[0])
		return false;
	struct drm_proc_key key = {file_key(&st[0], true), err[1] ? (struct drm_file_key){0} : file_key(&st[1], false),
				   false};
	bool known = p->listed_gen && p->key.trusted && same_file(key.stat, p->key.stat) &&
		     same_file(key.fd, p->key.fd);
	if (!known) {
		if (!read_identity(procfd, p->pid, &start, &flags))
			return false;
		if (p->listed_gen && start != p->start_time)
			forget(p); /* the PID was reused: nothing cached belongs to this process */
		else if (p->listed_gen && p->key.fd.ino && !same_file(key.fd, p->key.fd))
			p->stale = true; /* its fd folder changed (a replayed tree's entries, a new procfs inode) */
		p->start_time = start;
		p->kthread = (flags & PF_KTHREAD) != 0;
	}
	key.trusted = key_settled(&key, now_ns);
	p->key = key;
	/* a kernel thread has no fds, and a folder only root may open */
	if (!p->kthread && !err[1] && st[1].st_size > 0) {
		if (p->fd_count >= 0 && p->fd_count != (int64_t)st[1].st_size)
			p->count_changed = true;
		p->fd_count = (int64_t)st[1].st_size;
	}
	return true;
}

/* Re-reads the links of the cached DRM fds; one that moved marks the list stale
 * and is dropped. */
static void verify_cached(int procfd, struct drm_proc *p)
{
	char path[48], target[256], node[16];
	int kept = 0;

	for (int i = 0; i < p->n_fds; i++) {
		struct drm_fd_ref *r = &p->fds[i];
		snprintf(path, sizeof path, "%u/fd/%d", p->pid, r->fd);
		ssize_t n = sysroot_proc_readlinkat(procfd, path, target, sizeof target);
		if (n > 0 && drm_fd_classify(target, node, sizeof node) == r->kind && strcmp(node, r->node) == 0)
			p->fds[kept++] = *r;
		else
			p->stale = true;
	}
	p->n_fds = kept;
	p->kfd = false;
	for (int i = 0; i < kept; i++)
		p->kfd |= p->fds[i].kind == DRM_FD_KFD;
}

/* One fd link: kept when it names a DRM node or KFD. */
static void consider_fd(struct drm_proc *p, int dfd, const char *name)
{
	char target[256], node[16];

	if (name[0] < '0' || name[0] > '9')
		return;
	ssize_t n = readlinkat(dfd, name, target, sizeof target - 1);
	/* cheap reject: everything we want lives under /dev */
	if (n < 8 || memcmp(target, "/dev/", 5) != 0)
		return;
	target[n] = '\0';
	enum drm_fd_kind k = drm_fd_classify(target, node, sizeof node);
	if (k != DRM_FD_NONE)
		fd_add(p, atoi(name), k, node);
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Reads the fd folder's entries into p's (empty) list; false when the
 * deadline passed first (checked every few hundred fds: a server with 100k
 * fds must not hold up a live refresh). */
static bool read_fd_entries(int dfd, char *dents, size_t cap, struct drm_proc *p, uint64_t deadline)
{
	unsigned seen = 0;
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, dents, cap);
		if (n <= 0)
			return true;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(dents + off);
			if (e->d_reclen == 0 || off + e->d_reclen > n)
				break;
			consider_fd(p, dfd, e->d_name);
			off += e->d_reclen;
			if (deadline && ++seen % 256 == 0 && now_monotonic_ns() > deadline)
				return false;
		}
	}
}

/* Lists /proc/PID/fd with getdents64 into the caller's buffer (no DIR
 * allocation per process), keeping DRM and KFD fds. A re-list cut by the
 * deadline keeps the previous list (and stays due); a first listing always
 * completes, so no process waits forever behind the budget. */
static void list_fds(char *dents, size_t cap, uint32_t gen, int procfd, struct drm_proc *p, uint64_t deadline)
{
	char path[32];
	struct drm_proc old = *p;

	snprintf(path, sizeof path, "%u/fd", p->pid);
	int dfd = sysroot_proc_openat(procfd, path, O_RDONLY | O_DIRECTORY);
	if (dfd < 0) {
		/* ENOENT: it exited; anything else (EACCES) hides its fds from us */
		p->listed_gen = gen;
		p->unlistable = errno != ENOENT;
		p->gone = errno == ENOENT;
		p->n_fds = 0;
		p->kfd = p->stale = p->count_changed = false;
		return;
	}
	p->fds = NULL;
	p->n_fds = p->cap_fds = 0;
	p->kfd = false;
	bool done = read_fd_entries(dfd, dents, cap, p, old.listed_gen ? deadline : 0);
	close(dfd);
	if (!done) {
		free(p->fds);
		*p = old;
		return;
	}
	free(old.fds);
	p->listed_gen = gen;
	p->stale = p->count_changed = false;
	p->unlistable = false;
}

struct list_job {
	int priority;     /* 0 never listed, 1 a cached fd moved, 2 fd count changed, 3 periodic */
	uint32_t listed_gen;
	size_t idx;
};

/* Listing order: never listed, then stale, then oldest listing. */
static int by_priority(const void *a, const void *b)
{
	const struct list_job *x = a, *y = b;
	if (x->priority != y->priority)
		return x->priority - y->priority;
	return (x->listed_gen > y->listed_gen) - (x->listed_gen < y->listed_gen);
}

static bool needs_listing(const struct drm_proc *p, uint32_t gen, bool one_shot)
{
	if (p->kthread && !one_shot)
		return false;
	if (one_shot || p->listed_gen == 0 || p->stale)
		return true;
	/* one process in RELIST_EVERY per refresh, spread by PID, so the cost of
	 * re-listing never lands on one refresh; overdue ones catch up. A changed
	 * fd count (a busy server opens and closes all the time) waits a few
	 * refreshes: new DRM fds in a running process are rare. */
	uint32_t age = gen - p->listed_gen;
	return (age > 0 && (gen + p->pid) % RELIST_EVERY == 0) || age >= 2 * RELIST_EVERY ||
	       (p->count_changed && age >= COUNT_RELIST_GAP);
}

struct list_all {
	struct drm_scan *s;
	const struct list_job *jobs;
	int procfd;
};

static void list_one(void *ctx, size_t k, int worker)
{
	struct list_all *a = ctx;
	_Alignas(8) char dents[16384];

	(void)worker;
	list_fds(dents, sizeof dents, a->s->gen, a->procfd, &a->s->procs[a->jobs[k].idx], 0);
}

/* Processes listed per worker before a thread pays for itself. */
#define LIST_PER_WORKER 64

/* Lists what needs listing, most urgent first, until the budget is spent.
 * Listing is one readlink per fd (1-2 us each on procfs): the cost of a cold
 * scan (bench/drm). Without a budget (one-shot output) every process is
 * listed, spread over threads when there are enough of them; each touches
 * only its own process's entry. */
static void list_within_budget(struct drm_scan *s, int procfd, bool one_shot, uint64_t budget_ns)
{
	struct list_job *jobs = xmalloc((s->n ? s->n : 1) * sizeof *jobs);
	_Alignas(8) char dents[16384];
	size_t m = 0;
	uint64_t t0 = now_monotonic_ns();

	for (size_t i = 0; i < s->n; i++) {
		const struct drm_proc *p = &s->procs[i];
		if (needs_listing(p, s->gen, one_shot))
			jobs[m++] = (struct list_job){p->listed_gen == 0 ? 0 : p->stale ? 1 : p->count_changed ? 2 : 3,
						      p->listed_gen, i};
	}
	if (one_shot || !budget_ns) {
		struct list_all all = {s, jobs, procfd};
		parallel_for(m, parallel_workers(m, LIST_PER_WORKER), list_one, &all);
		for (size_t k = 0; k < m; k++)
			s->n_listed += s->procs[jobs[k].idx].listed_gen == s->gen;
		m = 0;
	}
	qsort(jobs, m, sizeof *jobs, by_priority);
	for (size_t k = 0; k < m; k++) {
		struct drm_proc *p = &s->procs[jobs[k].idx];
		if (budget_ns && now_monotonic_ns() - t0 > budget_ns) {
			p->skipped = p->listed_gen == 0;
			s->n_skipped += p->skipped;
			continue;
		}
		list_fds(dents, sizeof dents, s->gen, procfd, p, t0 + budget_ns);
		s->n_listed += p->listed_gen == s->gen;
	}
	s->listing_ns = now_monotonic_ns() - t0;
	free(jobs);
}

/* One-shot: every process is listed anyway, so start times are read only
 * for those holding DRM fds (about 1 µs saved per process), and for those we
 * could not list: a kernel thread's empty fd folder is closed to non-root. */
static void identify_holders(struct drm_scan *s, int procfd)
{
	for (size_t i = 0; i < s->n; i++) {
		struct drm_proc *p = &s->procs[i];
		uint64_t start;
		uint32_t flags = 0;
		if (p->n_fds == 0 && !p->unlistable)
			continue;
		if (!read_identity(procfd, p->pid, &start, &flags)) {
			p->gone = true;
			continue;
		}
		p->kthread = (flags & PF_KTHREAD) != 0;
		p->unlistable &= !p->kthread;
		if (p->start_time != start && p->start_time != 0)
			p->stale = true;
		p->start_time = start;
	}
}

/* Drops the processes found gone. */
static void compact(struct drm_scan *s)
{
	size_t kept = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->procs[i].gone)
			proc_clear(&s->procs[i]);
		else
			s->procs[kept++] = s->procs[i];
	}
	s->n = kept;
}

int drm_scan_refresh(struct drm_scan *s, bool one_shot, uint64_t budget_ns)
{
	size_t n;
	int procfd = sysroot_open(O_RDONLY | O_DIRECTORY, "/proc");
	uint32_t *pids = procfd >= 0 ? list_pids(procfd, &n) : NULL;

	if (!pids) {
		if (procfd >= 0)
			close(procfd);
		return -1;
	}
	if (++s->gen == 0)
		s->gen = 1;
	s->n_unlistable = s->n_skipped = s->n_listed = 0;
	merge_pids(s, pids, n);
	free(pids);
	int64_t now_ns = (int64_t)now_realtime_ns();
	for (size_t i = 0; i < s->n; i++) {
		struct drm_proc *p = &s->procs[i];
		p->skipped = p->gone = false;
		if (one_shot)
			continue;
		if (!refresh_identity(procfd, p, now_ns))
			p->gone = true;
		else if (p->listed_gen)
			verify_cached(procfd, p);
	}
	compact(s);
	list_within_budget(s, procfd, one_shot, budget_ns);
	if (one_shot)
		identify_holders(s, procfd);
	compact(s);
	close(procfd);
	for (size_t i = 0; i < s->n; i++)
		s->n_unlistable += s->procs[i].unlistable;
	return 0;
}
