/* The inspector's and the help screen's text, built from a snapshot into a
 * tui_text (no curses: unit-tested). */
#ifndef GTM_TUI_INSPECT_H
#define GTM_TUI_INSPECT_H

#include "core/snapshot.h"
#include "views/tui/tui_text.h"

/* Everything known about one process: owner, command, per-device use, runtimes,
 * models with evidence and kind, the memory breakdown, server facts, and the
 * notes that explain its counters. p may be NULL (nothing selected). */
void tui_inspect_build(struct tui_text *t, const struct gtm_snapshot *s, const struct gtm_process *p);

/* "What can be known about GPU memory?" for this snapshot's platform, then keys. */
void tui_help_build(struct tui_text *t, const struct gtm_snapshot *s);
/* Keys a steered feed (replay) adds to the help's list, listed first; NULL: none. */
void tui_help_set_feed_keys(const char *const *keys, size_t n);

#endif
