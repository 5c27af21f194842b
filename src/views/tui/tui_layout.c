#include "views/tui/tui_layout.h"

#include <math.h>
#include <string.h>

#include "core/util.h"

/* Display order; priority says what survives a narrow terminal. */
static const struct tui_col_spec col_specs[TUI_COL_COUNT] = {
	[TUI_COL_PID] = {"PID", 9, 0, true},
	[TUI_COL_NAME] = {"NAME", 15, 1, false},
	[TUI_COL_CAT] = {"CATEGORY", 11, 5, false},
	[TUI_COL_RUNTIMES] = {"RUNTIMES", 14, 7, false},
	[TUI_COL_VRAM] = {"VRAM", 11, 2, true},
	[TUI_COL_SPILL] = {"SPILL", 11, 6, true},
	[TUI_COL_PAGED] = {"PAGED", 11, 8, true},
	[TUI_COL_GPU] = {"GPU%", 5, 3, true},
	[TUI_COL_ENC] = {"ENC", 4, 9, true},
	[TUI_COL_DEC] = {"DEC", 4, 10, true},
	[TUI_COL_GFX] = {"GFX", 4, 11, true},
	[TUI_COL_COPY] = {"CPY", 4, 12, true},
	/* DRM's video engine (amdgpu's unified VCN ring, Intel's video class): NVIDIA splits it as ENC/DEC */
	[TUI_COL_VIDEO] = {"VID", 4, 13, true},
	[TUI_COL_INSIDE] = {"WHAT'S INSIDE", 12, 4, false},
};

const struct tui_col_spec *tui_col_spec(enum tui_col c)
{
	return (unsigned)c < TUI_COL_COUNT ? &col_specs[c] : &col_specs[TUI_COL_NAME];
}

static int columns_width(const bool *on)
{
	int w = 0, n = 0;
	for (int c = 0; c < TUI_COL_COUNT; c++)
		if (on[c]) {
			w += col_specs[c].width;
			n++;
		}
	return n ? w + n - 1 : 0;
}

/* The visible column with the highest priority number: the first to go. */
static int least_important(const bool *on)
{
	int worst = -1;
	for (int c = 0; c < TUI_COL_COUNT; c++)
		if (on[c] && c != TUI_COL_PID && (worst < 0 || col_specs[c].priority > col_specs[worst].priority))
			worst = c;
	return worst;
}

void tui_columns_fit(int width, struct tui_columns *out)
{
	bool on[TUI_COL_COUNT];
	int x = 0, spare, grow;

	for (int c = 0; c < TUI_COL_COUNT; c++)
		on[c] = true;
	while (columns_width(on) > width) {
		int c = least_important(on);
		if (c < 0)
			break;
		on[c] = false;
	}
	spare = width - columns_width(on);
	if (spare < 0)
		spare = 0;
	grow = on[TUI_COL_INSIDE] ? TUI_COL_INSIDE : TUI_COL_NAME;
	out->n = 0;
	for (int c = 0; c < TUI_COL_COUNT; c++) {
		int w;
		if (!on[c])
			continue;
		w = col_specs[c].width + (c == grow ? spare : 0);
		if (c == TUI_COL_PID && w > width)
			w = width > 0 ? width : 0;
		out->id[out->n] = (enum tui_col)c;
		out->x[out->n] = x;
		out->w[out->n] = w;
		out->n++;
		x += w + 1;
	}
}

