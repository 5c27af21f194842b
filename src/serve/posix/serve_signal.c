/* POSIX signals: SIGINT/SIGTERM are blocked in every thread and taken by
 * sigtimedwait(2) on the main thread, so a stop request never interrupts the
 * collector or the HTTP thread in the middle of a call. */
#include "serve/serve_signal.h"

#include <signal.h>
#include <time.h>

static sigset_t held, saved;

void serve_signals_hold(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &held, &saved);
}

int serve_signal_wait(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	int sig = sigtimedwait(&held, NULL, &ts);
	return sig > 0 ? sig : 0;
}

void serve_signals_release(void)
{
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}
