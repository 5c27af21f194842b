/* macOS's half of core/sysroot.h: the observed system is this Mac.
 * GPUTASKMAN_ROOT replays a Linux /proc and /sys tree, which means nothing
 * here: when it is set, sysroot_problem (../sysroot_local.c) says so and
 * every read fails. */
#include "core/sysroot_os.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int sysroot_os_open(const char *abs, int flags)
{
	if (sysroot_problem()) {
		errno = ENOENT;
		return -1;
	}
	if ((flags & O_ACCMODE) != O_RDONLY) {
		errno = EACCES; /* the observed system is only ever read */
		return -1;
	}
	return open(abs, flags | O_CLOEXEC);
}

int sysroot_os_stat(const char *abs, struct stat *st)
{
	if (sysroot_problem()) {
		errno = ENOENT;
		return -1;
	}
	return stat(abs, st);
}

ssize_t sysroot_os_readlink(const char *abs, char *buf, size_t cap)
{
	if (sysroot_problem() || cap == 0) {
		errno = ENOENT;
		return -1;
	}
	ssize_t n = readlink(abs, buf, cap - 1);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int sysroot_os_access(const char *abs, int mode)
{
	if (sysroot_problem()) {
		errno = ENOENT;
		return -1;
	}
	return access(abs, mode);
}

DIR *sysroot_os_opendir(const char *abs)
{
	if (sysroot_problem()) {
		errno = ENOENT;
		return NULL;
	}
	return opendir(abs);
}
