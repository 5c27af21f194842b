#include "views/tui/tui_state.h"

#include <string.h>

#include "platform/platform_text.h"

void tui_state_init(struct tui_state *st)
{
	memset(st, 0, sizeof *st);
	st->sort = TUI_SORT_VRAM;
	st->chart = TUI_M_COUNT;
	st->n_charts = tui_metrics_named(platform_charts, st->charts);
	st->page = 10;
}

int tui_state_chart_entry(const struct tui_state *st)
{
	for (int i = 0; i < st->n_charts; i++)
		if ((int)st->charts[i] == st->chart)
			return i + 1;
	return 0;
}

int tui_state_n_drawn(const struct tui_state *st)
{
	return st->chart >= TUI_M_COUNT ? st->n_charts : 1;
}

enum tui_metric tui_state_drawn(const struct tui_state *st, int i)
{
	return st->chart >= TUI_M_COUNT ? st->charts[i] : (enum tui_metric)st->chart;
}

int tui_state_select(struct tui_state *st, int row, int n_rows)
{
	if (row >= n_rows)
		row = n_rows - 1;
	if (row < 0)
		row = 0;
	if (row == st->sel)
		return TUI_ACT_NONE;
	st->sel = row;
	st->insp_scroll = 0;
	return TUI_ACT_REDRAW | TUI_ACT_INSPECT;
}

void tui_state_pick_chart(struct tui_state *st, int entry)
{
	st->chart = entry <= 0 || entry > st->n_charts ? TUI_M_COUNT : (int)st->charts[entry - 1];
	st->overlay = TUI_OVL_NONE;
	st->dash_scroll = 0;
}

static int help_key(struct tui_state *st, int key)
{
	switch (key) {
	case TUI_KEY_ESC: case '?': st->overlay = TUI_OVL_NONE; return TUI_ACT_REDRAW;
	case TUI_KEY_UP: case 'k': st->help_scroll--; break;
	case TUI_KEY_DOWN: case 'j': st->help_scroll++; break;
	case TUI_KEY_PGUP: st->help_scroll -= st->page; break;
	case TUI_KEY_PGDN: case ' ': st->help_scroll += st->page; break;
	default: return TUI_ACT_NONE;
	}
	if (st->help_scroll < 0)
		st->help_scroll = 0;
	return TUI_ACT_REDRAW;
}

static int menu_key(struct tui_state *st, int key)
{
	switch (key) {
	case TUI_KEY_ESC: st->overlay = TUI_OVL_NONE; break;
	case TUI_KEY_UP: case 'k': st->menu_sel = (st->menu_sel + st->n_charts) % (st->n_charts + 1); break;
	case TUI_KEY_DOWN: case 'j': st->menu_sel = (st->menu_sel + 1) % (st->n_charts + 1); break;
	case TUI_KEY_ENTER: case ' ': tui_state_pick_chart(st, st->menu_sel); break;
	default: return TUI_ACT_NONE;
	}
	return TUI_ACT_REDRAW;
}

/* Keys that change what is shown rather than where. */
static int view_key(struct tui_state *st, int key)
{
	switch (key) {
	case 's': st->sort = (enum tui_sort)((st->sort + 1) % TUI_SORT_COUNT); return TUI_ACT_REDRAW | TUI_ACT_RESORT;
	case 'a': st->all = !st->all; st->table_top = 0; return TUI_ACT_REDRAW | TUI_ACT_RESORT;
	case 'c': tui_state_pick_chart(st, (tui_state_chart_entry(st) + 1) % (st->n_charts + 1)); return TUI_ACT_REDRAW;
	case 'm': st->overlay = TUI_OVL_MENU; st->menu_sel = tui_state_chart_entry(st); return TUI_ACT_REDRAW;
	case 'p': st->paused = !st->paused; return TUI_ACT_REDRAW | TUI_ACT_PAUSE;
	case '?': case 'h': st->overlay = TUI_OVL_HELP; st->help_scroll = 0; return TUI_ACT_REDRAW;
	case 'q': case 'Q': return TUI_ACT_QUIT;
	case TUI_KEY_RESIZE: return TUI_ACT_REDRAW;
	default: return -1;
	}
}

int tui_state_key(struct tui_state *st, int key, int n_rows)
{
	int act;

	if (st->overlay == TUI_OVL_HELP && key != 'q')
		return help_key(st, key);
	if (st->overlay == TUI_OVL_MENU && key != 'q' && key != 'c')
		return menu_key(st, key);
	if (st->overlay == TUI_OVL_MENU && key == 'c')
		st->overlay = TUI_OVL_NONE;
	act = view_key(st, key);
	if (act >= 0)
		return act;
	switch (key) {
	case TUI_KEY_UP: case 'k': return tui_state_select(st, st->sel - 1, n_rows);
	case TUI_KEY_DOWN: case 'j': return tui_state_select(st, st->sel + 1, n_rows);
	case TUI_KEY_HOME: return tui_state_select(st, 0, n_rows);
	case TUI_KEY_END: return tui_state_select(st, n_rows - 1, n_rows);
	case TUI_KEY_PGUP: st->insp_scroll -= st->page; break;
	case TUI_KEY_PGDN: st->insp_scroll += st->page; break;
	case '[': st->dash_scroll -= st->page; break;
	case ']': st->dash_scroll += st->page; break;
	case TUI_KEY_ESC: return TUI_ACT_NONE;
	default: return TUI_ACT_NONE;
	}
	if (st->insp_scroll < 0)
		st->insp_scroll = 0;
	if (st->dash_scroll < 0)
		st->dash_scroll = 0;
	return TUI_ACT_REDRAW;
}
