#include "core/sysroot.h"
#include "portable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot_os.h"

int sysroot_close_keep_errno(int fd, int r)
{
	int err = errno;
	close(fd);
	errno = err;
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

static ssize_t read_abs(const char *abs, char *buf, size_t cap)
{
	int fd;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	/* O_NONBLOCK: a FIFO in a replayed tree, or one a process's environment
	 * names (an HF cache's refs/main), must not stop the refresh (issue 11) */
	fd = sysroot_os_open(abs, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t n = read_fd_bounded(fd, buf, cap, false);
	sysroot_close_keep_errno(fd, 0);
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
	return sysroot_os_open(path, flags);
}

DIR *sysroot_opendir(const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, NULL);
	return sysroot_os_opendir(path);
}

ssize_t sysroot_readlink(char *buf, size_t cap, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return sysroot_os_readlink(path, buf, cap);
}

int sysroot_stat(struct stat *st, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return sysroot_os_stat(path, st);
}

int sysroot_access(int mode, const char *fmt, ...)
{
	char path[4096];

	FORMAT_PATH(path, fmt, -1);
	return sysroot_os_access(path, mode);
}

char *sysroot_slurp(size_t max, size_t *len, const char *fmt, ...)
{
	char path[4096];
	char *buf = NULL;
	size_t cap = 4096, got = 0;
	int fd;

	FORMAT_PATH(path, fmt, NULL);
	fd = sysroot_os_open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
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
	sysroot_close_keep_errno(fd, 0);
	if (!buf)
		return NULL;
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}
