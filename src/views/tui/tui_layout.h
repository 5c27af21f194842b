/* Pure layout arithmetic of the live view: column widths for a width, the
 * chart grid for a size, screen regions, bar normalisation, chart levels.
 * No curses here, so every rule is unit-tested (tests/unit/tui). */
#ifndef GTM_TUI_LAYOUT_H
#define GTM_TUI_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

/* Process-table columns, in display order. */
enum tui_col {
	TUI_COL_PID, TUI_COL_NAME, TUI_COL_CAT, TUI_COL_RUNTIMES, TUI_COL_VRAM, TUI_COL_SPILL,
	TUI_COL_PAGED, TUI_COL_GPU, TUI_COL_ENC, TUI_COL_DEC, TUI_COL_GFX, TUI_COL_COPY,
	TUI_COL_VIDEO, TUI_COL_INSIDE, TUI_COL_COUNT
};

struct tui_col_spec {
	const char *title;
	int width;      /* minimum width */
	int priority;   /* 0 = kept longest; the highest goes first when narrow */
	bool right;     /* right-aligned (numbers) */
};
const struct tui_col_spec *tui_col_spec(enum tui_col c);

struct tui_columns {
	int n;
	enum tui_col id[TUI_COL_COUNT];
	int x[TUI_COL_COUNT];
	int w[TUI_COL_COUNT];
};
/* The columns that fit `width`, in display order, one space apart; what is left
 * widens the "what's inside" column (or the name when inside does not fit). */
void tui_columns_fit(int width, struct tui_columns *out);

/* History charts: a grid of cells of equal size. */
#define TUI_CHART_MIN_W 36
#define TUI_CHART_H 5 /* title row + 4 plot rows */
struct tui_grid {
	int per_row, rows, cell_w, cell_h;
};
/* n charts in `width` columns: one per row when narrow, more as it widens. */
void tui_chart_grid(int n, int width, struct tui_grid *g);

/* Screen regions. Row 0 is the status bar. */
struct tui_regions {
	int dash_y, dash_h;                       /* header + charts, scrolls when short */
	int table_y, table_h, table_w;            /* process table incl. its title row */
	int insp_y, insp_x, insp_h, insp_w;       /* inspector, scrolls when short */
	bool side_inspector;                      /* inspector right of the table */
};
#define TUI_SIDE_INSPECTOR_COLS 160
void tui_regions_fit(int rows, int cols, int dash_natural, int n_table_rows, int insp_natural,
		     struct tui_regions *r);

/* The status bar's key hints for `room` free cells at its right end: the
 * longest of a table that fits, "]:more" first to go short when the dashboard
 * is taller than its region (more), then "p:pause"; "?:help q:quit" stays at
 * every size: when even that does not fit the room it is returned anyway and
 * the caller draws it over the end of the bar's other text. */
const char *tui_status_hints(int room, bool more);

/* Splits `width` cells among n segments in proportion to vals against `total`.
 * When the values add up to more than total the bar is scaled to their sum and
 * *normalised is set; the caller's legend keeps the raw values. cells[i] >= 0;
 * their sum never exceeds width. Returns the cells used. */
int tui_bar_cells(const uint64_t *vals, int n, uint64_t total, int width, int *cells, bool *normalised);

/* A chart sample's height in eighths of a cell over h rows on a 0..max scale:
 * -1 = missing (drawn blank), 0 = a measured zero (drawn at the baseline),
 * else 1..h*8 (a positive value is never drawn as zero). */
int tui_chart_level(bool present, double v, double max, int h);
/* Eighths (0..8) of the cell `row` (0 = bottom) filled for a level. */
int tui_chart_cell_eighths(int level, int row);

/* Clamps a scroll offset so a window of `view` lines over `total` stays filled. */
int tui_scroll_clamp(int off, int view, int total);
/* The first visible row that keeps row `sel` inside a window of `view` rows. */
int tui_scroll_follow(int top, int sel, int view, int total);

#endif
