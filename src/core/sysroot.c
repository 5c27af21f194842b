#include "core/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysroot_resolve.h"

static char root[4096];
static int rootfd = -1; /* the root folder (O_PATH): every path is resolved from it */
static int root_ready;
static char problem[160];

void sysroot_reset(void)
{
	const char *r = getenv("GPUTASKMAN_ROOT");
	size_t n;

	root[0] = '\0';
	problem[0] = '\0';
	if (rootfd >= 0)
		close(rootfd);
	rootfd = -1;
	if (r && *r && strlen(r) >= sizeof root)
		snprintf(problem, sizeof problem, "GPUTASKMAN_ROOT is longer than %zu bytes", sizeof root - 1);
	if (r && *r && strlen(r) < sizeof root) {
		strcpy(root, r);
		n = strlen(root);
		while (n > 0 && root[n - 1] == '/')
			root[--n] = '\0';
	}
	/* The root's own path is this machine's and is opened as given; what
	 * lies under it is resolved from this fd and never leaves it. */
	if (root[0])
		rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	root_ready = 1;
}

const char *sysroot_problem(void)
{
	struct stat st;

	if (!root_ready)
		sysroot_reset();
	if (problem[0])
		return problem;
	if (root[0] && (rootfd < 0 || fstat(rootfd, &st) != 0 || !S_ISDIR(st.st_mode))) {
		snprintf(problem, sizeof problem, "GPUTASKMAN_ROOT=%.100s is not a folder", root);
		return problem;
	}
	return NULL;
}

const char *sysroot_prefix(void)
{
	if (!root_ready)
		sysroot_reset();
	return root;
}

/* Closes fd and returns r, keeping the errno r came with. */
static int close_keep_errno(int fd, int r)
{
	int err = errno;
	close(fd);
	errno = err;
	return r;
}

/* The one place a path of the observed system becomes a file: under "/" a
 * plain open (the live scan pays nothing), under a root resolved inside it
 * (platform/linux/sysroot_resolve.c). A relative path counts from the root too, never
 * from this process's working folder. */
static int open_abs(const char *abs, int flags)
{
	if (!sysroot_prefix()[0])
		return open(abs, flags | O_CLOEXEC);
	if (rootfd < 0) {
		errno = ENOENT;
		return -1;
	}
	return resolve_open(rootfd, abs, flags);
}

static int stat_abs(const char *abs, struct stat *st)
{
	if (!sysroot_prefix()[0])
		return stat(abs, st);
	int fd = open_abs(abs, O_PATH);
	if (fd < 0)
		return -1;
	return close_keep_errno(fd, fstat(fd, st));
}

static ssize_t readlink_abs(const char *abs, char *buf, size_t cap)
{
	ssize_t n;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	if (!sysroot_prefix()[0]) {
		n = readlink(abs, buf, cap - 1);
	} else {
		/* the link itself (O_PATH | O_NOFOLLOW), read through its fd */
		int fd = open_abs(abs, O_PATH | O_NOFOLLOW);
		if (fd < 0)
			return -1;
		n = readlinkat(fd, "", buf, cap - 1);
		close_keep_errno(fd, 0);
	}
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

ssize_t read_fd_bounded(int fd, char *buf, size_t cap, bool short_is_end)
{
	size_t got = 0;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	while (got < cap - 1) {
		size_t want = cap - 1 - got;
		ssize_t r = read(fd, buf + got, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
		if (short_is_end && (size_t)r < want)
			break;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

static ssize_t read_abs(const char *abs, char *buf, size_t cap)
{
	int fd;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	/* O_NONBLOCK: a FIFO in a replayed tree, or one a process's environment
	 * names (an HF cache's refs/main), must not stop the refresh (issue 11) */
	fd = open_abs(abs, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t n = read_fd_bounded(fd, buf, cap, false);
	close_keep_errno(fd, 0);
	return n;
}

/* Formats the caller's variadic path into `path` (a char array), or returns
 * `fail` from the caller with errno ENAMETOOLONG. */
#define FORMAT_PATH(path, fmt, fail)                                      \
	do {                                                              \
		va_list ap_;                                              \
		va_start(ap_, fmt);                                       \
		int k_ = vsnprintf(path, sizeof path, fmt, ap_);          \
		va_end(ap_);                                              \
		if (k_ < 0 || (size_t)k_ >= sizeof path) {                \
			errno = ENAMETOOLONG;                             \
			return fail;                                      \
		}                                                         \
	} while (0)

ssize_t sysroot_read(char *buf, size_t cap, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return read_abs(path, buf, cap);
}

int sysroot_open(int flags, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return open_abs(path, flags);
}

DIR *sysroot_opendir(const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, NULL);
	int fd = open_abs(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d)
		close_keep_errno(fd, 0);
	return d;
}

ssize_t sysroot_readlink(char *buf, size_t cap, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return readlink_abs(path, buf, cap);
}

int sysroot_stat(struct stat *st, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return stat_abs(path, st);
}

int sysroot_access(int mode, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	if (!sysroot_prefix()[0])
		return access(path, mode);
	/* readable is "opens for reading" here: the resolution ends in an fd */
	int fd = open_abs(path, mode & R_OK ? O_RDONLY | O_NONBLOCK | O_NOCTTY : O_PATH);
	if (fd < 0)
		return -1;
	return close_keep_errno(fd, 0);
}

/* "/proc/<rel>", what a call relative to the /proc fd means under a root. */
static int proc_path(char *out, size_t n, const char *rel)
{
	if ((size_t)snprintf(out, n, "/proc/%s", rel) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int sysroot_proc_openat(int procfd, const char *rel, int flags)
{
	char path[4096];

	if (!sysroot_prefix()[0])
		return openat(procfd, rel, flags | O_CLOEXEC);
	/* a replayed tree may hold a FIFO where procfs has a file: never wait on it */
	if (!(flags & (O_DIRECTORY | O_PATH)))
		flags |= O_NONBLOCK;
	return proc_path(path, sizeof path, rel) != 0 ? -1 : open_abs(path, flags);
}

ssize_t sysroot_proc_readlinkat(int procfd, const char *rel, char *buf, size_t cap)
{
	char path[4096];

	if (sysroot_prefix()[0])
		return proc_path(path, sizeof path, rel) != 0 ? -1 : readlink_abs(path, buf, cap);
	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	ssize_t n = readlinkat(procfd, rel, buf, cap - 1);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int sysroot_proc_fstatat(int procfd, const char *rel, struct stat *st)
{
	char path[4096];

	if (!sysroot_prefix()[0])
		return fstatat(procfd, rel, st, 0);
	return proc_path(path, sizeof path, rel) != 0 ? -1 : stat_abs(path, st);
}

char *sysroot_slurp(size_t max, size_t *len, const char *fmt, ...)
{
	char path[4096];
	char *buf = NULL;
	size_t cap = 4096, got = 0;
	int fd;

	FORMAT_PATH(path, fmt, NULL);
	fd = open_abs(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (!buf || got + 1 >= cap) {
			if (buf)
				cap *= 2;
			if (cap > max + 1)
				cap = max + 1;
			char *nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		if (got >= max)
			break;
		ssize_t k = read(fd, buf + got, cap - 1 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}
