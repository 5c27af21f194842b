/* The terminal through the Win32 console API: the view draws into a cell
 * array (CHAR_INFO) shown with WriteConsoleOutputW on a screen buffer of its
 * own (the alternate screen: the user's buffer comes back untouched), input
 * comes from ReadConsoleInputW (keys, mouse, WINDOW_BUFFER_SIZE_EVENT for
 * resizes), and an event object wakes the wait. Functions and records from
 * Microsoft's console reference (learn.microsoft.com/windows/console). */
#include "views/tui/term.h"

#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "views/tui/backend/wincon/console_guard.h"
#include "views/tui/tui_keys.h"

static struct {
	HANDLE in, user_out, screen, wake;
	DWORD user_in_mode;
	WORD default_attr;
	CHAR_INFO *cells;
	int lines, cols;
	term_attr cur;
	WORD pair_word[TERM_PAIR_MAX + 1]; /* console colour bits per pair */
	bool color;
	DWORD buttons;                     /* mouse buttons down at the last event */
} con;

bool term_open(char *why, size_t n)
{
	con.wake = CreateEventW(NULL, FALSE, FALSE, NULL);
	if (!con.wake) {
		snprintf(why, n, "CreateEvent failed (error %lu)", (unsigned long)GetLastError());
		return false;
	}
	return true;
}

void term_close(void)
{
	if (con.wake)
		CloseHandle(con.wake);
	con.wake = NULL;
}

int term_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	return pthread_create(t, NULL, fn, arg);
}

void term_wake(void)
{
	if (con.wake)
		SetEvent(con.wake);
}

/* The window's size; the view's screen buffer is kept exactly that size, so
 * there is no scroll bar and a cell is a window position. */
static bool fit_to_window(void)
{
	CONSOLE_SCREEN_BUFFER_INFO bi;
	if (!GetConsoleScreenBufferInfo(con.screen, &bi))
		return false;
	int cols = bi.srWindow.Right - bi.srWindow.Left + 1, lines = bi.srWindow.Bottom - bi.srWindow.Top + 1;
	if (cols < 1 || lines < 1)
		return false;
	COORD size = {(SHORT)cols, (SHORT)lines};
	SMALL_RECT win = {0, 0, (SHORT)(cols - 1), (SHORT)(lines - 1)};
	SetConsoleScreenBufferSize(con.screen, size);
	SetConsoleWindowInfo(con.screen, TRUE, &win);
	if (cols != con.cols || lines != con.lines || !con.cells) {
		free(con.cells);
		con.cells = xcalloc((size_t)cols * (size_t)lines, sizeof *con.cells);
		con.cols = cols;
		con.lines = lines;
	}
	return true;
}

bool term_start(struct term_info *info)
{
	const char *no_color = getenv("NO_COLOR");
	CONSOLE_SCREEN_BUFFER_INFO bi;
	CONSOLE_CURSOR_INFO hidden = {1, FALSE};

	memset(info, 0, sizeof *info);
	con.in = GetStdHandle(STD_INPUT_HANDLE);
	con.user_out = GetStdHandle(STD_OUTPUT_HANDLE);
	if (!GetConsoleMode(con.in, &con.user_in_mode) || !GetConsoleScreenBufferInfo(con.user_out, &bi))
		return false; /* not a console */
	con.default_attr = bi.wAttributes & 0xff;
	con.screen = CreateConsoleScreenBuffer(GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
					       CONSOLE_TEXTMODE_BUFFER, NULL);
	if (con.screen == INVALID_HANDLE_VALUE)
		return false;
	SetConsoleActiveScreenBuffer(con.screen);
	fit_to_window();
	SetConsoleCursorInfo(con.screen, &hidden);
	/* Keys as they come (no line editing, no echo; Ctrl-C arrives as a key),
	 * mouse and resize records; quick edit off, or the mouse would select. */
	SetConsoleMode(con.in, ENABLE_WINDOW_INPUT | ENABLE_MOUSE_INPUT | ENABLE_EXTENDED_FLAGS);
	console_guard_arm(con.in, con.user_in_mode, con.user_out, con.wake);
	/* https://no-color.org: present and not empty disables colour. */
	info->color = info->pairs = con.color = !(no_color && no_color[0]);
	info->default_bg = true;
	info->utf8 = true; /* cells are UTF-16: box drawing and blocks always exist */
	con.cur = TERM_NORMAL;
	return true;
}

