/* ncursesw linked into the binary (static builds): the table holds the
 * linked names (curses_ep.h says why there is a table). */
#include "views/tui/backend/curses/curses_ep.h"

#define CURSES_EP_LINKED(name) .name = &name,
struct curses_ep curses_ep = {CURSES_EP_NAMES(CURSES_EP_LINKED)};
const char *const curses_lib_names[] = {NULL};

bool curses_ep_load(char *why, size_t n)
{
	(void)why;
	(void)n;
	return true;
}
