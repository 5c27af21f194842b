/* Shared by the live view's curses drawing files (not a public surface). */
#ifndef GTM_TUI_DRAW_H
#define GTM_TUI_DRAW_H

#include "views/tui/term.h"

#include "views/tui/tui_ident.h"
#include "views/tui/tui_view.h"

enum tui_pair {
	TP_BAR = 1, TP_AI, TP_COMP, TP_BROWSER, TP_OTHER, TP_UNATTR, TP_HEAD, TP_DIM, TP_WARN, TP_CHART,
	TP_COUNT
};

/* A window onto a region of virtual lines: line `scroll` is drawn at y0. */
struct tui_clip {
	int y0, h, x0, w, scroll;
};
/* The screen row of virtual line `vline`, or -1 when it is scrolled out. */
static inline int tui_clip_y(const struct tui_clip *c, int vline)
{
	int y = vline - c->scroll;
	return y >= 0 && y < c->h ? c->y0 + y : -1;
}

term_attr tui_attr(const struct tui_view *v, enum tui_pair p);
term_attr tui_cat_attr(const struct tui_view *v, enum tui_cat c);
/* Writes at most w columns of s at (y, x); ASCII-exact, UTF-8 safe. */
void tui_put(int y, int x, int w, const char *s);
/* Blanks w columns at (y, x). */
void tui_blank(int y, int x, int w);

/* tui_dash.c: device headers, memory bars and charts. */
int tui_dash_natural(const struct tui_view *v, int width);
void tui_dash_draw(struct tui_view *v, const struct tui_clip *c);

/* tui_table.c: the process table. */
void tui_table_draw(struct tui_view *v, int y, int h, int w);

#endif