void term_end(void)
{
	console_guard_disarm();
	SetConsoleActiveScreenBuffer(con.user_out);
	SetConsoleMode(con.in, con.user_in_mode);
	if (con.screen && con.screen != INVALID_HANDLE_VALUE)
		CloseHandle(con.screen);
	con.screen = NULL;
	free(con.cells);
	con.cells = NULL;
	con.lines = con.cols = 0;
}

int term_exit_status(void)
{
	return console_guard_quit_status();
}

int term_wait(void)
{
	HANDLE h[2] = {con.in, con.wake};
	int r = 0;
	DWORD w = WaitForMultipleObjects(2, h, FALSE, INFINITE);

	if (w == WAIT_FAILED)
		return TERM_WAIT_HUP;
	if (console_guard_quit_status())
		return TERM_WAIT_QUIT;
	if (w == WAIT_OBJECT_0 + 1 || WaitForSingleObject(con.wake, 0) == WAIT_OBJECT_0)
		r |= TERM_WAIT_WOKEN;
	return r | TERM_WAIT_INPUT;
}

/* Virtual keys the view knows; characters come from uChar. */
static const struct {
	WORD vk;
	int key;
} vkeys[] = {
	{VK_UP, TUI_KEY_UP}, {VK_DOWN, TUI_KEY_DOWN}, {VK_PRIOR, TUI_KEY_PGUP}, {VK_NEXT, TUI_KEY_PGDN},
	{VK_HOME, TUI_KEY_HOME}, {VK_END, TUI_KEY_END}, {VK_LEFT, TUI_KEY_LEFT}, {VK_RIGHT, TUI_KEY_RIGHT},
	{VK_BACK, TUI_KEY_BACKSPACE},
};

static int map_key(const KEY_EVENT_RECORD *k)
{
	WCHAR c = k->uChar.UnicodeChar;
	for (size_t i = 0; i < ARRAY_LEN(vkeys); i++)
		if (k->wVirtualKeyCode == vkeys[i].vk)
			return vkeys[i].key;
	if (c == 3) {
		console_guard_request_quit(CTRL_C_EVENT);
		return 0;
	}
	if (c == 27)
		return TUI_KEY_ESC;
	if (c == '\r' || c == '\n')
		return TUI_KEY_ENTER;
	return c >= 0x20 && c < 0x7f ? c : 0;
}

/* A click acts on release of the left button, as in the curses backend. */
static int map_mouse(const MOUSE_EVENT_RECORD *m, struct term_event *ev)
{
	DWORD was = con.buttons;
	ev->y = m->dwMousePosition.Y;
	ev->x = m->dwMousePosition.X;
	if (m->dwEventFlags & MOUSE_WHEELED)
		return (SHORT)HIWORD(m->dwButtonState) > 0 ? TUI_MOUSE_WHEEL_UP : TUI_MOUSE_WHEEL_DOWN;
	if (m->dwEventFlags & (MOUSE_MOVED | MOUSE_HWHEELED))
		return -1;
	con.buttons = m->dwButtonState;
	if ((was & FROM_LEFT_1ST_BUTTON_PRESSED) && !(m->dwButtonState & FROM_LEFT_1ST_BUTTON_PRESSED))
		return TUI_MOUSE_CLICK;
	return -1;
}

bool term_read(struct term_event *ev)
{
	DWORD pending = 0, got = 0;
	INPUT_RECORD rec;

	while (GetNumberOfConsoleInputEvents(con.in, &pending) && pending > 0 && ReadConsoleInputW(con.in, &rec, 1, &got) &&
	       got == 1) {
		ev->key = 0;
		ev->mouse = -1;
		if (rec.EventType == KEY_EVENT && rec.Event.KeyEvent.bKeyDown)
			ev->key = map_key(&rec.Event.KeyEvent);
		else if (rec.EventType == MOUSE_EVENT)
			ev->mouse = map_mouse(&rec.Event.MouseEvent, ev);
		else if (rec.EventType == WINDOW_BUFFER_SIZE_EVENT && fit_to_window())
			ev->key = TUI_KEY_RESIZE;
		if (ev->key || ev->mouse >= 0)
			return true;
	}
	return false;
}

/* ANSI colour numbers (bit 0 red, 1 green, 2 blue) as console colour bits. */
static WORD console_color(enum term_color c, WORD dflt)
{
	if (c < TERM_BLACK || c > TERM_WHITE)
		return dflt;
	return (WORD)((c & 1 ? FOREGROUND_RED : 0) | (c & 2 ? FOREGROUND_GREEN : 0) | (c & 4 ? FOREGROUND_BLUE : 0));
}

