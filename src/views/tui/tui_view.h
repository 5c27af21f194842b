/* The live view's model and drawing: one snapshot at a time, the user's
 * choices, the history behind the charts. Only the UI thread touches it; it
 * never does I/O beyond the terminal. */
#ifndef GTM_TUI_VIEW_H
#define GTM_TUI_VIEW_H

#include <stdbool.h>

#include "core/snapshot.h"
#include "views/tui/tui_history.h"
#include "views/tui/tui_layout.h"
#include "views/tui/tui_rows.h"
#include "views/tui/tui_state.h"
#include "views/tui/tui_text.h"

struct tui_view {
	struct tui_state st;
	struct gtm_snapshot *snap;   /* the one drawn; owned */
	int *rows;                   /* indices into snap->processes, sorted */
	size_t rows_cap;
	int n_rows;
	struct tui_rows_scratch sort_scratch;
	struct tui_history hist;
	struct tui_text insp, help;
	int insp_width, help_width;  /* widths the texts were wrapped to */
	bool insp_stale, help_stale;
	bool color, utf8;
	/* The last frame's geometry, for the mouse. */
	int lines, cols;
	struct tui_regions reg;
	struct tui_columns tcols;
	int menu_x, menu_w;          /* "Charts" on the status bar */
	int dash_natural;
	uint64_t frames;             /* frames drawn (tests and benchmarks) */
	char cursor[160];            /* replay: the time cursor the status bar shows; "" live */
};

void tui_view_init(struct tui_view *v, bool color, bool utf8);
void tui_view_free(struct tui_view *v);
/* Takes ownership of s (frees the previous snapshot), records history, re-sorts
 * and keeps the selected process selected. */
void tui_view_take(struct tui_view *v, struct gtm_snapshot *s);
/* Applies a key (printable or enum tui_key); returns tui_action bits. */
int tui_view_key(struct tui_view *v, int key);
/* A mouse event at (y, x): button 1 press, or wheel (dir -1 up, +1 down). */
int tui_view_mouse(struct tui_view *v, int y, int x, enum tui_mouse kind);
/* The process under the selection, or NULL. */
const struct gtm_process *tui_view_selected(const struct tui_view *v);

/* Draws the whole frame through term.h (the caller refreshes). */
void tui_view_draw(struct tui_view *v);
/* Sets up the colour pairs (when term_start says they work). */
void tui_view_colors(bool use_default_bg);

#endif
