/* The terminal through ncursesw (POSIX): stdscr is the cell grid, a
 * non-blocking pipe wakes the UI thread's poll, SIGINT/SIGTERM/SIGHUP end the
 * view like q. */
#include "views/tui/term.h"

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

#include "views/tui/backend/curses/cell_grid.h"
#include "views/tui/backend/curses/crash_guard.h"
#include "views/tui/backend/curses/curses_names.h"
#include "views/tui/tui_keys.h"

static int wake_fd[2] = {-1, -1};
/* The handler records the signal and wakes the UI through the pipe; after
 * endwin SIGTERM and SIGHUP are raised again (term_exit_status). */
static volatile sig_atomic_t quit_signal;
static const int quit_signals[] = {SIGINT, SIGTERM, SIGHUP};
/* What is drawn goes to the cell grid; term_refresh gives ncurses the cells
 * that changed since the frame before (cell_grid.h says why). */
static struct cell_grid grid;
static term_attr cur_attr;

bool term_open(char *why, size_t n)
{
	if (!curses_ep_load(why, n))
		return false;
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
	/* No look at stdin before each line is sent (three polls a redraw): the UI
	 * thread reads the keys right after a redraw anyway. */
	typeahead(-1);
	/* ncurses flushes its output after every cursor move until the screen
	 * has been suspended and resumed once (lib_mvcur.c: "flush the output if
	 * the screen has not been initialized", told by _endwin): a redraw went out
	 * as one write(2) per changed run, 25 a refresh while a chart moves. One
	 * endwin and refresh here, before anything is drawn, leave that state;
	 * then a redraw is one write. */
	endwin();
	refresh();
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
	grid_free(&grid); /* a later term_start shows every cell again */
	cur_attr = TERM_NORMAL;
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
	int lines, cols;
	getmaxyx(stdscr, lines, cols);
	grid_resize(&grid, lines, cols);
	grid_erase(&grid);
}

/* As curses' attron/attroff: style bits add and clear; a colour pair replaces
 * the pair, and turning it off goes back to the default colours. */
void term_attr_on(term_attr a)
{
	cur_attr |= a & TERM_STYLE_BITS;
	if (TERM_PAIR_OF(a))
		cur_attr = (cur_attr & ~TERM_PAIR(TERM_PAIR_MAX)) | TERM_PAIR(TERM_PAIR_OF(a));
}

void term_attr_off(term_attr a)
{
	cur_attr &= ~(a & TERM_STYLE_BITS);
	if (TERM_PAIR_OF(a))
		cur_attr &= ~TERM_PAIR(TERM_PAIR_MAX);
}

/* A non-ASCII character's cell in attributes a, made once and kept:
 * setcchar is not cheap, and a redraw writes the same few glyphs (chart
 * eighths, bar blocks, dots) in the same few attributes. */
struct cell_entry {
	wchar_t wc;
	attr_t a;
	short pair;
	bool used;
	cchar_t cc;
};

