/* Reads one process's details (proc(5)): cmdline, exe, cwd, status, maps,
 * environ and listening ports. Called for a new (PID, start time) and when
 * the rescan rule fires, never on a steady refresh. The detail it builds is
 * immutable once published; a rescan builds a new one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_internal.h"

void proc_pid_file(char *out, size_t n, uint32_t pid, const char *what)
{
	char digits[10];
	size_t k = 0, at = 0;

	do
		digits[k++] = (char)('0' + pid % 10);
	while ((pid /= 10) != 0);
	while (k && at + 1 < n)
		out[at++] = digits[--k];
	if (at + 1 < n)
		out[at++] = '/';
	while (*what && at + 1 < n)
		out[at++] = *what++;
	if (n)
		out[at] = '\0';
}

static bool is_gone_errno(int e) { return e == ENOENT || e == ESRCH; }
static bool is_denied_errno(int e) { return e == EACCES || e == EPERM; }

/* Another file of the process went missing: gone if its stat went too. */
static bool pid_gone(int procfd, uint32_t pid)
{
	char path[32];
	struct stat st;
	proc_pid_file(path, sizeof path, pid, "stat");
	return sysroot_proc_fstatat(procfd, path, &st) != 0 && is_gone_errno(errno);
}

/* One small /proc/PID file into buf (NUL-terminated), relative to the /proc
 * folder's fd rather than a root-prefixed path walked from "/". The kernel
 * hands cmdline, environ and status over whole in one read when they fit
 * (fs/proc/base.c loops over the pages asked for; single_open files are
 * rendered whole), and a fixture tree's regular file does the same, so a
 * short read is the end: no second read just to see 0. */
static ssize_t read_small(int procfd, uint32_t pid, const char *what, char *buf, size_t cap)
{
	char path[48];
	int fd;

	proc_pid_file(path, sizeof path, pid, what);
	fd = sysroot_proc_openat(procfd, path, O_RDONLY | O_NOCTTY);
	if (fd < 0)
		return -1;
	ssize_t n = read_fd_bounded(fd, buf, cap, true);
	int err = errno;
	close(fd);
	errno = err;
	return n;
}

static char *read_link(int procfd, uint32_t pid, const char *what, bool *denied)
{
	char path[48], target[PATH_MAX];
	ssize_t k;

	proc_pid_file(path, sizeof path, pid, what);
	k = sysroot_proc_readlinkat(procfd, path, target, sizeof target);
	if (k < 0) {
		if (is_denied_errno(errno))
			*denied = true;
		return NULL; /* ENOENT: a kernel thread or a zombie has none */
	}
	return xstrndup(target, (size_t)k);
}

/* cmdline: a NUL-separated argv. Returns -1 when the process is gone. */
static int read_cmdline(int procfd, char *io, uint32_t pid, struct gtm_proc_detail *d, bool *denied)
{
	ssize_t k = read_small(procfd, pid, "cmdline", io, PROC_CMDLINE_MAX + 1);

	if (k < 0) {
		if (is_gone_errno(errno))
			return -1;
		*denied = *denied || is_denied_errno(errno);
		k = 0;
	}
	d->argv = proc_split_nul(io, (size_t)k, 4096, &d->argc);
	return 0;
}

/* Only for files owned by root: a non-dumpable process's /proc files are
 * root's whoever runs it (fs/proc/base.c task_dump_owner()). */
static void read_status_uid(int procfd, char *io, struct proc_entry *e, bool by_pidfd)
{
	struct proc_status st;
	ssize_t k;

	e->has_status_uid = false;
	if (e->stat_uid != 0)
		return;
	if (by_pidfd && proc_pidfd_euid(e->pid, &e->status_uid) == 0) {
		e->has_status_uid = true;
		return;
	}
	k = read_small(procfd, e->pid, "status", io, 8192);
	e->has_status_uid = k > 0 && proc_status_parse(io, (size_t)k, &st) == 0 && st.has_uid;
	if (e->has_status_uid)
		e->status_uid = st.uid_effective;
}

static void add_maps_line(const char *line, size_t len, void *list)
{
	proc_path_list_add_maps_line(list, line, len);
}

/* maps: distinct file paths, and the executable's if a range of its file
 * covers start_code (the kernel's start of the executable's text): *exe,
 * else left NULL. Returns -1 when the process is gone. */
