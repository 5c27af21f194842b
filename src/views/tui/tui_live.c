#include "views/tui/tui_live.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/util.h"
#include "platform/platform_time.h"
#include "views/tui/term.h"
#include "views/tui/tui_view.h"

/* What the two threads share, under mon's lock; the collection thread wakes
 * the UI with term_wake when a snapshot is ready. */
struct live {
	struct os_monitor *mon;
	struct gtm_snapshot *pending; /* finished, not yet taken by the UI */
	bool paused, quit, done;
	bool all, all_changed;        /* the `a` key, for the feed's next refresh */
	const struct tui_feed *feed;
	uint64_t interval_ns;
};

/* Sleeps until the next refresh is due, the user resumes, or quit. Called
 * with the lock held. */
static void wait_next(struct live *l, uint64_t started_ns)
{
	uint64_t deadline = started_ns + l->interval_ns;
	while (!l->quit && !(l->all_changed && !l->paused)) { /* `a`: refresh at once */
		if (l->paused) {
			os_monitor_wait_until(l->mon, OS_WAIT_FOREVER);
			if (!l->paused)
				return; /* resumed: refresh at once */
			continue;
		}
		if (os_monitor_wait_until(l->mon, deadline))
			return;
	}
}

static void *collect_main(void *arg)
{
	struct live *l = arg;
	void *h = l->feed->open(l->feed->arg);

	os_monitor_lock(l->mon);
	while (!l->quit) {
		uint64_t started = now_monotonic_ns();
		if (!l->paused) {
			struct gtm_snapshot *s, *old = NULL;
			bool all = l->all, all_changed = l->all_changed;
			l->all_changed = false;
			os_monitor_unlock(l->mon);
			if (all_changed && l->feed->set_all)
				l->feed->set_all(h, all);
			s = l->feed->collect(h);
			os_monitor_lock(l->mon);
			/* A snapshot finished after p was pressed is dropped: values freeze.
			 * A steered feed (replay) may have nothing new. */
			if (!s) {
			} else if (l->quit || l->paused) {
				old = s;
			} else {
				old = l->pending;
				l->pending = s;
				term_wake();
			}
			os_monitor_unlock(l->mon);
			snapshot_free(old);
			os_monitor_lock(l->mon);
		}
		wait_next(l, started);
	}
	os_monitor_unlock(l->mon);
	l->feed->close(h);
	os_monitor_lock(l->mon);
	l->done = true;
	os_monitor_wake(l->mon);
	os_monitor_unlock(l->mon);
	return NULL;
}

static bool live_init(struct live *l, const struct tui_feed *feed, double interval_s, char *why, size_t cap)
{
	memset(l, 0, sizeof *l);
	l->feed = feed;
	l->interval_ns = (uint64_t)(interval_s * 1e9);
	l->mon = os_monitor_new(why, cap);
	return l->mon != NULL;
}

static void live_destroy(struct live *l)
{
	snapshot_free(l->pending);
	os_monitor_free(l->mon);
	term_close();
}

/* Stops the collection thread; a refresh stuck in a slow probe gets a few
 * seconds, then the process leaves without it. Returns whether it joined. */
static bool stop_collector(struct live *l, pthread_t t)
{
	uint64_t deadline = now_monotonic_ns() + 3000000000ull;
	bool done;

	os_monitor_lock(l->mon);
	l->quit = true;
	os_monitor_wake(l->mon);
	while (!l->done && !os_monitor_wait_until(l->mon, deadline))
		;
	done = l->done;
	os_monitor_unlock(l->mon);
	if (done)
		pthread_join(t, NULL);
	else
		pthread_detach(t);
	return done;
}

/* Reads every pending key; returns the OR of their actions. */
static int read_keys(struct live *l, struct tui_view *v)
{
	struct term_event ev;
	int acts = 0;

	while (term_read(&ev)) {
		const struct tui_feed_ctl *ctl = l->feed->ctl;
		int a = ev.mouse >= 0 ? tui_view_mouse(v, ev.y, ev.x, (enum tui_mouse)ev.mouse) : -1;
		if (ev.mouse < 0 && ctl)
			a = ctl->key(ctl->ctx, v, ev.key);
		if (ev.mouse < 0 && a < 0)
			a = tui_view_key(v, ev.key);
		if ((a & TUI_ACT_PAUSE) || v->st.all != l->all) {
			os_monitor_lock(l->mon);
			l->paused = v->st.paused;
			l->all_changed |= v->st.all != l->all;
			l->all = v->st.all;
			os_monitor_wake(l->mon);
			os_monitor_unlock(l->mon);
		}
		acts |= a;
		if (a & TUI_ACT_QUIT)
			break;
	}
	return acts;
}

/* Takes the newest finished snapshot, if any. */
static bool take_snapshot(struct live *l, struct tui_view *v)
{
	struct gtm_snapshot *s;

	os_monitor_lock(l->mon);
	s = l->pending;
	l->pending = NULL;
	os_monitor_unlock(l->mon);
	if (!s || v->st.paused) {
		snapshot_free(s);
		return false;
	}
	if (l->feed->ctl)
		l->feed->ctl->take(l->feed->ctl->ctx, v, s);
	else
		tui_view_take(v, s);
	return true;
}

static void ui_loop(struct live *l, struct tui_view *v)
{
	bool dirty = true;

	for (;;) {
		int acts, w;

		if (dirty) {
			tui_view_draw(v);
			term_refresh();
			dirty = false;
		}
		w = term_wait();
		if (w & TERM_WAIT_QUIT)
			break;
		if (w & TERM_WAIT_WOKEN)
			dirty |= take_snapshot(l, v);
		acts = w & TERM_WAIT_INPUT ? read_keys(l, v) : 0;
		if (acts & TUI_ACT_QUIT)
			break;
		if (acts & (TUI_ACT_REDRAW | TUI_ACT_PAUSE))
			dirty = true;
		if (w & TERM_WAIT_HUP)
			break;
	}
}

int tui_live_run(const struct tui_feed *feed, double interval_s)
{
	struct live l;
	struct tui_view v;
	struct term_info ti;
	pthread_t t;
	char why[256]; /* room for a dlerror: the terminal library is loaded at run time */
	bool joined;

	if (!term_open(why, sizeof why)) {
		fprintf(stderr, "gputaskman: %s\n", why);
		return 1;
	}
	if (!live_init(&l, feed, interval_s > 0 ? interval_s : 1.0, why, sizeof why)) {
		fprintf(stderr, "gputaskman: %s\n", why);
		term_close();
		return 1;
	}
	if (term_thread_start(&t, collect_main, &l) != 0) {
		fprintf(stderr, "gputaskman: cannot start the collection thread\n");
		live_destroy(&l);
		return 1;
	}
	if (!term_start(&ti)) {
		fprintf(stderr, "gputaskman: cannot set up the terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "");
		if (stop_collector(&l, t))
			live_destroy(&l);
		return 1;
	}
	if (ti.pairs)
		tui_view_colors(ti.default_bg);
	tui_view_init(&v, ti.color, ti.utf8);
	ui_loop(&l, &v);
	term_end();
	joined = stop_collector(&l, t);
	tui_view_free(&v);
	if (joined)
		live_destroy(&l);
	return term_exit_status();
}
