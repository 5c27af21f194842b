/* What the user has chosen in the live view (sort, charts, selection, scroll,
 * overlays) and how a key changes it. Pure: no curses calls, unit-tested. */
#ifndef GTM_TUI_STATE_H
#define GTM_TUI_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "views/tui/tui_history.h"
#include "views/tui/tui_keys.h"
#include "views/tui/tui_rows.h"

enum tui_overlay { TUI_OVL_NONE, TUI_OVL_HELP, TUI_OVL_MENU };

/* What the loop must do after a key. */
enum tui_action { TUI_ACT_NONE = 0, TUI_ACT_REDRAW = 1, TUI_ACT_RESORT = 2, TUI_ACT_PAUSE = 4, TUI_ACT_QUIT = 8,
		  TUI_ACT_INSPECT = 16 };

struct tui_state {
	enum tui_sort sort;
	int chart;               /* a tui_metric, or TUI_M_COUNT for all charts */
	enum tui_metric charts[TUI_M_COUNT]; /* the charts this OS offers (platform_charts), in order */
	int n_charts;
	bool all;                /* all collected processes, not only GPU rows */
	bool paused;
	enum tui_overlay overlay;
	int menu_sel;            /* highlighted Charts menu entry: 0 = all, 1.. = charts[entry - 1] */
	int sel;                 /* selected row in the sorted rows */
	uint32_t sel_pid;        /* the selected process, kept across snapshots */
	uint64_t sel_start;
	char sel_label[24];
	int table_top, dash_scroll, insp_scroll, help_scroll;
	int page;                /* rows a page key moves (set by the loop from the layout) */
};

void tui_state_init(struct tui_state *st);
/* Applies a key (printable, or a tui_key) to the state; n_rows is the number of
 * table rows. Returns tui_action bits. */
int tui_state_key(struct tui_state *st, int key, int n_rows);
/* Picks a Charts menu entry (0 = all). */
void tui_state_pick_chart(struct tui_state *st, int entry);
/* The Charts menu entry of the chart shown (0 = all). */
int tui_state_chart_entry(const struct tui_state *st);
/* The charts drawn per device: all offered, or the one picked. */
int tui_state_n_drawn(const struct tui_state *st);
enum tui_metric tui_state_drawn(const struct tui_state *st, int i);
/* Makes `row` the selection. */
int tui_state_select(struct tui_state *st, int row, int n_rows);

#endif
