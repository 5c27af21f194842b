/* Included by the backend's files that call ncursesw, after the curses
 * headers (through curses_ep.h): each name CURSES_EP_NAMES lists is its
 * slot in curses_ep, so the code reads as plain curses and the macros of
 * <curses.h> expand to the table. term_open loads the table first. */
#ifndef GTM_CURSES_NAMES_H
#define GTM_CURSES_NAMES_H

#include "views/tui/backend/curses/curses_ep.h"

#define newterm (*curses_ep.newterm)
#define endwin (*curses_ep.endwin)
#define cbreak (*curses_ep.cbreak)
#define noecho (*curses_ep.noecho)
#define nonl (*curses_ep.nonl)
#define keypad (*curses_ep.keypad)
#define nodelay (*curses_ep.nodelay)
#define curs_set (*curses_ep.curs_set)
#define set_escdelay (*curses_ep.set_escdelay)
#define mousemask (*curses_ep.mousemask)
#define mouseinterval (*curses_ep.mouseinterval)
#define getmouse (*curses_ep.getmouse)
#define has_colors (*curses_ep.has_colors)
#define start_color (*curses_ep.start_color)
#define use_default_colors (*curses_ep.use_default_colors)
#define init_pair (*curses_ep.init_pair)
#define setcchar (*curses_ep.setcchar)
#define getcchar (*curses_ep.getcchar)
#define wgetch (*curses_ep.wgetch)
#define wmove (*curses_ep.wmove)
#define waddchnstr (*curses_ep.waddchnstr)
#define wadd_wchnstr (*curses_ep.wadd_wchnstr)
#define wrefresh (*curses_ep.wrefresh)
#define tigetstr (*curses_ep.tigetstr)
#define typeahead (*curses_ep.typeahead)
#define stdscr (*curses_ep.stdscr)
#define acs_map (*curses_ep.acs_map)
#define _nc_wacs (*curses_ep._nc_wacs)

#endif
