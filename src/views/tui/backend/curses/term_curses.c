/* The terminal through ncursesw (POSIX): stdscr is the cell grid, a
 * non-blocking pipe wakes the UI thread's poll, SIGINT/SIGTERM/SIGHUP end the
 * view like q. */
#include "views/tui/term.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "views/tui/backend/curses/crash_guard.h"
#include "views/tui/tui_keys.h"

static int wake_fd[2] = {-1, -1};
/* The handler records the signal and wakes the UI through the pipe; after
 * endwin SIGTERM and SIGHUP are raised again (term_exit_status). */
static volatile sig_atomic_t quit_signal;
static const int quit_signals[] = {SIGINT, SIGTERM, SIGHUP};

bool term_open(char *why, size_t n)
{
	setlocale(LC_CTYPE, "");
	if (pipe2(wake_fd, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(why, n, "pipe: %s", strerror(errno));
		return false;
	}
	return true;
}

void term_close(void)
{
	for (int i = 0; i < 2; i++)
		if (wake_fd[i] >= 0)
			close(wake_fd[i]);
	wake_fd[0] = wake_fd[1] = -1;
}

/* SIGWINCH and the quit signals blocked, so they always interrupt the UI
 * thread's poll and never land on the new thread. */
int term_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t blocked, old;
	int rc;

	sigemptyset(&blocked);
	sigaddset(&blocked, SIGWINCH);
	for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
		sigaddset(&blocked, quit_signals[i]);
	pthread_sigmask(SIG_BLOCK, &blocked, &old);
	rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void term_wake(void)
{
	if (wake_fd[1] >= 0) {
		ssize_t r = write(wake_fd[1], "s", 1);
		(void)r; /* a full pipe already holds a wake-up */
	}
}

static void on_quit_signal(int sig)
{
	int saved = errno;
	quit_signal = sig;
	term_wake();
	errno = saved;
}

static void catch_quit_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_quit_signal;
	sigemptyset(&sa.sa_mask);
	quit_signal = 0;
	for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
		sigaction(quit_signals[i], &sa, NULL);
}

static bool terminal_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && !strcmp(cs, "UTF-8");
}

bool term_start(struct term_info *info)
{
	const char *no_color = getenv("NO_COLOR");

	memset(info, 0, sizeof *info);
	crash_guard_save();
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
	info->color = !(no_color && no_color[0]) && has_colors();
	info->pairs = info->color && start_color() == OK;
	info->default_bg = info->pairs && use_default_colors() == OK;
	info->utf8 = terminal_utf8();
	crash_guard_arm();
	catch_quit_signals();
	return true;
}

void term_end(void)
{
	crash_guard_disarm();
	endwin();
	for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
		signal(quit_signals[i], SIG_DFL);
}

int term_exit_status(void)
{
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

int term_wait(void)
{
	struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_fd[0], POLLIN, 0}};
	char drain[64];
	int r = 0;

	if (poll(fds, 2, -1) < 0 && errno != EINTR)
		return TERM_WAIT_HUP;
	if (quit_signal)
		return TERM_WAIT_QUIT;
	if (fds[1].revents & POLLIN) {
		while (read(wake_fd[0], drain, sizeof drain) > 0)
			;
		r |= TERM_WAIT_WOKEN;
	}
	/* Also after EINTR: a resize shows up as KEY_RESIZE. */
	r |= TERM_WAIT_INPUT;
	if (fds[0].revents & (POLLHUP | POLLERR))
		r |= TERM_WAIT_HUP;
	return r;
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

/* The mouse event behind KEY_MOUSE, or -1 for one the view does not use. */
static int map_mouse(struct term_event *ev)
{
	MEVENT me;
	if (getmouse(&me) != OK)
		return -1;
	ev->y = me.y;
	ev->x = me.x;
	if (me.bstate & BUTTON4_PRESSED)
		return TUI_MOUSE_WHEEL_UP;
	if (me.bstate & BUTTON5_PRESSED)
		return TUI_MOUSE_WHEEL_DOWN;
	/* A click acts on release: ncurses reports a press and a release that
	 * arrive together as one released event, and a press alone would make
	 * the release that follows it act a second time. */
	if (me.bstate & (BUTTON1_RELEASED | BUTTON1_CLICKED))
		return TUI_MOUSE_CLICK;
	return -1;
}

bool term_read(struct term_event *ev)
{
	int ch;

	while ((ch = getch()) != ERR) {
		ev->key = 0;
		ev->mouse = -1;
		if (ch != KEY_MOUSE) {
			ev->key = map_key(ch);
			return true;
		}
		if ((ev->mouse = map_mouse(ev)) >= 0)
			return true;
	}
	return false;
}

static short curses_color(enum term_color c)
{
	static const short color[] = {COLOR_BLACK, COLOR_RED, COLOR_GREEN, COLOR_YELLOW,
				      COLOR_BLUE, COLOR_MAGENTA, COLOR_CYAN, COLOR_WHITE};
	return c >= TERM_BLACK && c <= TERM_WHITE ? color[c] : -1;
}

