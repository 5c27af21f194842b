/* platform/platform_time.h on Linux: CLOCK_MONOTONIC, a pthread condition on
 * that clock, clock_nanosleep with an absolute deadline. The macOS build
 * compiles this file too: its portable.h turns the monotonic condition and
 * clock_nanosleep into the relative waits macOS has. */
#include "platform/platform_time.h"

#include "portable.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"

/* The longest a sleep goes without looking at its stop flag. */
#define STOP_POLL_NS (100ull * 1000000ull)

struct os_monitor {
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

uint64_t now_monotonic_ns(void)
{
	struct timespec ts;
	/* CLOCK_MONOTONIC exists on every Linux; a failure would be a kernel bug */
	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		abort();
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec to_timespec(uint64_t ns)
{
	return (struct timespec){(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
}

struct os_monitor *os_monitor_new(char *why, size_t cap)
{
	struct os_monitor *m = xcalloc(1, sizeof *m);
	pthread_condattr_t ca;
	int e;

	if ((e = pthread_condattr_init(&ca)) != 0) {
		snprintf(why, cap, "cannot make a condition variable: %s", strerror(e));
		free(m);
		return NULL;
	}
	if ((e = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)) != 0 || (e = pthread_cond_init(&m->cv, &ca)) != 0) {
		snprintf(why, cap, "cannot make a condition variable on the monotonic clock: %s", strerror(e));
		pthread_condattr_destroy(&ca);
		free(m);
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	if ((e = pthread_mutex_init(&m->mu, NULL)) != 0) {
		snprintf(why, cap, "cannot make a mutex: %s", strerror(e));
		pthread_cond_destroy(&m->cv);
		free(m);
		return NULL;
	}
	return m;
}

void os_monitor_free(struct os_monitor *m)
{
	if (!m)
		return;
	pthread_cond_destroy(&m->cv);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

/* A default mutex fails only when misused (EINVAL, EDEADLK): a bug, so it
 * stops here rather than run unlocked. */
void os_monitor_lock(struct os_monitor *m)
{
	if (pthread_mutex_lock(&m->mu) != 0)
		abort();
}

void os_monitor_unlock(struct os_monitor *m)
{
	if (pthread_mutex_unlock(&m->mu) != 0)
		abort();
}

void os_monitor_wake(struct os_monitor *m)
{
	if (pthread_cond_broadcast(&m->cv) != 0)
		abort();
}

bool os_monitor_wait_until(struct os_monitor *m, uint64_t deadline_ns)
{
	int e;

	if (deadline_ns == OS_WAIT_FOREVER) {
		if (pthread_cond_wait(&m->cv, &m->mu) != 0)
			abort();
		return false;
	}
	if (now_monotonic_ns() >= deadline_ns)
		return true;
	struct timespec ts = to_timespec(deadline_ns);
	e = pthread_cond_timedwait(&m->cv, &m->mu, &ts);
	if (e != 0 && e != ETIMEDOUT)
		abort(); /* EINVAL: a deadline or mutex the caller got wrong */
	return now_monotonic_ns() >= deadline_ns;
}

bool os_sleep_until(uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	while (!*stop) {
		uint64_t now = now_monotonic_ns();
		if (now >= deadline_ns)
			return true;
		/* a slice: the signal that sets *stop may land on another thread,
		 * which leaves this sleep uninterrupted */
		uint64_t until = deadline_ns - now > STOP_POLL_NS ? now + STOP_POLL_NS : deadline_ns;
		struct timespec ts = to_timespec(until);
		/* returns the error number itself, not -1: EINTR is a signal (the
		 * stop flag is looked at again), anything else sleeps the slice
		 * relatively so a failure never turns the wait into a spin */
		int e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (e != 0 && e != EINTR) {
			struct timespec rel = to_timespec(until - now);
			nanosleep(&rel, NULL);
		}
	}
	return false;
}
