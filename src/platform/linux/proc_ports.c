/* Listening loopback TCP ports of a process: the loopback LISTEN rows of
 * /proc/net/tcp and tcp6 (Documentation/networking/proc_net_tcp.rst) joined
 * by socket inode with the links of /proc/PID/fd/N ("socket:[INODE]",
 * proc(5) "/proc/pid/fd/"). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_internal.h"
#include "proc_ports.h"

/* fds looked at per process: listeners are opened early, so low fds. */
#define MAX_FDS_READ 65536

void proc_listeners_add_line(struct proc_listeners *t, const char *line, size_t len)
{
	struct proc_tcp_row r;

	if (t->n >= PROC_MAX_LISTENERS || proc_tcp_line_parse(line, len, &r) != 0)
		return;
	if (!proc_tcp_row_is_loopback_listener(&r))
		return;
	t->v = grow_array(t->v, sizeof *t->v, &t->cap, t->n);
	t->v[t->n++] = (struct proc_listener){r.inode, r.port};
}

static int by_inode(const void *a, const void *b)
{
	const struct proc_listener *x = a, *y = b;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

void proc_listeners_finish(struct proc_listeners *t)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a over the sorted set */

	if (t->n > 1)
		qsort(t->v, t->n, sizeof *t->v, by_inode);
	for (size_t i = 0; i < t->n; i++)
		h = (h ^ (t->v[i].inode * 65537u + t->v[i].port)) * 1099511628211ull;
	t->sig = h;
	t->loaded = true;
}

int proc_listeners_port(const struct proc_listeners *t, uint64_t inode)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].inode == inode)
			return t->v[mid].port;
		if (t->v[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void add_line(const char *line, size_t len, void *ctx)
{
	proc_listeners_add_line(ctx, line, len);
}

void proc_listeners_load_files(struct proc_listeners *t, int procfd, char *io, size_t cap)
{
	static const char *const files[] = {"net/tcp", "net/tcp6"};

	t->n = 0;
	for (size_t i = 0; i < ARRAY_LEN(files); i++) {
		int fd = sysroot_proc_openat(procfd, files[i], O_RDONLY);
		if (fd < 0)
			continue; /* no IPv6, or a tree without it */
		proc_fd_for_each_line(fd, io, cap, add_line, t);
		close(fd);
	}
	proc_listeners_finish(t);
}

/* The listener set before the last change a load saw (proc_ports.h), one
 * for the process: its sig names the set whichever cache loaded it, and a
 * row's ports are only kept against the set of the row's own last fd read. */
static struct {
	pthread_mutex_t lock;
	struct proc_listeners before, scratch; /* scratch: the set being replaced, until the new one is known */
} last_change = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}};

static void listeners_copy(struct proc_listeners *dst, const struct proc_listeners *src)
{
	dst->n = 0;
	if (src->n > dst->cap) {
		free(dst->v);
		dst->v = xmalloc(src->n * sizeof *dst->v);
		dst->cap = src->n;
	}
	if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof *dst->v);
	dst->n = src->n;
	dst->sig = src->sig;
	dst->loaded = src->loaded;
}

void proc_listeners_load(struct proc_listeners *t, int procfd, char *io, size_t cap)
{
	bool had = t->loaded;

	pthread_mutex_lock(&last_change.lock);
	if (had)
		listeners_copy(&last_change.scratch, t);
	if (!sysroot_prefix()[0] && proc_listeners_load_diag(t, io, cap) == 0)
		proc_listeners_finish(t);
	else
		proc_listeners_load_files(t, procfd, io, cap);
	if (had && t->sig != last_change.scratch.sig) {
		struct proc_listeners swap = last_change.before;
		last_change.before = last_change.scratch;
		last_change.scratch = swap;
	}
	pthread_mutex_unlock(&last_change.lock);
}

static bool has_port(const uint16_t *ports, int n, uint16_t port)
{
	for (int i = 0; i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

bool proc_listeners_removed_only(const struct proc_listeners *before, const struct proc_listeners *now,
				 const uint16_t *ports, int n)
{
	size_t j = 0;

	if (n >= PROC_MAX_PORTS || now->n > before->n)
		return false;
	/* both sorted by inode (proc_listeners_finish): one merge */
	for (size_t i = 0; i < before->n; i++) {
		const struct proc_listener *b = &before->v[i];
		if (j < now->n && now->v[j].inode < b->inode)
			return false; /* a listener that was not there */
		if (j < now->n && now->v[j].inode == b->inode) {
			if (now->v[j++].port != b->port)
				return false;
		} else if (has_port(ports, n, b->port)) {
			return false; /* gone, and perhaps the process's: read */
		}
	}
	return j == now->n;
}

bool proc_listeners_kept_since(uint64_t before_sig, const struct proc_listeners *now, const uint16_t *ports, int n)
{
	bool kept;

	pthread_mutex_lock(&last_change.lock);
	kept = last_change.before.loaded && last_change.before.sig == before_sig &&
	       proc_listeners_removed_only(&last_change.before, now, ports, n);
	pthread_mutex_unlock(&last_change.lock);
	return kept;
}

void proc_listeners_free(struct proc_listeners *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}

static void add_port(uint16_t *ports, int *n, uint16_t port)
{
	int i = 0;

	while (i < *n && ports[i] < port)
		i++;
	if ((i < *n && ports[i] == port) || *n >= PROC_MAX_PORTS)
		return;
	memmove(ports + i + 1, ports + i, (size_t)(*n - i) * sizeof *ports);
	ports[i] = port;
	(*n)++;
}

int proc_read_ports(int procfd, uint32_t pid, const struct proc_listeners *t, uint16_t *ports, int *n)
{
	char path[32], link[64];
	struct dirent *e;
	int dfd, seen = 0;
	DIR *d;

	*n = 0;
	snprintf(path, sizeof path, "%u/fd", pid);
	dfd = sysroot_proc_openat(procfd, path, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return -1;
	d = fdopendir(dfd);
	if (!d) {
		int err = errno;
		close(dfd);
		errno = err;
		return -1;
	}
	while ((e = readdir(d)) && seen++ < MAX_FDS_READ) {
		if (e->d_name[0] == '.')
			continue;
		ssize_t k = readlinkat(dfd, e->d_name, link, sizeof link - 1);
		if (k <= 0)
			continue; /* closed meanwhile */
		uint64_t ino = proc_socket_inode(link, (size_t)k);
		int port = ino ? proc_listeners_port(t, ino) : -1;
		if (port >= 0)
			add_port(ports, n, (uint16_t)port);
	}
	closedir(d);
	return 0;
}
