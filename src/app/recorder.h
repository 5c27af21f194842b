/* A view that records: each finished snapshot becomes one compact `--json`
 * line appended to a recording (record/rec_writer.h). Used by `record` and by
 * the live view's --record, on the thread that collects. */
#ifndef GTM_RECORDER_H
#define GTM_RECORDER_H

#include <stddef.h>

#include "core/snapshot.h"
#include "record/rec_writer.h"

/* The snapshot as one line without its newline (malloc'd, *len bytes), the
 * rows `--json` lists. NULL when out of memory. */
char *recorder_line(const struct gtm_snapshot *s, size_t *len);

/* Appends s to w. 0, or -1 with err set. */
int recorder_take(struct rec_writer *w, const struct gtm_snapshot *s, char *err, size_t errn);

/* Parses a size: bytes, or with K, M, G (KiB, MiB, GiB; "256M", "1GiB"). 0 or -1. */
int recorder_parse_size(const char *text, uint64_t *out);

#endif
