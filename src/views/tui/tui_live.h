/* The live view's threads and event loop. A collection thread opens the feed,
 * refreshes it every interval and publishes each finished snapshot; the UI
 * thread (the caller) draws and answers keys, woken through a pipe, and never
 * does I/O beyond the terminal. */
#ifndef GTM_TUI_LIVE_H
#define GTM_TUI_LIVE_H

#include "core/snapshot.h"

/* Where snapshots come from. All four run on the collection thread. */
struct tui_feed {
	void *(*open)(const void *arg);
	struct gtm_snapshot *(*collect)(void *handle); /* never NULL */
	void (*close)(void *handle);
	const void *arg;
	/* the `a` key: every process, or only those that matter, from the next
	 * refresh on (which then comes at once); may be NULL */
	void (*set_all)(void *handle, bool all);
};

/* Runs the view on the terminal until q. Returns 0, or 1 when the terminal
 * cannot be set up (message on stderr). */
int tui_live_run(const struct tui_feed *feed, double interval_s);

#endif
