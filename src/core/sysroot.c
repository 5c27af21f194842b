#include "core/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[4096];
static int root_ready;
static char problem[160];

void sysroot_reset(void)
{
	const char *r = getenv("GPUTASKMAN_ROOT");
	size_t n;

	root[0] = '\0';
	problem[0] = '\0';
	if (r && *r && strlen(r) >= sizeof root)
		snprintf(problem, sizeof problem, "GPUTASKMAN_ROOT is longer than %zu bytes", sizeof root - 1);
	if (r && *r && strlen(r) < sizeof root) {
		strcpy(root, r);
		n = strlen(root);
		while (n > 0 && root[n - 1] == '/')
			root[--n] = '\0';
	}
	root_ready = 1;
}

const char *sysroot_problem(void)
{
	struct stat st;

	if (!root_ready)
		sysroot_reset();
	if (problem[0])
		return problem;
	if (root[0] && (stat(root, &st) != 0 || !S_ISDIR(st.st_mode))) {
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

static int vpath(char *out, size_t n, const char *fmt, va_list ap)
{
	const char *pre = sysroot_prefix();
	size_t plen = strlen(pre);
	int k;

	if (plen >= n)
		return -1;
	memcpy(out, pre, plen);
	k = vsnprintf(out + plen, n - plen, fmt, ap);
	if (k < 0 || (size_t)k >= n - plen)
		return -1;
	return 0;
}

/* Formats the caller's variadic path into `path` (a char array), or returns
 * `fail` from the caller with errno ENAMETOOLONG. */
#define FORMAT_PATH(path, fmt, fail)                                      \
	do {                                                              \
		va_list ap_;                                              \
		va_start(ap_, fmt);                                       \
		int r_ = vpath(path, sizeof path, fmt, ap_);              \
		va_end(ap_);                                              \
		if (r_ < 0) {                                             \
			errno = ENAMETOOLONG;                             \
			return fail;                                      \
		}                                                         \
	} while (0)

int sysroot_path(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(out, n, fmt, ap);
	va_end(ap);
	return r;
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

ssize_t read_file_bounded(const char *path, char *buf, size_t cap)
{
	int fd;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read_fd_bounded(fd, buf, cap, false);
	int err = errno;
	close(fd);
	errno = err;
	return n;
}

ssize_t sysroot_read(char *buf, size_t cap, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return read_file_bounded(path, buf, cap);
}

int sysroot_open(int flags, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return open(path, flags | O_CLOEXEC);
}

DIR *sysroot_opendir(const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, NULL);
	return opendir(path);
}

ssize_t sysroot_readlink(char *buf, size_t cap, const char *fmt, ...)
{
	char path[4096];
	ssize_t n;

	FORMAT_PATH(path, fmt, -1);
	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	n = readlink(path, buf, cap - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

char *sysroot_slurp(size_t max, size_t *len, const char *fmt, ...)
{
	char path[4096];
	char *buf = NULL;
	size_t cap = 4096, got = 0;
	int fd;

	FORMAT_PATH(path, fmt, NULL);
	fd = open(path, O_RDONLY | O_CLOEXEC);
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
