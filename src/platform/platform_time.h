/* Time and waiting, one implementation per OS (platform/linux/time_linux.c,
 * platform/windows/time_windows.c): the monotonic clock, a lock with a
 * condition to wait on until a deadline or until woken, and a sleep until a
 * deadline that a stop flag cuts short.
 *
 * Every deadline is on the clock of now_monotonic_ns (core/util.h, defined
 * beside these functions so that the clock and the waits agree). The waits
 * are the OS's own, never POSIX emulated over another clock: mingw's
 * winpthreads rejects pthread_condattr_setclock(CLOCK_MONOTONIC), so a
 * monotonic deadline read as a wall-clock one is long past, and its
 * clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) fails without sleeping;
 * either made every wait return at once. */
#ifndef GTM_PLATFORM_TIME_H
#define GTM_PLATFORM_TIME_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A deadline that never comes: wait until woken. */
#define OS_WAIT_FOREVER UINT64_MAX

/* A lock and one condition waited on under it. */
struct os_monitor;

/* NULL, with why (a sentence) filled, when the OS refused to make one. */
struct os_monitor *os_monitor_new(char *why, size_t cap);
void os_monitor_free(struct os_monitor *m);
void os_monitor_lock(struct os_monitor *m);
void os_monitor_unlock(struct os_monitor *m);
/* Wakes every waiter (call with the lock held or not). */
void os_monitor_wake(struct os_monitor *m);
/* With the lock held: releases it, waits until woken or until deadline_ns
 * (now_monotonic_ns's clock; OS_WAIT_FOREVER: no deadline), takes it again.
 * Returns true when the deadline has passed. A wake may be spurious: the
 * caller checks what it waits for. Never returns before the deadline without
 * having waited, so a loop over it cannot spin. */
bool os_monitor_wait_until(struct os_monitor *m, uint64_t deadline_ns);

/* Sleeps until deadline_ns, or until *stop is non-zero (set by a stop signal
 * handler, which may run on another thread: Windows's console runs it on one
 * of its own, and Linux delivers a process's signal to any thread, so the
 * sleep looks at the flag at least every 100 ms). Returns true when the
 * deadline passed, false when stopped. */
bool os_sleep_until(uint64_t deadline_ns, const volatile sig_atomic_t *stop);

#endif
