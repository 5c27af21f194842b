#include "views/tui/tui_view.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "views/tui/tui_inspect.h"

void tui_view_init(struct tui_view *v, bool color, bool utf8)
{
	memset(v, 0, sizeof *v);
	tui_state_init(&v->st);
	v->color = color;
	v->utf8 = utf8;
	v->insp_stale = v->help_stale = true;
}

void tui_view_free(struct tui_view *v)
{
	snapshot_free(v->snap);
	free(v->rows);
	tui_rows_scratch_free(&v->sort_scratch);
	tui_history_free(&v->hist);
	tui_text_free(&v->insp);
	tui_text_free(&v->help);
	memset(v, 0, sizeof *v);
}

const struct gtm_process *tui_view_selected(const struct tui_view *v)
{
	if (!v->snap || v->st.sel < 0 || v->st.sel >= v->n_rows)
		return NULL;
	return &v->snap->processes[v->rows[v->st.sel]];
}

static void remember_selection(struct tui_view *v)
{
	const struct gtm_process *p = tui_view_selected(v);
	v->st.sel_pid = p ? p->pid : 0;
	v->st.sel_start = p ? p->start_time : 0;
	str_copy(v->st.sel_label, p ? p->label : "", sizeof v->st.sel_label);
	v->insp_stale = true;
}

/* Sorts the rows again, keeping the selected process under the cursor. */
static void resort(struct tui_view *v)
{
	int at;

	if (!v->snap) {
		v->n_rows = 0;
		return;
	}
	v->rows = grow_array(v->rows, sizeof *v->rows, &v->rows_cap, (size_t)(v->snap->n_processes > 0 ? v->snap->n_processes : 0));
	v->n_rows = tui_rows_select(v->snap, v->st.all, v->st.sort, v->rows, &v->sort_scratch);
	at = v->st.sel_label[0] ? tui_rows_find(v->snap, v->rows, v->n_rows, v->st.sel_pid, v->st.sel_start,
						   v->st.sel_label) : -1;
	if (at >= 0)
		v->st.sel = at;
	if (v->st.sel >= v->n_rows)
		v->st.sel = v->n_rows - 1;
	if (v->st.sel < 0)
		v->st.sel = 0;
	remember_selection(v);
}

void tui_view_take(struct tui_view *v, struct gtm_snapshot *s)
{
	if (!s)
		return;
	snapshot_free(v->snap);
	v->snap = s;
	tui_history_push(&v->hist, s);
	v->help_stale = true;
	resort(v);
}

int tui_view_key(struct tui_view *v, int key)
{
	int act = tui_state_key(&v->st, key, v->n_rows);

	if (act & TUI_ACT_RESORT)
		resort(v);
	if (act & TUI_ACT_INSPECT)
		remember_selection(v);
	return act;
}

static bool inside(int y, int x, int y0, int x0, int h, int w)
{
	return y >= y0 && y < y0 + h && x >= x0 && x < x0 + w;
}

static int wheel(struct tui_view *v, int y, int x, int dir)
{
	const struct tui_regions *r = &v->reg;
	if (inside(y, x, r->insp_y, r->insp_x, r->insp_h, r->insp_w))
		v->st.insp_scroll = v->st.insp_scroll + 3 * dir < 0 ? 0 : v->st.insp_scroll + 3 * dir;
	else if (inside(y, x, r->dash_y, 0, r->dash_h, v->cols))
		v->st.dash_scroll = v->st.dash_scroll + 3 * dir < 0 ? 0 : v->st.dash_scroll + 3 * dir;
	else if (inside(y, x, r->table_y, 0, r->table_h, r->table_w))
		return tui_view_key(v, dir < 0 ? TUI_KEY_UP : TUI_KEY_DOWN);
	else
		return TUI_ACT_NONE;
	return TUI_ACT_REDRAW;
}

int tui_view_mouse(struct tui_view *v, int y, int x, enum tui_mouse kind)
{
	const struct tui_regions *r = &v->reg;

	if (kind != TUI_MOUSE_CLICK)
		return v->st.overlay == TUI_OVL_HELP ? tui_view_key(v, kind == TUI_MOUSE_WHEEL_UP ? TUI_KEY_UP : TUI_KEY_DOWN)
						     : wheel(v, y, x, kind == TUI_MOUSE_WHEEL_UP ? -1 : 1);
	if (v->st.overlay == TUI_OVL_MENU) {
		/* The menu hangs under the Charts button: one entry per row. */
		int entry = y - 1;
		if (x >= v->menu_x && x < v->menu_x + 22 && entry >= 0 && entry <= v->st.n_charts)
			tui_state_pick_chart(&v->st, entry);
		else
			v->st.overlay = TUI_OVL_NONE;
		return TUI_ACT_REDRAW;
	}
	if (v->st.overlay == TUI_OVL_HELP)
		return TUI_ACT_NONE;
	if (y == 0 && x >= v->menu_x && x < v->menu_x + v->menu_w) {
		v->st.overlay = TUI_OVL_MENU;
		v->st.menu_sel = tui_state_chart_entry(&v->st);
		return TUI_ACT_REDRAW;
	}
	if (inside(y, x, r->table_y + 1, 0, r->table_h - 1, r->table_w) &&
	    v->st.table_top + (y - r->table_y - 1) < v->n_rows) {
		int act = tui_state_select(&v->st, v->st.table_top + (y - r->table_y - 1), v->n_rows);
		if (act & TUI_ACT_INSPECT)
			remember_selection(v);
		return act;
	}
	return TUI_ACT_NONE;
}
