/* Text of a process's explanation for --once, inspect and the TUI inspector:
 * each figure with its source; N/A for what is unknown. */
#ifndef GTM_EXPLAIN_TEXT_H
#define GTM_EXPLAIN_TEXT_H

#include <stdio.h>

#include "explain/explain.h"

/* A few lines: runtime, current log load, breakdown per device, servers, notes. */
void explain_text_print(FILE *out, const struct gtm_explain *e, const char *indent);
/* Everything, for `inspect PID`: adds KV caches, the memory-breakdown table,
 * endpoints, history and app events. */
void explain_text_print_full(FILE *out, const struct gtm_explain *e, const char *indent);

#endif
