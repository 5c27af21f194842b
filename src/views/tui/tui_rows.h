/* The process table's rows: which processes, in which order, and the numbers
 * each row shows. Pure functions over a snapshot (unit-tested). */
#ifndef GTM_TUI_ROWS_H
#define GTM_TUI_ROWS_H

#include <stdbool.h>

#include "core/snapshot.h"
#include "views/tui/tui_layout.h"

enum tui_sort { TUI_SORT_VRAM, TUI_SORT_GPU, TUI_SORT_SPILL, TUI_SORT_PAGED, TUI_SORT_NAME, TUI_SORT_COUNT };
const char *tui_sort_name(enum tui_sort s);

/* A row's numbers summed (bytes) or maxed (percentages) over its devices;
 * N/A when no device measured it. */
struct tui_row_metrics {
	gtm_u64 vram, spill, paged;
	gtm_f64 gpu, enc, dec, gfx, copy, video;
};
void tui_row_metrics(const struct gtm_process *p, struct tui_row_metrics *m);
/* The text of one table cell, control characters escaped; "-" in the per-GPU
 * columns of a process that uses no GPU (as --once prints; N/A is unavailable). */
void tui_row_cell_text(const struct gtm_process *p, const struct tui_row_metrics *m, enum tui_col c, char *buf,
		       size_t n);

/* Sort keys kept between calls, so a steady view sorts without allocating. */
struct tui_rows_scratch {
	void *keys;
	size_t cap;
};
void tui_rows_scratch_free(struct tui_rows_scratch *sc);

/* Fills idx (capacity s->n_processes) with the indices of the rows to show:
 * those view_lists_process lists (GPU rows, the parents GPU runners serve
 * through; every collected process when `all`), sorted by `sort` (largest
 * first, N/A last; names A→Z). scratch may be NULL. Returns the count. */
int tui_rows_select(const struct gtm_snapshot *s, bool all, enum tui_sort sort, int *idx,
		    struct tui_rows_scratch *scratch);

/* The row of (pid, start_time, label) in idx, or -1. */
int tui_rows_find(const struct gtm_snapshot *s, const int *idx, int n, uint32_t pid, uint64_t start_time,
		  const char *label);

#endif
