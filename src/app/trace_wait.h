/* One snapshot with --trace-opens (the --once, --json and inspect PID paths). */
#ifndef GTM_TRACE_WAIT_H
#define GTM_TRACE_WAIT_H

#include "collect/collector.h"

/* A refresh now (the VRAM before any open it then sees), wait_s seconds of
 * tracing, and the snapshot returned. A collector refusing to trace (not
 * root...) says why on stderr, prefixed by who ("gputaskman"), once, and
 * its plain refresh is returned at once; without tracing asked, that too. */
struct gtm_snapshot *trace_wait_refresh(struct collector *c, bool traced, double wait_s, const char *who);

#endif
