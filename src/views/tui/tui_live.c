#include "views/tui/tui_live.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "views/tui/tui_crash_guard.h"
#include "views/tui/tui_view.h"

/* What the two threads share; everything but the pipe under mu. */
struct live {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct gtm_snapshot *pending; /* finished, not yet taken by the UI */
	bool paused, quit, done;
	int wake[2];                  /* collection → UI: a snapshot is ready */
	const struct tui_feed *feed;
	uint64_t interval_ns;
};

static void wake_ui(struct live *l)
{
	ssize_t r = write(l->wake[1], "s", 1);
	(void)r; /* a full pipe already holds a wake-up */
}

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
	while (!l->quit) {
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
			pthread_mutex_unlock(&l->mu);
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
				wake_ui(l);
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

static int live_init(struct live *l, const struct tui_feed *feed, double interval_s)
{
	pthread_condattr_t ca;

	memset(l, 0, sizeof *l);
	l->feed = feed;
	l->interval_ns = (uint64_t)(interval_s * 1e9);
	if (pipe2(l->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return -1;
	pthread_mutex_init(&l->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

static void live_destroy(struct live *l)
{
	snapshot_free(l->pending);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	close(l->wake[0]);
	close(l->wake[1]);
}

/* SIGINT/SIGTERM/SIGHUP end the view like q, so the terminal is always
 * restored: the handler records the signal and wakes the UI through the pipe;
 * after endwin SIGTERM and SIGHUP are raised again (tui_live_run). */
static volatile sig_atomic_t quit_signal;
static int quit_wake_fd = -1;

static void on_quit_signal(int sig)
{
	int saved = errno;
	quit_signal = sig;
	if (quit_wake_fd >= 0) {
		ssize_t r = write(quit_wake_fd, "q", 1);
		(void)r;
	}
	errno = saved;
}

static void catch_quit_signals(struct live *l)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_quit_signal;
	sigemptyset(&sa.sa_mask);
	quit_signal = 0;
	quit_wake_fd = l->wake[1];
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Starts the collection thread with SIGWINCH, SIGINT, SIGTERM and SIGHUP blocked, so
 * they always interrupt the UI thread's poll and never land on the collector. */
static int start_collector(struct live *l, pthread_t *t)
{
	sigset_t blocked, old;
	int rc;

	sigemptyset(&blocked);
	sigaddset(&blocked, SIGWINCH);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &blocked, &old);
	rc = pthread_create(t, NULL, collect_main, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Stops the collection thread; a refresh stuck in a slow probe gets a few
 * seconds, then the process leaves without it. Returns whether it joined. */
static bool stop_collector(struct live *l, pthread_t t)
{
	struct timespec ts;

	pthread_mutex_lock(&l->mu);
	l->quit = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 3;
	if (pthread_timedjoin_np(t, NULL, &ts) == 0)
		return true;
	pthread_detach(t);
	return false;
}

static bool terminal_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && !strcmp(cs, "UTF-8");
}

static bool curses_start(void)
{
	const char *no_color = getenv("NO_COLOR");
	bool color;

	if (!newterm(NULL, stdout, stdin))
		return false;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	/* A lone Escape is told from a key sequence after this wait; 25 ms keeps
	 * Escape prompt. ncurses' own ESCDELAY variable, when set, wins (slow links). */
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	/* https://no-color.org: present and not empty disables colour. */
	color = !(no_color && no_color[0]) && has_colors();
	if (color && start_color() == OK)
		tui_view_colors(use_default_colors() == OK);
	return color;
}

static int map_key(int ch)
{
	switch (ch) {
	case KEY_UP: return TUI_KEY_UP;
	case KEY_DOWN: return TUI_KEY_DOWN;
	case KEY_PPAGE: return TUI_KEY_PGUP;
	case KEY_NPAGE: return TUI_KEY_PGDN;
	case KEY_HOME: return TUI_KEY_HOME;
	case KEY_END: return TUI_KEY_END;
	case KEY_LEFT: return TUI_KEY_LEFT;
	case KEY_RIGHT: return TUI_KEY_RIGHT;
	case KEY_BACKSPACE: case 127: case 8: return TUI_KEY_BACKSPACE;
	case KEY_ENTER: case '\n': case '\r': return TUI_KEY_ENTER;
	case 27: return TUI_KEY_ESC;
	case KEY_RESIZE: return TUI_KEY_RESIZE;
	default: return ch;
	}
}

static int handle_mouse(struct tui_view *v)
{
	MEVENT me;
	if (getmouse(&me) != OK)
		return TUI_ACT_NONE;
	if (me.bstate & BUTTON4_PRESSED)
		return tui_view_mouse(v, me.y, me.x, TUI_MOUSE_WHEEL_UP);
	if (me.bstate & BUTTON5_PRESSED)
		return tui_view_mouse(v, me.y, me.x, TUI_MOUSE_WHEEL_DOWN);
	/* A click acts on release: ncurses reports a press and a release that
	 * arrive together as one released event, and a press alone would make
	 * the release that follows it act a second time. */
	if (me.bstate & (BUTTON1_RELEASED | BUTTON1_CLICKED))
		return tui_view_mouse(v, me.y, me.x, TUI_MOUSE_CLICK);
	return TUI_ACT_NONE;
}

/* Reads every pending key; returns the OR of their actions. */
static int read_keys(struct live *l, struct tui_view *v)
{
	int ch, acts = 0;

	while ((ch = getch()) != ERR) {
		const struct tui_feed_ctl *ctl = l->feed->ctl;
		int a = ch == KEY_MOUSE ? handle_mouse(v) : -1;
		if (ch != KEY_MOUSE && ctl)
			a = ctl->key(ctl->ctx, v, map_key(ch));
		if (ch != KEY_MOUSE && a < 0)
			a = tui_view_key(v, map_key(ch));
		if (a & TUI_ACT_PAUSE) {
			pthread_mutex_lock(&l->mu);
			l->paused = v->st.paused;
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
	char drain[64];
	struct gtm_snapshot *s;

	while (read(l->wake[0], drain, sizeof drain) > 0)
		;
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
		struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {l->wake[0], POLLIN, 0}};
		int acts;

		if (dirty) {
			tui_view_draw(v);
			refresh();
			dirty = false;
		}
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if (quit_signal)
			break;
		if (fds[1].revents & POLLIN)
			dirty |= take_snapshot(l, v);
		/* Also after EINTR: a resize shows up as KEY_RESIZE. */
		acts = read_keys(l, v);
		if (acts & TUI_ACT_QUIT)
			break;
		if (acts & (TUI_ACT_REDRAW | TUI_ACT_PAUSE))
			dirty = true;
		if (fds[0].revents & (POLLHUP | POLLERR))
			break;
	}
}

int tui_live_run(const struct tui_feed *feed, double interval_s)
{
	struct live l;
	struct tui_view v;
	pthread_t t;
	bool color, joined;

	setlocale(LC_CTYPE, "");
	if (live_init(&l, feed, interval_s > 0 ? interval_s : 1.0) != 0) {
		perror("gputaskman: pipe");
		return 1;
	}
	if (start_collector(&l, &t) != 0) {
		fprintf(stderr, "gputaskman: cannot start the collection thread\n");
		live_destroy(&l);
		return 1;
	}
	tui_crash_guard_save();
	color = curses_start();
	if (!stdscr) {
		fprintf(stderr, "gputaskman: cannot set up the terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "");
		if (stop_collector(&l, t))
			live_destroy(&l);
		return 1;
	}
	tui_crash_guard_arm();
	catch_quit_signals(&l);
	tui_view_init(&v, color, terminal_utf8());
	ui_loop(&l, &v);
	tui_crash_guard_disarm();
	endwin();
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	quit_wake_fd = -1;
	joined = stop_collector(&l, t);
	tui_view_free(&v);
	if (joined)
		live_destroy(&l);
	/* SIGTERM and SIGHUP: die of it, as without a handler (the default actions
	 * are back), so a supervisor sees what ended us. SIGINT is the user's Ctrl-C,
	 * a way to quit: exit status 130, and the calling shell goes on. */
	if (quit_signal == SIGTERM || quit_signal == SIGHUP) {
		fflush(NULL);
		raise(quit_signal);
	}
	/* Interrupted: the shell's convention, 128 + the signal. */
	return quit_signal ? 128 + quit_signal : 0;
}
