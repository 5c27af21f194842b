/* The GNU functions macOS's C library lacks (portable.h). */
#include "portable.h"

void *memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = (const unsigned char *)s + n;
	while (n--)
		if (*--p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

/* The time from now on the monotonic clock to t, never negative. */
static struct timespec until(const struct timespec *t)
{
	struct timespec now, rel = {0, 0};
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ns = ((int64_t)t->tv_sec - (int64_t)now.tv_sec) * 1000000000 + (t->tv_nsec - now.tv_nsec);
	if (ns > 0) {
		rel.tv_sec = (time_t)(ns / 1000000000);
		rel.tv_nsec = (long)(ns % 1000000000);
	}
	return rel;
}

#undef pthread_cond_timedwait
int gtm_cond_timedwait_mono(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *deadline)
{
	struct timespec rel = until(deadline);
	return pthread_cond_timedwait_relative_np(c, m, &rel);
}

int gtm_clock_nanosleep(clockid_t clock, int flags, const struct timespec *t, struct timespec *rem)
{
	(void)clock;
	struct timespec rel = flags & TIMER_ABSTIME ? until(t) : *t;
	return nanosleep(&rel, rem) == 0 ? 0 : errno;
}

int gtm_sigtimedwait_now(const sigset_t *set, void *info, const struct timespec *timeout)
{
	(void)info;
	(void)timeout;
	sigset_t pending;
	int sig;
	sigpending(&pending);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(set, s) == 1 && sigismember(&pending, s) == 1)
			return sigwait(set, &sig) == 0 ? sig : -1;
	errno = EAGAIN;
	return -1;
}
