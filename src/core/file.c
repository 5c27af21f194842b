#include "core/file.h"
#include "portable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *file_type_refusal(mode_t mode)
{
	if (S_ISREG(mode))
		return NULL;
	if (S_ISFIFO(mode))
		return "is a FIFO, not a file";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "is a device, not a file";
	if (S_ISDIR(mode))
		return "is a directory";
	if (S_ISSOCK(mode))
		return "is a socket, not a file";
	return "is not a regular file";
}

int file_open_regular(const char *path, uint64_t max_bytes, struct stat *st, const char **why)
{
	/* O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer;
	 * O_NOCTTY: a terminal device must not become our controlling one. */
	int fd = os_open_read(path);
	if (fd < 0) {
		*why = errno == ENOENT ? "no such file" : strerror(errno);
		return -1;
	}
	if (fstat(fd, st) != 0) {
		int e = errno;
		*why = strerror(e);
		close(fd);
		errno = e;
		return -1;
	}
	const char *refusal = file_type_refusal(st->st_mode);
	if (!refusal && (uint64_t)st->st_size > max_bytes) {
		/* one static text per limit in use is enough: the limits are constants */
		static _Thread_local char too_big[48];
		snprintf(too_big, sizeof too_big, "larger than %llu MiB", (unsigned long long)(max_bytes >> 20));
		refusal = too_big;
		errno = EFBIG;
	} else if (refusal) {
		errno = EINVAL;
	}
	if (refusal) {
		int e = errno;
		*why = refusal;
		close(fd);
		errno = e;
		return -1;
	}
	os_clear_nonblock(fd);
	return fd;
}
