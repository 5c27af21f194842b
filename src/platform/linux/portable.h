/* The few calls whose POSIX form Windows lacks, as every OS folder's
 * portable.h declares them (src/platform/windows/portable.h has the other
 * side). On Linux they are the plain POSIX calls. */
#ifndef GTM_PORTABLE_H
#define GTM_PORTABLE_H

#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* A file's modification time in nanoseconds (caches key on it). */
static inline int64_t stat_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Opens a path (UTF-8) for reading: close-on-exec, never waiting on a FIFO,
 * never becoming our terminal. */
static inline int os_open_read(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

static inline int os_stat(const char *path, struct stat *st)
{
	return stat(path, st);
}

static inline ssize_t os_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off);
}

/* Blocking reads again after os_open_read. */
static inline void os_clear_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

/* The CPUs this process may run on. */
static inline int os_usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 1;
	return CPU_COUNT(&set);
}

#endif
