/* The ncursesw (and its terminfo half, tinfo) names the curses backend
 * uses, through one table of entry points, so that only the live view pays
 * for the library: a Linux build that links it shared loads
 * libncursesw.so.6 with dlopen when the live view opens the terminal
 * (curses_dl.c); a build that links it statically (macOS, the portable
 * tarballs) fills the table with the linked names (curses_linked.c).
 * Mapping and relocating ncursesw and tinfo cost every run about two dozen
 * page faults at start, most of what a one-shot run costs on a VM where a
 * fault costs 15 us (docs/benchmarks.md). */
#ifndef GTM_CURSES_EP_H
#define GTM_CURSES_EP_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

/* Every function and variable the backend names (curses_names.h points each
 * at its slot): what <curses.h>'s macros (getch, refresh, mvaddchnstr,
 * ACS_HLINE, WACS_HLINE, getmaxyx) expand to, and the calls themselves
 * (<curses.h> declares tigetstr too; <term.h>'s capability macros, lines
 * and columns among them, stay out of the backend). */
#define CURSES_EP_NAMES(X)                                                                                  \
	X(newterm) X(endwin) X(cbreak) X(noecho) X(nonl) X(keypad) X(nodelay) X(curs_set) X(set_escdelay)        \
	X(mousemask) X(mouseinterval) X(getmouse) X(has_colors) X(start_color) X(use_default_colors)             \
	X(init_pair) X(setcchar) X(getcchar) X(wgetch) X(wmove) X(waddchnstr) X(wadd_wchnstr) X(wrefresh)         \
	X(tigetstr) X(typeahead) X(stdscr) X(acs_map) X(_nc_wacs)

/* One slot a name: its address, of the type the headers declare. */
struct curses_ep {
#define CURSES_EP_SLOT(name) __typeof__(name) *name;
	CURSES_EP_NAMES(CURSES_EP_SLOT)
#undef CURSES_EP_SLOT
};
extern struct curses_ep curses_ep;

/* The library's soname(s) the build loads, NULL-terminated; empty (just
 * NULL) when it is linked. */
extern const char *const curses_lib_names[];

/* Makes every slot usable; false with why ("the live view needs libncursesw
 * ...: libncursesw.so.6 not loadable: ...") when the library is absent or
 * lacks a name. Loads once. */
bool curses_ep_load(char *why, size_t n);

#endif
