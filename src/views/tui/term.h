/* The live view's terminal: a grid of character cells with attributes, keys
 * and mouse events, and one wait that wakes on input, on another thread's
 * wake-up or on a request to quit. One backend per OS, picked by the build
 * (src/views/tui/meson.build): backend/curses (ncursesw, POSIX) and
 * backend/wincon (the Win32 console API). Only the UI thread calls these,
 * except term_wake (any thread). The layout and state code never sees a
 * backend type. */
#ifndef GTM_TERM_H
#define GTM_TERM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A cell's attributes: style bits, and a colour pair (1..63, set up with
 * term_color_pair; 0 = the terminal's default colours) in bits 8..13. */
typedef uint32_t term_attr;
#define TERM_NORMAL 0u
#define TERM_BOLD 1u
#define TERM_REVERSE 2u
#define TERM_DIM 4u
#define TERM_BLINK 8u
#define TERM_STYLE_BITS 15u
#define TERM_PAIR_MAX 63
#define TERM_PAIR(p) ((term_attr)(p) << 8)
#define TERM_PAIR_OF(a) ((int)(((a) >> 8) & 63u))

/* The eight ANSI colours; TERM_DEFAULT is the terminal's own. */
enum term_color {
	TERM_DEFAULT = -1, TERM_BLACK, TERM_RED, TERM_GREEN, TERM_YELLOW, TERM_BLUE, TERM_MAGENTA, TERM_CYAN,
	TERM_WHITE
};

/* Line-drawing glyphs for term_hline/term_vline, besides any ASCII character. */
#define TERM_GLYPH_HLINE 0x100
#define TERM_GLYPH_VLINE 0x101

struct term_info {
	bool color;      /* colours may be used (a colour terminal and NO_COLOR unset or empty) */
	bool pairs;      /* term_color_pair works */
	bool default_bg; /* TERM_DEFAULT works as a background */
	bool utf8;       /* the terminal shows UTF-8 (box drawing, blocks) */
};

/* An input event: a key (printable, or enum tui_key from tui_keys.h), or a
 * mouse event (mouse >= 0: enum tui_mouse at cell y, x). */
struct term_event {
	int key;
	int mouse;
	int y, x;
};

/* term_wait's answer, a set of bits. */
enum {
	TERM_WAIT_INPUT = 1, /* term_read may have events */
	TERM_WAIT_WOKEN = 2, /* term_wake was called since the last wait */
	TERM_WAIT_QUIT = 4,  /* the user or the system asked the view to end */
	TERM_WAIT_HUP = 8,   /* the terminal is gone */
};

/* Before any thread starts: the locale, the wake-up channel. why says what failed. */
bool term_open(char *why, size_t n);
/* Starts a thread that never receives the terminal's signals or events. */
int term_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
/* Takes the screen: keys unbuffered, mouse, hidden cursor, colours, a guard
 * that restores the terminal when the process crashes, quit requests
 * (Ctrl-C and the like) turned into TERM_WAIT_QUIT. */
bool term_start(struct term_info *info);
/* Gives the screen back as it was. */
void term_end(void);
/* After term_end and the last term_wake: closes the wake-up channel. */
void term_close(void);
/* The process's exit status after a quit request (0 when none). A request
 * that must end the process the way it would have ended without the view
 * (SIGTERM, SIGHUP) does so here. */
int term_exit_status(void);

/* Wakes term_wait; safe from any thread and from a signal handler. */
void term_wake(void);
/* Blocks until input, a wake-up or a quit request; returns TERM_WAIT_* bits. */
int term_wait(void);
/* Takes the next pending input event; false when none is pending. */
bool term_read(struct term_event *ev);

void term_color_pair(int pair, enum term_color fg, enum term_color bg);
void term_size(int *lines, int *cols);
void term_erase(void);
void term_attr_on(term_attr a);
void term_attr_off(term_attr a);
/* Writes n bytes (n < 0: all) of UTF-8 at (y, x), one cell per character;
 * the caller keeps them on the line. */
void term_put(int y, int x, const char *s, int n);
/* n cells of glyph (an ASCII character or TERM_GLYPH_*) from (y, x) rightwards / downwards. */
void term_hline(int y, int x, int glyph, int n);
void term_vline(int y, int x, int glyph, int n);
/* Shows what was drawn since the last refresh. */
void term_refresh(void);

#endif
