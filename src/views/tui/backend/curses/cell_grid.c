#include "views/tui/backend/curses/cell_grid.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* A cell no drawing produces: what "shown" holds when ncurses' screen is unknown. */
static const struct grid_cell unknown = {0xFFFFFFFFu, 0xFFFFFFFFu};

void grid_resize(struct cell_grid *g, int lines, int cols)
{
	if (lines == g->lines && cols == g->cols && g->draw)
		return;
	size_t n = (size_t)(lines > 0 ? lines : 0) * (size_t)(cols > 0 ? cols : 0);
	free(g->draw);
	free(g->shown);
	g->lines = lines > 0 ? lines : 0;
	g->cols = cols > 0 ? cols : 0;
	g->draw = xcalloc(n ? n : 1, sizeof *g->draw);
	g->shown = xmalloc((n ? n : 1) * sizeof *g->shown);
	for (size_t i = 0; i < n; i++)
		g->shown[i] = unknown;
}

void grid_free(struct cell_grid *g)
{
	free(g->draw);
	free(g->shown);
	memset(g, 0, sizeof *g);
}

void grid_erase(struct cell_grid *g)
{
	memset(g->draw, 0, (size_t)g->lines * (size_t)g->cols * sizeof *g->draw);
}

static bool same(const struct grid_cell *a, const struct grid_cell *b)
{
	return a->ch == b->ch && a->attr == b->attr;
}

bool grid_next_change(const struct cell_grid *g, int y, int *x, int *end)
{
	const struct grid_cell *d = &g->draw[(long)y * g->cols], *s = &g->shown[(long)y * g->cols];
	int i = *x;

	/* most lines did not change at all: one memcmp says so */
	if (i == 0 && memcmp(d, s, (size_t)g->cols * sizeof *d) == 0)
		return false;

	while (i < g->cols && same(&d[i], &s[i]))
		i++;
	if (i >= g->cols)
		return false;
	if (d[i].ch == GRID_CONT && i > 0)
		i--; /* a character's right half changed: the whole character */
	int j = i + 1;
	/* a run ends at a few unchanged cells: one call per short gap costs more */
	for (int same_run = 0; j < g->cols; j++) {
		same_run = same(&d[j], &s[j]) ? same_run + 1 : 0;
		if (same_run == 4) {
			j -= 3;
			break;
		}
	}
	while (j < g->cols && d[j].ch == GRID_CONT)
		j++;
	*x = i;
	*end = j;
	return true;
}

void grid_shown(struct cell_grid *g, int y)
{
	memcpy(&g->shown[(long)y * g->cols], &g->draw[(long)y * g->cols], (size_t)g->cols * sizeof *g->shown);
}
