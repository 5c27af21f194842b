#include "views/tui/tui_live.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/parallel.h"
#include "core/util.h"
#include "views/tui/term.h"
#include "views/tui/tui_view.h"

/* What the two threads share, under mu; the collection thread wakes the UI
 * with term_wake when a snapshot is ready. */
struct live {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct gtm_snapshot *pending; /* finished, not yet taken by the UI */
	bool paused, quit, done;
	bool all, all_changed;        /* the `a` key, for the feed's next refresh */
	const struct tui_feed *feed;
	uint64_t interval_ns;
};

static void deadline_after(struct timespec *ts, uint64_t from_ns, uint64_t delta_ns)
{
	uint64_t t = from_ns + delta_ns;
	ts->tv_sec = (time_t)(t / 1000000000ull);
	ts->tv_nsec = (long)(t % 1000000000ull);
}

/* Sleeps until the next refresh is due, the user resumes, or quit. Called
 * with mu held. */
static void wait_next(struct live *l, uint64_t started_ns)
{
	struct timespec ts;
	deadline_after(&ts, started_ns, l->interval_ns);
	while (!l->quit && !(l->all_changed && !l->paused)) { /* `a`: refresh at once */
		if (l->paused) {
			pthread_cond_wait(&l->cv, &l->mu);
			if (!l->paused)
				return; /* resumed: refresh at once */
			continue;
		}
		if (pthread_cond_timedwait(&l->cv, &l->mu, &ts) == ETIMEDOUT)
			return;
	}
}

static void *collect_main(void *arg)
{
	struct live *l = arg;
	void *h = l->feed->open(l->feed->arg);

	pthread_mutex_lock(&l->mu);
	while (!l->quit) {
		uint64_t started = now_monotonic_ns();
		if (!l->paused) {
			struct gtm_snapshot *s, *old = NULL;
			bool all = l->all, all_changed = l->all_changed;
			l->all_changed = false;
			pthread_mutex_unlock(&l->mu);
			if (all_changed && l->feed->set_all)
				l->feed->set_all(h, all);
			s = l->feed->collect(h);
			pthread_mutex_lock(&l->mu);
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
			pthread_mutex_unlock(&l->mu);
			snapshot_free(old);
			pthread_mutex_lock(&l->mu);
		}
		wait_next(l, started);
	}
	pthread_mutex_unlock(&l->mu);
	l->feed->close(h);
	pthread_mutex_lock(&l->mu);
	l->done = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

static void live_init(struct live *l, const struct tui_feed *feed, double interval_s)
{
	pthread_condattr_t ca;

	memset(l, 0, sizeof *l);
	l->feed = feed;
	l->interval_ns = (uint64_t)(interval_s * 1e9);
	pthread_mutex_init(&l->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cv, &ca);
	pthread_condattr_destroy(&ca);
}

static void live_destroy(struct live *l)
{
	snapshot_free(l->pending);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	term_close();
}

/* Stops the collection thread; a refresh stuck in a slow probe gets a few
 * seconds, then the process leaves without it. Returns whether it joined. */
static bool stop_collector(struct live *l, pthread_t t)
{
	struct timespec ts;
	bool done;

	pthread_mutex_lock(&l->mu);
	l->quit = true;
	pthread_cond_broadcast(&l->cv);
	deadline_after(&ts, now_monotonic_ns(), 3000000000ull);
	while (!l->done && pthread_cond_timedwait(&l->cv, &l->mu, &ts) != ETIMEDOUT)
		;
	done = l->done;
	pthread_mutex_unlock(&l->mu);
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
			pthread_mutex_lock(&l->mu);
			l->paused = v->st.paused;
			l->all_changed |= v->st.all != l->all;
			l->all = v->st.all;
			pthread_cond_broadcast(&l->cv);
			pthread_mutex_unlock(&l->mu);
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

	pthread_mutex_lock(&l->mu);
	s = l->pending;
	l->pending = NULL;
	pthread_mutex_unlock(&l->mu);
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
	char why[128];
	bool joined;

	if (!term_open(why, sizeof why)) {
		fprintf(stderr, "gputaskman: %s\n", why);
		return 1;
	}
	live_init(&l, feed, interval_s > 0 ? interval_s : 1.0);
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
