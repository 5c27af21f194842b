/* One snapshot with --trace-opens (trace_wait.h). */
#include "app/trace_wait.h"

#include <signal.h>
#include <stdio.h>

#include "core/snapshot.h"
#include "core/util.h"
#include "platform/platform_time.h"
#include "portable.h"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

struct gtm_snapshot *trace_wait_refresh(struct collector *c, bool traced, double wait_s, const char *who)
{
	if (!traced)
		return collector_refresh(c);
	const char *refused = collector_trace_refused(c);
	if (refused) {
		fprintf(stderr, "%s: %s; the plain scan follows\n", who, refused);
		return collector_refresh(c);
	}
	snapshot_free(collector_refresh(c));
	fprintf(stderr, "%s: tracing model file opens for %g s (Ctrl-C ends it early)\n", who, wait_s);
	/* Ctrl-C (or SIGTERM, SIGHUP) ends the trace and prints what it saw:
	 * a user, or a test, need not guess how long the opens take to come */
	uint64_t t0 = now_monotonic_ns();
	stop_signal = 0;
	os_catch_stop_signals(on_stop);
	bool whole = os_sleep_until(t0 + (uint64_t)(wait_s * 1e9), &stop_signal);
	os_catch_stop_signals(SIG_DFL);
	if (!whole)
		fprintf(stderr, "%s: tracing ended by a signal after %.1f s\n", who,
			(double)(now_monotonic_ns() - t0) / 1e9);
	return collector_refresh(c);
}
