/* Windows's half of core/sysroot.h: the observed system is this machine.
 * GPUTASKMAN_ROOT replays a Linux /proc and /sys tree, which means nothing
 * here: when it is set, sysroot_problem (../sysroot_local.c) says so and
 * every read fails. */
#include "core/sysroot_os.h"

#include <errno.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "portable.h"

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
	return os_open_read(abs);
}

int sysroot_os_stat(const char *abs, struct stat *st)
{
	if (sysroot_problem()) {
		errno = ENOENT;
		return -1;
	}
	return os_stat(abs, st);
}

ssize_t sysroot_os_readlink(const char *abs, char *buf, size_t cap)
{
	(void)abs;
	(void)buf;
	(void)cap;
	errno = EINVAL; /* no path of the Windows platform is a symbolic link to read */
	return -1;
}

int sysroot_os_access(const char *abs, int mode)
{
	struct stat st;
	(void)mode;
	return sysroot_os_stat(abs, &st);
}

DIR *sysroot_os_opendir(const char *abs)
{
	if (sysroot_problem()) {
		errno = ENOENT;
		return NULL;
	}
	return opendir(abs);
}
