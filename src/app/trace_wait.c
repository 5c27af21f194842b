/* One snapshot with --trace-opens (trace_wait.h). */
#include "app/trace_wait.h"

#include <signal.h>
#include <stdio.h>

#include "core/snapshot.h"
#include "core/util.h"
#include "platform/platform_time.h"

struct gtm_snapshot *trace_wait_refresh(struct collector *c, bool traced, double wait_s, const char *who)
{
	static const volatile sig_atomic_t never;
	if (!traced)
		return collector_refresh(c);
	const char *refused = collector_trace_refused(c);
	if (refused) {
		fprintf(stderr, "%s: %s; the plain scan follows\n", who, refused);
		return collector_refresh(c);
	}
	snapshot_free(collector_refresh(c));
	fprintf(stderr, "%s: tracing model file opens for %g s\n", who, wait_s);
	os_sleep_until(now_monotonic_ns() + (uint64_t)(wait_s * 1e9), &never);
	return collector_refresh(c);
}
