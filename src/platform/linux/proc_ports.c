/* Listening loopback TCP ports of a process: the loopback LISTEN rows of
 * /proc/net/tcp and tcp6 (Documentation/networking/proc_net_tcp.rst) joined
 * by socket inode with the links of /proc/PID/fd/N ("socket:[INODE]",
 * proc(5) "/proc/pid/fd/"). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_internal.h"

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

void proc_listeners_load(struct proc_listeners *t, int procfd, char *io, size_t cap)
{
	if (!sysroot_prefix()[0] && proc_listeners_load_diag(t, io, cap) == 0)
		proc_listeners_finish(t);
	else
		proc_listeners_load_files(t, procfd, io, cap);
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
