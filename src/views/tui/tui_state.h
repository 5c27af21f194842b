/* What the user has chosen in the live view (sort, charts, selection, scroll,
 * overlays) and how a key changes it. Pure: no curses calls, unit-tested. */
#ifndef GTM_TUI_STATE_H
#define GTM_TUI_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "views/tui/tui_history.h"
#include "views/tui/tui_rows.h"

enum tui_overlay { TUI_OVL_NONE, TUI_OVL_HELP, TUI_OVL_MENU };

/* Key codes the state understands besides printable ones (curses values are
 * mapped to these by the loop, so this file needs no curses header). */
enum tui_key {
	TUI_KEY_UP = 0x101, TUI_KEY_DOWN, TUI_KEY_PGUP, TUI_KEY_PGDN, TUI_KEY_HOME, TUI_KEY_END,
	TUI_KEY_ENTER, TUI_KEY_ESC, TUI_KEY_RESIZE, TUI_KEY_LEFT, TUI_KEY_RIGHT, TUI_KEY_BACKSPACE,
};

/* What the loop must do after a key. */
enum tui_action { TUI_ACT_NONE = 0, TUI_ACT_REDRAW = 1, TUI_ACT_RESORT = 2, TUI_ACT_PAUSE = 4, TUI_ACT_QUIT = 8,
		  TUI_ACT_INSPECT = 16 };

struct tui_state {
	enum tui_sort sort;
	int chart;               /* a tui_metric, or TUI_M_COUNT for all charts */
	bool all;                /* all collected processes, not only GPU rows */
	bool paused;
	enum tui_overlay overlay;
	int menu_sel;            /* highlighted Charts menu entry: 0 = all, 1.. = metric+1 */
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
/* Makes `row` the selection. */
int tui_state_select(struct tui_state *st, int row, int n_rows);

#endif
