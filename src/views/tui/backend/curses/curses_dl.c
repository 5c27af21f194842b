/* ncursesw loaded with dlopen when the live view opens the terminal
 * (curses_ep.h says why); tinfo comes with it as its dependency, and dlsym
 * on ncursesw's handle finds tinfo's names (stdscr, acs_map, tigetstr). */
#include "views/tui/backend/curses/curses_ep.h"

#include <stdio.h>

#include "core/dl_table.h"

struct curses_ep curses_ep;
/* Debian's libncursesw6 (the ABI 6 soname since ncurses 6.0) */
const char *const curses_lib_names[] = {"libncursesw.so.6", NULL};

bool curses_ep_load(char *why, size_t n)
{
#define CURSES_EP_SYM(name) #name,
#define CURSES_EP_SLOT_OF(name) (void **)&curses_ep.name,
	static const char *const syms[] = {CURSES_EP_NAMES(CURSES_EP_SYM) NULL};
	static void **const slots[] = {CURSES_EP_NAMES(CURSES_EP_SLOT_OF) NULL};
	static bool loaded;
	char load_why[192];

	/* only the UI thread's term_open calls this, before any other thread starts */
	if (!loaded && !(loaded = dl_table_open(curses_lib_names, syms, slots, load_why, sizeof load_why)))
		snprintf(why, n, "the live view needs libncursesw (Debian: libncursesw6; --once and the other commands "
				 "work without it): %s", load_why);
	return loaded;
}
