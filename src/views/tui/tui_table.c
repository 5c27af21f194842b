/* The process table: one row per process, columns fitted to the width. */
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "views/tui/tui_draw.h"
#include "views/tui/tui_rows.h"

/* Display columns of a UTF-8 string (one per character). */
static int text_cols(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += (*s & 0xC0) != 0x80;
	return n;
}

static void put_cell(int y, int x, int w, const char *s, bool right)
{
	int len = text_cols(s);
	if (right && len < w)
		tui_put(y, x + w - len, len, s);
	else
		tui_put(y, x, w, s);
}

static void draw_title(struct tui_view *v, int y, int w)
{
	char t[40];
	term_attr_on(tui_attr(v, TP_BAR));
	tui_blank(y, 0, w);
	for (int i = 0; i < v->tcols.n; i++) {
		const struct tui_col_spec *sp = tui_col_spec(v->tcols.id[i]);
		bool sorted = (v->tcols.id[i] == TUI_COL_VRAM && v->st.sort == TUI_SORT_VRAM) ||
			      (v->tcols.id[i] == TUI_COL_GPU && v->st.sort == TUI_SORT_GPU) ||
			      (v->tcols.id[i] == TUI_COL_SPILL && v->st.sort == TUI_SORT_SPILL) ||
			      (v->tcols.id[i] == TUI_COL_PAGED && v->st.sort == TUI_SORT_PAGED) ||
			      (v->tcols.id[i] == TUI_COL_NAME && v->st.sort == TUI_SORT_NAME);
		/* The sort marker sits on the side the values line up on. */
		snprintf(t, sizeof t, "%s%s%s", sorted && sp->right ? (v->utf8 ? "\u25bc" : "v") : "", sp->title,
			 sorted && !sp->right ? (v->utf8 ? "\u25bc" : "v") : "");
		put_cell(y, v->tcols.x[i], v->tcols.w[i], t, sp->right);
	}
	term_attr_off(tui_attr(v, TP_BAR));
}

void tui_table_draw(struct tui_view *v, int y, int h, int w)
{
	char buf[160];
	int body = h - 1;

	if (h <= 0)
		return;
	tui_columns_fit(w, &v->tcols);
	draw_title(v, y, w);
	v->st.table_top = tui_scroll_follow(v->st.table_top, v->st.sel, body, v->n_rows);
	if (v->n_rows == 0 && body > 0) {
		tui_put(y + 1, 1, w - 1, v->st.all ? "No processes collected." :
			"No process is using a GPU (press a to list all collected processes).");
		return;
	}
	for (int r = 0; r < body && v->st.table_top + r < v->n_rows; r++) {
		int row = v->st.table_top + r;
		const struct gtm_process *p = &v->snap->processes[v->rows[row]];
		struct tui_row_metrics m;
		term_attr a = row == v->st.sel ? TERM_REVERSE : (term_attr)TERM_NORMAL;

		tui_row_metrics(p, &m);
		term_attr_on(a);
		if (row == v->st.sel)
			tui_blank(y + 1 + r, 0, w);
		for (int i = 0; i < v->tcols.n; i++) {
			tui_row_cell_text(p, &m, v->tcols.id[i], buf, sizeof buf);
			put_cell(y + 1 + r, v->tcols.x[i], v->tcols.w[i], buf, tui_col_spec(v->tcols.id[i])->right);
		}
		term_attr_off(a);
	}
}