void term_color_pair(int pair, enum term_color fg, enum term_color bg)
{
	init_pair((short)pair, curses_color(fg), curses_color(bg));
}

static attr_t curses_attr(term_attr a)
{
	return (a & TERM_BOLD ? A_BOLD : 0) | (a & TERM_REVERSE ? A_REVERSE : 0) | (a & TERM_DIM ? A_DIM : 0) |
	       (a & TERM_BLINK ? A_BLINK : 0) | (attr_t)COLOR_PAIR(TERM_PAIR_OF(a));
}

void term_size(int *lines, int *cols)
{
	getmaxyx(stdscr, *lines, *cols);
}

void term_erase(void)
{
	erase();
}

void term_attr_on(term_attr a)
{
	attron(curses_attr(a));
}

void term_attr_off(term_attr a)
{
	attroff(curses_attr(a));
}

/* A non-ASCII character's cell in attributes a, made once and kept:
 * setcchar is not cheap, and a redraw writes the same few glyphs (chart
 * eighths, bar blocks, dots) in the same few attributes. width < 0: the
 * character is not one column wide, and the string goes the slow way. */
struct cell_entry {
	wchar_t wc;
	attr_t a;
	short pair;
	signed char width;
	bool used;
	cchar_t cc;
};

static const struct cell_entry *cell_for(wchar_t wc, attr_t a, short pair)
{
	static struct cell_entry cache[256];
	struct cell_entry *e = &cache[((unsigned)wc * 2654435761u ^ (unsigned)a ^ (unsigned)pair * 40503u) >> 24];

	if (!e->used || e->wc != wc || e->a != a || e->pair != pair) {
		wchar_t w[2] = {wc, L'\0'};
		e->wc = wc;
		e->a = a;
		e->pair = pair;
		e->width = (signed char)(wcwidth(wc) == 1 ? 1 : -1);
		setcchar(&e->cc, w, a, pair, NULL);
		e->used = true;
	}
	return e;
}

/* The code point of the UTF-8 sequence at s (fmt_safe made every string
 * well-formed before it reaches here); *len its bytes; -1 when it is not. */
static long utf8_decode(const unsigned char *s, int n, int *len)
{
	int k = s[0] < 0x80 ? 1 : (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3 : (s[0] >> 3) == 30 ? 4 : 0;
	if (k == 0 || k > n)
		return -1;
	long c = k == 1 ? s[0] : s[0] & (0x7F >> k);
	for (int i = 1; i < k; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return -1;
		c = c << 6 | (s[i] & 0x3F);
	}
	*len = k;
	return c;
}

/* A string with non-ASCII characters, each one column wide, as one run of
 * ready cells (mvadd_wchnstr); false when some character is not. */
static bool put_wide(int y, int x, const char *s, int n, attr_t a, short pair)
{
	cchar_t cells[512];
	int cols = 0;

	for (int i = 0; i < n;) {
		int k;
		long c = utf8_decode((const unsigned char *)s + i, n - i, &k);
		if (c < 0 || cols == (int)(sizeof cells / sizeof cells[0]))
			return false;
		const struct cell_entry *e = cell_for((wchar_t)c, a, pair);
		if (e->width < 0)
			return false;
		cells[cols++] = e->cc;
		i += k;
	}
	if (cols > 0)
		mvadd_wchnstr(y, x, cells, cols);
	move(y, x + cols);
	return true;
}

void term_put(int y, int x, const char *s, int n)
{
	chtype cells[1024];
	int i = 0;

	if (n < 0)
		n = (int)strlen(s);
	if (n > (int)(sizeof cells / sizeof cells[0])) {
		mvaddnstr(y, x, s, n);
		return;
	}
	attr_t a;
	short pair;
	wattr_get(stdscr, &a, &pair, NULL);
	a &= ~A_COLOR;
	while (i < n && (unsigned char)s[i] < 0x80)
		i++;
	if (i < n) {
		if (!put_wide(y, x, s, n, a, pair))
			mvaddnstr(y, x, s, n);
		return;
	}
	/* ASCII, most of a redraw: cells in the current attributes, without
	 * waddnstr's multibyte conversion and width lookup per character; the
	 * cursor ends where waddnstr would leave it */
	chtype at = a | COLOR_PAIR(pair);
	for (i = 0; i < n; i++)
		cells[i] = (chtype)(unsigned char)s[i] | at;
	if (n > 0)
		mvaddchnstr(y, x, cells, n);
	move(y, x + n);
}

static chtype curses_glyph(int glyph)
{
	return glyph == TERM_GLYPH_HLINE ? ACS_HLINE : glyph == TERM_GLYPH_VLINE ? ACS_VLINE : (chtype)glyph;
}

void term_hline(int y, int x, int glyph, int n)
{
	mvhline(y, x, curses_glyph(glyph), n);
}

void term_vline(int y, int x, int glyph, int n)
{
	mvvline(y, x, curses_glyph(glyph), n);
}

void term_refresh(void)
{
	refresh();
}
