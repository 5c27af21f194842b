/* The few calls whose POSIX form Windows lacks, as every OS's portable.h
 * declares them (src/compat/windows/portable.h has the other side). On
 * Linux they are the plain POSIX calls: those macOS makes the same way are
 * in src/compat/posix/portable_posix.h, the rest here. */
#ifndef GTM_PORTABLE_H
#define GTM_PORTABLE_H

#include <sched.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../posix/portable_posix.h"

/* A file's modification time in nanoseconds (caches key on it). */
static inline int64_t stat_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The file's data on the disk (not necessarily its times). */
static inline int os_fdatasync(int fd)
{
	return fdatasync(fd);
}

/* A program named *.exe is a Windows program here, run by Wine or Proton: on
 * Linux most such are games (identify/category.c); on Windows every program is. */
#define OS_EXE_IS_FOREIGN 1

/* The CPUs this process may run on. */
static inline int os_usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 1;
	return CPU_COUNT(&set);
}

#endif