static const cchar_t *cell_for(wchar_t wc, attr_t a, short pair)
{
	static struct cell_entry cache[256];
	struct cell_entry *e = &cache[((unsigned)wc * 2654435761u ^ (unsigned)a ^ (unsigned)pair * 40503u) >> 24];

	if (!e->used || e->wc != wc || e->a != a || e->pair != pair) {
		wchar_t w[2] = {wc, L'\0'};
		e->wc = wc;
		e->a = a;
		e->pair = pair;
		setcchar(&e->cc, w, a, pair, NULL);
		e->used = true;
	}
	return &e->cc;
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

/* One character into the grid at column x of row; the next column. A
 * two-column character takes x and x + 1 (when both are on the screen);
 * one of no width (a combining mark) is left out, one that cannot be shown
 * is '?': one character a cell, as the Windows console keeps them. */
static int char_width(long c)
{
	/* a redraw puts the same few glyphs side by side (chart eighths, bar
	 * blocks): the last answer is kept */
	static long last_c = -1;
	static int last_w;
	if (c != last_c) {
		last_w = wcwidth((wchar_t)c);
		last_c = c;
	}
	return last_w;
}

static int put_char(int y, int x, long c)
{
	int w = c < 0x80 ? 1 : char_width(c);
	struct grid_cell *cell = grid_at(&grid, y, x);

	if (w == 0)
		return x;
	if (w < 0 || c < 0x20 || (w == 2 && !grid_at(&grid, y, x + 1)))
		c = '?', w = 1;
	if (cell)
		*cell = (struct grid_cell){(uint32_t)c, cur_attr};
	if (w == 2 && cell)
		*grid_at(&grid, y, x + 1) = (struct grid_cell){GRID_CONT, cur_attr};
	return x + w;
}

void term_put(int y, int x, const char *s, int n)
{
	if (n < 0)
		n = (int)strlen(s);
	struct grid_cell *row = y >= 0 && y < grid.lines ? &grid.draw[(long)y * grid.cols] : NULL;
	for (int i = 0; i < n && x < grid.cols;) {
		unsigned char b = (unsigned char)s[i];
		if (row && x >= 0 && b >= 0x20 && b < 0x7F) { /* printable ASCII: its own cell */
			row[x++] = (struct grid_cell){b, cur_attr};
			i++;
			continue;
		}
		int k = 1;
		long c = utf8_decode((const unsigned char *)s + i, n - i, &k);
		if (c < 0) {
			x = put_char(y, x, '?');
			i++;
			continue;
		}
		/* the same character again (a chart's blocks, a bar's cells): decoded once */
		do {
			x = put_char(y, x, c);
			i += k;
		} while (k > 1 && i + k <= n && x < grid.cols && memcmp(s + i, s + i - k, (size_t)k) == 0);
	}
}

void term_hline(int y, int x, int glyph, int n)
{
	uint32_t ch = glyph == TERM_GLYPH_HLINE ? GRID_HLINE : glyph == TERM_GLYPH_VLINE ? GRID_VLINE : (uint32_t)glyph;
	for (struct grid_cell *c; n-- > 0 && (c = grid_at(&grid, y, x)); x++)
		*c = (struct grid_cell){ch, cur_attr};
}

void term_vline(int y, int x, int glyph, int n)
{
	uint32_t ch = glyph == TERM_GLYPH_HLINE ? GRID_HLINE : glyph == TERM_GLYPH_VLINE ? GRID_VLINE : (uint32_t)glyph;
	for (struct grid_cell *c; n-- > 0 && (c = grid_at(&grid, y, x)); y++)
		*c = (struct grid_cell){ch, cur_attr};
}

static bool narrow(uint32_t ch)
{
	return ch < 0x80 || ch == GRID_HLINE || ch == GRID_VLINE;
}

/* A run of ASCII and line cells as chtypes (mvaddchnstr: no conversion). */
static void show_narrow(int y, int x, const struct grid_cell *c, int n)
{
	chtype cells[512];
	for (int i = 0; i < n; i++) {
		chtype ch = c[i].ch == GRID_HLINE ? ACS_HLINE : c[i].ch == GRID_VLINE ? ACS_VLINE : c[i].ch ? c[i].ch : ' ';
		cells[i] = ch | curses_attr(c[i].attr);
	}
	mvaddchnstr(y, x, cells, n);
}

/* A run with other characters as ready cells (mvadd_wchnstr); a two-column
 * character's right half is ncurses' to fill. */
static void show_wide(int y, int x, const struct grid_cell *c, int n)
{
	cchar_t cells[512];
	int k = 0;
	for (int i = 0; i < n; i++) {
		attr_t a = curses_attr(c[i].attr & TERM_STYLE_BITS);
		short pair = (short)TERM_PAIR_OF(c[i].attr);
		if (c[i].ch == GRID_CONT)
			continue;
		if (c[i].ch == GRID_HLINE || c[i].ch == GRID_VLINE) {
			wchar_t w[CCHARW_MAX + 1];
			attr_t la;
			short lp;
			getcchar(c[i].ch == GRID_HLINE ? WACS_HLINE : WACS_VLINE, w, &la, &lp, NULL);
			setcchar(&cells[k++], w, la | a, pair, NULL);
			continue;
		}
		cells[k++] = *cell_for(c[i].ch ? (wchar_t)c[i].ch : L' ', a, pair);
	}
	mvadd_wchnstr(y, x, cells, k);
}

/* Gives ncurses the changed cells, line by line, then shows them. */
void term_refresh(void)
{
	for (int y = 0; y < grid.lines; y++) {
		bool changed = false;
		for (int x = 0, end; grid_next_change(&grid, y, &x, &end); x = end) {
			const struct grid_cell *c = grid_at(&grid, y, x);
			for (int at = x; at < end; at += 512) {
				int n = end - at < 512 ? end - at : 512;
				bool all_narrow = true;
				for (int i = 0; i < n && all_narrow; i++)
					all_narrow = narrow(c[at - x + i].ch);
				(all_narrow ? show_narrow : show_wide)(y, at, c + (at - x), n);
			}
			changed = true;
		}
		if (changed)
			grid_shown(&grid, y);
	}
	refresh();
}
