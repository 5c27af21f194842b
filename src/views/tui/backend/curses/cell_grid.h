/* The frame being drawn and the frame last shown, as cells (one character
 * and its attributes each), so that only the cells that changed reach
 * ncurses. The view erases and redraws the whole screen per snapshot; given
 * to ncurses as it is, werase and wnoutrefresh then walk all of its cells
 * (about a fifth of the UI thread at 200x60, perf) although a refresh
 * changes a few hundred. */
#ifndef GTM_CELL_GRID_H
#define GTM_CELL_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A cell: a code point (0: blank), or one of these; and a term_attr. */
#define GRID_HLINE 0x110000u
#define GRID_VLINE 0x110001u
#define GRID_CONT 0x110002u /* the right half of a two-column character */

struct grid_cell {
	uint32_t ch;
	uint32_t attr;
};

struct cell_grid {
	int lines, cols;
	struct grid_cell *draw;  /* the frame being drawn */
	struct grid_cell *shown; /* what ncurses has */
};

/* Sizes the grid to lines x cols; a new size forgets what was shown. */
void grid_resize(struct cell_grid *g, int lines, int cols);
void grid_free(struct cell_grid *g);
/* Blanks the frame being drawn. */
void grid_erase(struct cell_grid *g);
/* The cell at (y, x) of the frame being drawn, or NULL off the screen. */
static inline struct grid_cell *grid_at(struct cell_grid *g, int y, int x)
{
	return y >= 0 && y < g->lines && x >= 0 && x < g->cols ? &g->draw[(long)y * g->cols + x] : NULL;
}
/* The next run of changed cells of line y at or after *x: true with [*x, *end)
 * set (a two-column character whole); the caller shows it, then grid_shown. */
bool grid_next_change(const struct cell_grid *g, int y, int *x, int *end);
/* Line y as drawn is now what ncurses has. */
void grid_shown(struct cell_grid *g, int y);

#endif
