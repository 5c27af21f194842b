/* `gputaskman serve`: a collection thread refreshes the snapshot at the
 * interval and renders it; the HTTP thread answers each scrape with a copy
 * of the latest finished text, never collecting inside a request. */
#ifndef GTM_SERVE_H
#define GTM_SERVE_H

#include <stdbool.h>

#include "collect/collector.h"
#include "serve/serve_net.h"

struct serve_opts {
	struct serve_addr listen;
	double interval_s;
	int max_processes;
	struct collector_opts collect;
	const char *record_path; /* --record PATH, or NULL */
	/* Each finished snapshot, on the collection thread, before it is freed
	 * (the recorder: app/cmd_serve.c); NULL for none. */
	void (*on_snapshot)(void *ctx, const struct gtm_snapshot *s);
	void *ctx;
};

/* Runs until SIGINT or SIGTERM. Returns the exit status: 0 after a clean
 * stop, 1 when the server could not start. *joined (may be NULL) says whether
 * the collection thread stopped: when it did not (stuck in a slow probe), o
 * and what on_snapshot uses must outlive the call. */
int serve_run(const struct serve_opts *o, bool *joined);

#endif
