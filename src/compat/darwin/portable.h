/* The few calls every OS's portable.h declares (see
 * src/compat/linux/portable.h), over macOS's POSIX (those Linux makes the
 * same way: src/compat/posix/portable_posix.h), and the GNU functions the
 * layers use that macOS's C library lacks (memrchr: portable_darwin.c).
 * The macOS build includes this header in every file (-include, see
 * meson.build), as the Windows build does its own. */
#ifndef GTM_PORTABLE_H
#define GTM_PORTABLE_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* (its os_memstream is over open_memstream: macOS 10.13's and later) */
#include "../posix/portable_posix.h"

void *memrchr(const void *s, int c, size_t n);

/* pipe2 (macOS has pipe alone): O_CLOEXEC and O_NONBLOCK set after. */
static inline int pipe2(int fds[2], int flags)
{
	if (pipe(fds) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if (flags & O_CLOEXEC)
			fcntl(fds[i], F_SETFD, FD_CLOEXEC);
		if (flags & O_NONBLOCK)
			fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
	}
	return 0;
}

/* Monotonic waits. macOS has no pthread_condattr_setclock: every condition
 * variable gputaskman waits on with a deadline is set to CLOCK_MONOTONIC,
 * so here the setting is accepted and the wait turns the monotonic
 * deadline into the relative one pthread_cond_timedwait_relative_np takes. */
int gtm_cond_timedwait_mono(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *deadline);
#define pthread_condattr_setclock(attr, clock) ((void)(attr), (void)(clock), 0)
#define pthread_cond_timedwait(c, m, t) gtm_cond_timedwait_mono(c, m, t)
/* clock_nanosleep with TIMER_ABSTIME on CLOCK_MONOTONIC (the one use), over
 * nanosleep: returns 0, or EINTR when a signal cut the sleep short. */
#ifndef TIMER_ABSTIME
#define TIMER_ABSTIME 1
#endif
int gtm_clock_nanosleep(clockid_t clock, int flags, const struct timespec *t, struct timespec *rem);
#define clock_nanosleep(clk, fl, t, rem) gtm_clock_nanosleep(clk, fl, t, rem)
/* sigtimedwait with a zero timeout (the one use: taking a pending SIGPIPE):
 * the pending signal of set through sigwait, else -1 with EAGAIN. */
int gtm_sigtimedwait_now(const sigset_t *set, void *info, const struct timespec *timeout);
#define sigtimedwait(set, info, t) gtm_sigtimedwait_now(set, info, t)

static inline int64_t stat_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtimespec.tv_sec * 1000000000 + st->st_mtimespec.tv_nsec;
}

/* macOS's fsync leaves the data in the drive's cache; F_FULLFSYNC asks the
 * drive to write it (fsync(2)), falling back to fsync where refused. */
static inline int os_fdatasync(int fd)
{
	return fcntl(fd, F_FULLFSYNC) == 0 ? 0 : fsync(fd);
}

/* A *.exe on a Mac is a Windows program run by Wine/CrossOver, mostly games. */
#define OS_EXE_IS_FOREIGN 1

/* macOS has no CPU affinity to ask: the CPUs online. */
static inline int os_usable_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

#endif
