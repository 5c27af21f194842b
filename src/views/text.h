/* The --once text snapshot and --list-gpus. */
#ifndef GTM_TEXT_VIEW_H
#define GTM_TEXT_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "core/snapshot.h"

void text_print_snapshot(FILE *out, const struct gtm_snapshot *s, bool all);
void text_print_gpu_list(FILE *out, const struct gtm_snapshot *s);
/* One line per source that is unavailable or failed, e.g. why no NVIDIA GPU is shown. */
void text_print_source_status(FILE *out, const struct gtm_snapshot *s);

#endif
