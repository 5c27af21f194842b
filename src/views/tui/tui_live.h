/* The live view's threads and event loop. A collection thread opens the feed,
 * refreshes it every interval and publishes each finished snapshot; the UI
 * thread (the caller) draws and answers keys, woken through a pipe, and never
 * does I/O beyond the terminal. */
#ifndef GTM_TUI_LIVE_H
#define GTM_TUI_LIVE_H

#include "core/snapshot.h"

struct tui_view;

/* A feed the user steers (replay, views/tui/tui_replay.h): hooks called on
 * the UI thread, which must do no I/O. */
struct tui_feed_ctl {
	/* A key before the view's: tui_action bits, or -1 when it is not the feed's. */
	int (*key)(void *ctx, struct tui_view *v, int key);
	/* Takes a snapshot collect returned into the view (in place of tui_view_take). */
	void (*take)(void *ctx, struct tui_view *v, struct gtm_snapshot *s);
	void *ctx;
};

/* Where snapshots come from. open, collect and close run on the collection thread. */
struct tui_feed {
	void *(*open)(const void *arg);
	/* never NULL for the live machine; a steered feed returns NULL when nothing is new */
	struct gtm_snapshot *(*collect)(void *handle);
	void (*close)(void *handle);
	const void *arg;
	/* the `a` key: every process, or only those that matter, from the next
	 * refresh on (which then comes at once); may be NULL */
	void (*set_all)(void *handle, bool all);
	const struct tui_feed_ctl *ctl; /* NULL: the live machine */
};

/* Runs the view on the terminal until q. Returns 0, or 1 when the terminal
 * cannot be set up (message on stderr). */
int tui_live_run(const struct tui_feed *feed, double interval_s);

#endif