static int read_maps(int procfd, char *io, uint32_t pid, struct gtm_proc_detail *d, bool *denied,
		     const struct proc_detail_how *how, uint64_t start_code, char **exe)
{
	struct proc_path_list list = {0};
	struct proc_maps_ask ask = {.spans = how->spans, .covering = start_code, .covering_path = SIZE_MAX};
	char path[32];
	int fd;

	proc_pid_file(path, sizeof path, pid, "maps");
	fd = sysroot_proc_openat(procfd, path, O_RDONLY);
	if (fd < 0) {
		if (is_denied_errno(errno))
			*denied = true;
		return is_gone_errno(errno) && pid_gone(procfd, pid) ? -1 : 0;
	}
	int r = proc_maps_query(fd, io, PATH_MAX, &list, &ask);
	if (r == 1 || (r < 0 && !is_gone_errno(errno))) {
		ask.covering_path = SIZE_MAX;
		r = proc_fd_for_each_line(fd, io, PROC_IO_BUF, add_maps_line, &list);
	}
	int err = errno;
	close(fd);
	if (r != 0 && is_gone_errno(err)) {
		proc_path_list_free(&list);
		return -1;
	}
	if (r == 0 && ask.covering_path < list.n)
		*exe = xstrdup(list.v[ask.covering_path]);
	d->maps = proc_path_list_take(&list, &d->n_maps);
	return 0;
}

/* environ: the first PROC_ENVIRON_MAX bytes, cut after the last whole entry.
 * An unreadable one is recorded as empty, so it is not asked for again. */
static void read_environ(int procfd, char *io, uint32_t pid, struct gtm_proc_detail *d, bool *denied)
{
	ssize_t k = read_small(procfd, pid, "environ", io, PROC_ENVIRON_MAX + 1);
	size_t n;

	if (k < 0) {
		*denied = *denied || is_denied_errno(errno);
		k = 0;
	}
	n = (size_t)k;
	if (n == PROC_ENVIRON_MAX) {
		const char *z = memrchr(io, '\0', n);
		n = z ? (size_t)(z - io) + 1 : 0;
	}
	proc_detail_set_environ(d, io, n);
}

/* Returns -1 when the process is gone. */
static int read_ports(int procfd, const struct proc_listeners *t, struct proc_entry *e, bool *denied)
{
	e->n_ports = 0;
	if (t->n == 0)
		return 0; /* nothing listens on loopback: no fd to look at */
	if (proc_read_ports(procfd, e->pid, t, e->ports, &e->n_ports) == 0)
		return 0;
	if (is_denied_errno(errno))
		*denied = true;
	return is_gone_errno(errno) && pid_gone(procfd, e->pid) ? -1 : 0;
}

enum proc_detail_result proc_detail_read(int procfd, char *io, const struct proc_detail_how *how,
					 struct proc_entry *e)
{
	const struct proc_listeners *ports = how->ports;
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	bool denied = false;

	atomic_init(&d->refs, 1);
	if (how->kthread) {
		d->argv = xcalloc(1, sizeof *d->argv);
		e->n_ports = 0;
	} else {
		if (read_cmdline(procfd, io, e->pid, d, &denied) != 0)
			goto gone;
		d->cwd = read_link(procfd, e->pid, "cwd", &denied);
		read_status_uid(procfd, io, e, how->pidfd_uid);
		/* the executable: the file whose range covers the start of its text,
		 * as the walk of maps names it (the same struct file the kernel
		 * mapped at exec and keeps as exe_file: the same path); the exe
		 * link where the walk cannot say */
		if (read_maps(procfd, io, e->pid, d, &denied, how, how->start_code, &d->exe) != 0)
			goto gone;
		if (!d->exe)
			d->exe = read_link(procfd, e->pid, "exe", &denied);
		if (how->defer_environ)
			d->environ_deferred = true;
		else
			read_environ(procfd, io, e->pid, d, &denied);
		if (ports && read_ports(procfd, ports, e, &denied) != 0)
			goto gone;
		e->ports_read = ports != NULL || e->ports_read;
	}
	proc_detail_unref(e->detail);
	e->detail = d;
	e->detailed = true;
	e->denied = denied;
	return PROC_DETAIL_OK;
gone:
	proc_detail_unref(d);
	return PROC_DETAIL_GONE;
}

/* The start time in PID's stat now, or 0 when it cannot be read. */
static uint64_t start_time_now(int procfd, uint32_t pid, char *io)
{
	struct proc_stat st;
	ssize_t k = read_small(procfd, pid, "stat", io, 1024);

	return k > 0 && proc_stat_parse(io, (size_t)k, &st) == 0 ? st.start_time : 0;
}

void proc_detail_load_environ(struct proc_cache *c, const struct gtm_process *p)
{
	struct gtm_proc_detail *d = p ? p->detail : NULL;
	bool denied = false;
	int procfd;

	if (!d || !d->environ_deferred || proc_detail_environ(d) || !p->pid)
		return;
	procfd = proc_cache_procfd(c);
	if (procfd < 0)
		return;
	/* the PID may name another process by now: keep what was read only if
	 * the start time (read after it) is still the row's */
	struct gtm_proc_detail scratch = {0};
	read_environ(procfd, c->io, p->pid, &scratch, &denied);
	const struct gtm_proc_env *env = proc_detail_environ(&scratch);
	if (start_time_now(procfd, p->pid, c->io) == p->start_time)
		proc_detail_set_environ(d, env->blob, env->len);
	else
		proc_detail_set_environ(d, "", 0);
	free(atomic_load(&scratch.env));
}
