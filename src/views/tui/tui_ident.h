/* What the live view says about a process from identify/: the memory-bar
 * category, the category text, runtimes and a short "what's inside". */
#ifndef GTM_TUI_IDENT_H
#define GTM_TUI_IDENT_H

#include <stddef.h>

#include "core/snapshot.h"

/* The memory bar's categories, in bar order. */
enum tui_cat { TUI_CAT_AI, TUI_CAT_COMPOSITOR, TUI_CAT_BROWSER, TUI_CAT_OTHER, TUI_CAT_UNATTRIBUTED, TUI_CAT_COUNT };
const char *tui_cat_name(enum tui_cat c);

enum tui_cat tui_process_cat(const struct gtm_process *p);
/* The table's category text ("AI", "3D/game", "unattributed"); "" when unknown. */
const char *tui_process_cat_text(const struct gtm_process *p);
/* "llama.cpp, CUDA runtime"; "" when none is known. Returns buf. */
char *tui_process_runtimes(const struct gtm_process *p, char *buf, size_t n);
/* The first model's name and kind ("qwen3:14b LLM"), else what the
 * category usually holds. Returns buf. */
char *tui_process_inside(const struct gtm_process *p, char *buf, size_t n);

#endif
