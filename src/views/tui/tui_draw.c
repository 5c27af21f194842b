/* One frame of the live view: status bar, dashboard, table, inspector, and
 * the help page or Charts menu on top. */
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "views/tui/tui_draw.h"
#include "views/tui/tui_inspect.h"

static bool have_colors;

void tui_view_colors(bool use_default_bg)
{
	enum term_color bg = use_default_bg ? TERM_DEFAULT : TERM_BLACK;
	static const struct { enum tui_pair pair; enum term_color fg; } pairs[] = {
		{TP_BAR, TERM_CYAN}, {TP_AI, TERM_MAGENTA}, {TP_COMP, TERM_BLUE}, {TP_BROWSER, TERM_YELLOW},
		{TP_OTHER, TERM_GREEN}, {TP_UNATTR, TERM_RED}, {TP_HEAD, TERM_CYAN}, {TP_DIM, TERM_DEFAULT},
		{TP_WARN, TERM_YELLOW}, {TP_CHART, TERM_GREEN},
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
		term_color_pair(pairs[i].pair, pairs[i].fg, bg);
	have_colors = true;
}

term_attr tui_attr(const struct tui_view *v, enum tui_pair p)
{
	term_attr extra = p == TP_HEAD ? TERM_BOLD : p == TP_BAR ? TERM_REVERSE : p == TP_DIM ? TERM_DIM : TERM_NORMAL;
	if (!v->color || !have_colors)
		return p == TP_WARN ? TERM_BOLD : extra;
	return TERM_PAIR(p) | extra;
}

term_attr tui_cat_attr(const struct tui_view *v, enum tui_cat c)
{
	static const enum tui_pair pair[TUI_CAT_COUNT] = {TP_AI, TP_COMP, TP_BROWSER, TP_OTHER, TP_UNATTR};
	return (unsigned)c < TUI_CAT_COUNT && v->color && have_colors ? TERM_PAIR(pair[c]) : (term_attr)TERM_NORMAL;
}

void tui_put(int y, int x, int w, const char *s)
{
	char safe[1024];
	int n = 0, cols = 0;

	if (w <= 0 || y < 0 || x < 0)
		return;
	/* Every string reaches the screen here: escape control characters so a
	 * process name, model header or log line cannot send ESC/CSI/OSC (ncurses
	 * shows C0 as ^X but may pass C1 characters and bad UTF-8 on). */
	s = fmt_safe(safe, sizeof safe, s);
	/* Count bytes of at most w columns, treating a UTF-8 sequence as one. */
	while (s[n] && cols < w) {
		n++;
		while ((s[n] & 0xC0) == 0x80)
			n++;
		cols++;
	}
	term_put(y, x, s, n);
}

void tui_blank(int y, int x, int w)
{
	if (w > 0)
		term_hline(y, x, ' ', w);
}

static void draw_status(struct tui_view *v, int w)
{
	char left[400], charts[48];
	const struct gtm_snapshot *s = v->snap;
	int n = v->st.all ? v->n_rows : s ? s->n_gpu_processes : 0, x;

	/* Host and mode only when there is room; the device line repeats the mode. */
	snprintf(left, sizeof left, " gputaskman%s%s%s%s%s  sort %s  %s %d  ", w > 110 && s ? "  " : "",
		 w > 110 && s ? s->hostname : "", v->cursor[0] ? "  " : "", v->cursor, v->st.paused ? "  PAUSED" : "",
		 tui_sort_name(v->st.sort),
		 v->st.all ? "all processes" : "GPU processes", n);
	snprintf(charts, sizeof charts, "[Charts: %s %s]", v->st.chart >= TUI_M_COUNT ? "all" : tui_metric_title((enum tui_metric)v->st.chart),
		 v->utf8 ? "\u25be" : "v");
	term_attr_on(tui_attr(v, TP_BAR));
	tui_blank(0, 0, w);
	tui_put(0, 0, w, left);
	if (v->st.paused) {
		/* PAUSED stands out: it explains why nothing moves. */
		x = (int)(strstr(left, "PAUSED") - left);
		term_attr_on(TERM_BOLD | TERM_BLINK);
		tui_put(0, x, w - x, "PAUSED");
		term_attr_off(TERM_BOLD | TERM_BLINK);
	}
	v->menu_x = (int)strlen(left);
	v->menu_w = (int)strlen(charts) - (v->utf8 ? 2 : 0);
	tui_put(0, v->menu_x, w - v->menu_x, charts);
	x = v->menu_x + v->menu_w + 2;
	/* a dashboard taller than its region (a second GPU, more charts) says so;
	 * the hints are drawn last, over the bar's other text when it is short */
	bool more = v->st.overlay != TUI_OVL_HELP && v->dash_natural > v->reg.dash_h + v->st.dash_scroll;
	const char *hints = tui_status_hints(w - x, more);
	int hx = w - (int)strlen(hints);
	if (hx < 0)
		hx = 0;
	tui_blank(0, hx, w - hx);
	tui_put(0, hx, w - hx, hints);
	if (v->menu_x + v->menu_w > hx) /* a click on the hints opens no menu */
		v->menu_w = hx > v->menu_x ? hx - v->menu_x : 0;
	term_attr_off(tui_attr(v, TP_BAR));
}

static void draw_text(const struct tui_view *v, const struct tui_text *t, const struct tui_clip *c)
{
	static const enum tui_pair style_pair[] = {0, TP_HEAD, TP_DIM, TP_WARN, 0};
	for (int r = 0; r < c->h; r++) {
		enum tui_style st;
		const char *line = tui_text_line(t, (size_t)(c->scroll + r), &st);
		term_attr a;
		if (!line)
			break;
		a = style_pair[st] ? tui_attr(v, style_pair[st]) : (term_attr)TERM_NORMAL;
		term_attr_on(a);
		tui_put(c->y0 + r, c->x0, c->w, line);
		term_attr_off(a);
	}
}

static void draw_menu(struct tui_view *v)
{
	for (int e = 0; e <= v->st.n_charts; e++) {
		char item[32];
		bool cur = e == tui_state_chart_entry(&v->st);
		snprintf(item, sizeof item, "%c %-18s", cur ? '*' : ' ', e == 0 ? "All charts" : tui_metric_title(v->st.charts[e - 1]));
		term_attr_on(e == v->st.menu_sel ? TERM_REVERSE : tui_attr(v, TP_BAR));
		tui_put(1 + e, v->menu_x, 21, item);
		term_attr_off(e == v->st.menu_sel ? TERM_REVERSE : tui_attr(v, TP_BAR));
	}
}

static void draw_help(struct tui_view *v)
{
	struct tui_clip c = {1, v->lines - 1, 1, v->cols - 2, 0};
	if (v->help_stale || v->help_width != v->cols - 2) {
		v->help_width = v->help.width = v->cols - 2;
		tui_help_build(&v->help, v->snap);
		v->help_stale = false;
	}
	v->st.page = c.h > 2 ? c.h - 1 : 1;
	v->st.help_scroll = tui_scroll_clamp(v->st.help_scroll, c.h, (int)v->help.n);
	c.scroll = v->st.help_scroll;
	draw_text(v, &v->help, &c);
}

static void layout(struct tui_view *v)
{
	int insp_w = v->cols >= TUI_SIDE_INSPECTOR_COLS ? v->cols * 2 / 5 - 1 : v->cols - 1;
	if (v->insp_stale || v->insp_width != insp_w) {
		v->insp_width = v->insp.width = insp_w;
		tui_inspect_build(&v->insp, v->snap, tui_view_selected(v));
		v->insp_stale = false;
	}
	v->dash_natural = tui_dash_natural(v, v->cols);
	tui_regions_fit(v->lines, v->cols, v->dash_natural, v->n_rows, (int)v->insp.n + 1, &v->reg);
	v->st.page = v->reg.insp_h > 2 ? v->reg.insp_h - 2 : 1;
}

static void draw_inspector(struct tui_view *v)
{
	const struct tui_regions *r = &v->reg;
	struct tui_clip c = {r->insp_y + 1, r->insp_h - 1, r->insp_x + 1, r->insp_w - 1, 0};
	char title[96];

	if (r->insp_h <= 0)
		return;
	if (r->side_inspector)
		term_vline(r->insp_y, r->insp_x - 1, v->utf8 ? TERM_GLYPH_VLINE : '|', r->insp_h);
	v->st.insp_scroll = tui_scroll_clamp(v->st.insp_scroll, c.h, (int)v->insp.n);
	c.scroll = v->st.insp_scroll;
	snprintf(title, sizeof title, " Inspector%s ", (int)v->insp.n > c.h ? "  PgUp/PgDn scroll" : "");
	term_attr_on(tui_attr(v, TP_HEAD));
	term_hline(r->insp_y, r->insp_x, v->utf8 ? TERM_GLYPH_HLINE : '-', r->insp_w);
	tui_put(r->insp_y, r->insp_x + 1, r->insp_w - 1, title);
	term_attr_off(tui_attr(v, TP_HEAD));
	draw_text(v, &v->insp, &c);
}

void tui_view_draw(struct tui_view *v)
{
	struct tui_clip dash;

	term_size(&v->lines, &v->cols);
	term_erase();
	v->frames++;
	if (v->st.overlay == TUI_OVL_HELP) {
		draw_status(v, v->cols);
		draw_help(v);
		return;
	}
	layout(v);
	v->st.dash_scroll = tui_scroll_clamp(v->st.dash_scroll, v->reg.dash_h, v->dash_natural);
	draw_status(v, v->cols);
	dash = (struct tui_clip){v->reg.dash_y, v->reg.dash_h, 0, v->cols, v->st.dash_scroll};
	tui_dash_draw(v, &dash);
	tui_table_draw(v, v->reg.table_y, v->reg.table_h, v->reg.table_w);
	draw_inspector(v);
	if (v->st.overlay == TUI_OVL_MENU)
		draw_menu(v);
}