void term_color_pair(int pair, enum term_color fg, enum term_color bg)
{
	if (pair < 1 || pair > TERM_PAIR_MAX)
		return;
	con.pair_word[pair] = (WORD)(console_color(fg, con.default_attr & 0x0f) |
				     console_color(bg, (con.default_attr >> 4) & 0x0f) << 4);
}

/* A cell's console attribute: the pair's colours (or the console's own),
 * bold as the bright foreground, reverse as swapped colours. The console has
 * neither dim nor blink: dim text keeps its plain colour, blink is bold. */
static WORD cell_word(term_attr a)
{
	int p = TERM_PAIR_OF(a);
	WORD w = p && con.color ? con.pair_word[p] : con.default_attr, fg = w & 0x0f, bg = (w >> 4) & 0x0f;
	if (a & (TERM_BOLD | TERM_BLINK))
		fg |= FOREGROUND_INTENSITY;
	if (a & TERM_REVERSE) {
		WORD t = fg;
		fg = bg;
		bg = t;
	}
	return (WORD)(fg | bg << 4);
}

void term_size(int *lines, int *cols)
{
	*lines = con.lines;
	*cols = con.cols;
}

void term_erase(void)
{
	WORD w = cell_word(TERM_NORMAL);
	for (int i = 0; i < con.lines * con.cols; i++) {
		con.cells[i].Char.UnicodeChar = L' ';
		con.cells[i].Attributes = w;
	}
}

void term_attr_on(term_attr a)
{
	con.cur |= a & TERM_STYLE_BITS;
	if (TERM_PAIR_OF(a))
		con.cur = (con.cur & TERM_STYLE_BITS) | TERM_PAIR(TERM_PAIR_OF(a));
}

void term_attr_off(term_attr a)
{
	con.cur &= ~(a & TERM_STYLE_BITS);
	if (TERM_PAIR_OF(a))
		con.cur &= TERM_STYLE_BITS;
}

static void put_cell(int y, int x, WCHAR c)
{
	if (y < 0 || y >= con.lines || x < 0 || x >= con.cols)
		return;
	con.cells[y * con.cols + x].Char.UnicodeChar = c;
	con.cells[y * con.cols + x].Attributes = cell_word(con.cur);
}

/* One UTF-8 character from s (at most n bytes) as a console cell: a code
 * point beyond the BMP (two UTF-16 units, one cell cannot hold them) or a
 * malformed sequence becomes U+FFFD. Returns the bytes it took. */
static int utf8_cell(const unsigned char *s, int n, WCHAR *out)
{
	int len = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
	uint32_t cp = len == 1 ? s[0] : len == 2 ? s[0] & 0x1Fu : len == 3 ? s[0] & 0x0Fu : s[0] & 0x07u;
	if (len == 0 || len > n) {
		*out = 0xFFFD;
		return 1;
	}
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*out = 0xFFFD;
			return i;
		}
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	*out = cp > 0xFFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0xFFFD : (WCHAR)cp;
	return len;
}

void term_put(int y, int x, const char *s, int n)
{
	const unsigned char *u = (const unsigned char *)s;
	int len = n < 0 ? (int)strlen(s) : n;
	for (int i = 0; i < len && u[i] && x < con.cols; x++) {
		WCHAR c;
		i += utf8_cell(u + i, len - i, &c);
		put_cell(y, x, c);
	}
}

static WCHAR glyph_char(int glyph)
{
	return glyph == TERM_GLYPH_HLINE ? 0x2500 : glyph == TERM_GLYPH_VLINE ? 0x2502 : (WCHAR)glyph;
}

void term_hline(int y, int x, int glyph, int n)
{
	for (int i = 0; i < n; i++)
		put_cell(y, x + i, glyph_char(glyph));
}

void term_vline(int y, int x, int glyph, int n)
{
	for (int i = 0; i < n; i++)
		put_cell(y + i, x, glyph_char(glyph));
}

void term_refresh(void)
{
	COORD size = {(SHORT)con.cols, (SHORT)con.lines}, origin = {0, 0};
	SMALL_RECT rect = {0, 0, (SHORT)(con.cols - 1), (SHORT)(con.lines - 1)};
	if (con.cells)
		WriteConsoleOutputW(con.screen, con.cells, size, origin, &rect);
}