void tui_chart_grid(int n, int width, struct tui_grid *g)
{
	int per = width / TUI_CHART_MIN_W;

	if (n < 1)
		n = 1;
	if (per < 1)
		per = 1;
	if (per > n)
		per = n;
	g->per_row = per;
	g->rows = (n + per - 1) / per;
	g->cell_w = width / per;
	g->cell_h = TUI_CHART_H;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void regions_side(int avail, int cols, int dash_natural, int table_need, struct tui_regions *r)
{
	int table_min = clampi(table_need, 2, 10);

	r->side_inspector = true;
	r->insp_w = cols * 2 / 5;
	r->table_w = cols - r->insp_w - 1;
	r->dash_h = clampi(avail - table_min, 0, dash_natural);
	r->table_y = r->dash_y + r->dash_h;
	r->table_h = avail - r->dash_h;
	r->insp_y = r->table_y;
	r->insp_x = r->table_w + 1;
	r->insp_h = r->table_h;
}

static void regions_stacked(int avail, int cols, int dash_natural, int table_need, int insp_natural,
			    struct tui_regions *r)
{
	int table_min = clampi(table_need, 2, 7);
	int insp_min = clampi(insp_natural, 0, 6);
	int rest, extra;

	r->side_inspector = false;
	r->table_w = r->insp_w = cols;
	r->insp_x = 0;
	r->dash_h = clampi(avail - table_min - insp_min, 0, dash_natural);
	rest = avail - r->dash_h;
	r->table_h = clampi(rest - insp_min, rest < 2 ? rest : 2, table_need > 2 ? table_need : 2);
	r->insp_h = rest - r->table_h;
	/* Rows the inspector cannot use go back to a cut dashboard, then the table. */
	extra = r->insp_h - insp_natural;
	if (extra > 0) {
		int d = clampi(extra, 0, dash_natural - r->dash_h);
		r->dash_h += d;
		r->insp_h -= d;
		extra -= d;
		if (extra > 0) {
			r->table_h += extra;
			r->insp_h -= extra;
		}
	}
	r->table_y = r->dash_y + r->dash_h;
	r->insp_y = r->table_y + r->table_h;
}

void tui_regions_fit(int rows, int cols, int dash_natural, int n_table_rows, int insp_natural,
		     struct tui_regions *r)
{
	int avail = rows > 1 ? rows - 1 : 0;
	int table_need = n_table_rows + 1;

	*r = (struct tui_regions){0};
	r->dash_y = 1;
	if (dash_natural < 0)
		dash_natural = 0;
	if (insp_natural < 0)
		insp_natural = 0;
	if (cols >= TUI_SIDE_INSPECTOR_COLS)
		regions_side(avail, cols, dash_natural, table_need, r);
	else
		regions_stacked(avail, cols, dash_natural, table_need, insp_natural, r);
}

int tui_bar_cells(const uint64_t *vals, int n, uint64_t total, int width, int *cells, bool *normalised)
{
	long double sum = 0, denom, cum = 0;
	int prev = 0;

	*normalised = false;
	for (int i = 0; i < n; i++)
		sum += (long double)vals[i];
	denom = (long double)total;
	if (sum > denom) {
		denom = sum;
		*normalised = true;
	}
	for (int i = 0; i < n; i++) {
		int edge;
		cum += (long double)vals[i];
		edge = denom > 0 && width > 0 ? (int)gtm_llroundl(cum * width / denom) : 0;
		edge = clampi(edge, prev, width > 0 ? width : 0);
		cells[i] = edge - prev;
		prev = edge;
	}
	return prev;
}

int tui_chart_level(bool present, double v, double max, int h)
{
	int top = h * 8, lvl;

	if (!present || isnan(v) || h <= 0)
		return -1;
	if (v <= 0)
		return 0;
	if (!(max > 0) || v >= max)
		return top;
	lvl = (int)gtm_llround(v / max * top);
	return clampi(lvl, 1, top);
}

int tui_chart_cell_eighths(int level, int row)
{
	return clampi(level - row * 8, 0, 8);
}

int tui_scroll_clamp(int off, int view, int total)
{
	int max = total - view;
	if (max < 0)
		max = 0;
	return clampi(off, 0, max);
}

int tui_scroll_follow(int top, int sel, int view, int total)
{
	if (view < 1)
		return tui_scroll_clamp(sel, 1, total);
	if (sel < top)
		top = sel;
	else if (sel >= top + view)
		top = sel - view + 1;
	return tui_scroll_clamp(top, view, total);
}

const char *tui_status_hints(int room, bool more)
{
	/* longest first; the last of each is the floor every size keeps */
	static const char *const with_more[] = {" ]:more below  ?:help  p:pause  q:quit", " ]:more  ?:help  p:pause  q:quit",
						" ]:more  ?:help  q:quit", " ]:more ?:help q:quit", " ?:help q:quit"};
	static const char *const plain[] = {" ?:help  p:pause  q:quit", " ?:help  q:quit", " ?:help q:quit"};
	const char *const *t = more ? with_more : plain;
	size_t n = more ? sizeof with_more / sizeof *with_more : sizeof plain / sizeof *plain;
	for (size_t i = 0; i + 1 < n; i++)
		if ((int)strlen(t[i]) <= room)
			return t[i];
	return t[n - 1];
}
