/* A view that records: each finished snapshot becomes one compact `--json`
 * line appended to a recording (record/rec_writer.h). Used by `record` and by
 * the live view's --record, on the thread that collects. */
#ifndef GTM_RECORDER_H
#define GTM_RECORDER_H

#include <stddef.h>

#include "core/snapshot.h"
#include "record/rec_writer.h"

/* A recorder: the recording it appends to (the caller's, opened and closed
 * by it) and the rows' text kept between snapshots (views/json.h), so a row
 * that did not change is copied rather than written again. One thread. */
struct recorder;
struct recorder *recorder_new(struct rec_writer *w);
void recorder_free(struct recorder *r);

/* The snapshot as one line without its newline (malloc'd, *len bytes), the
 * rows `--json` lists; r NULL: written from scratch (the same text). NULL
 * when out of memory. */
char *recorder_line(struct recorder *r, const struct gtm_snapshot *s, size_t *len);

/* Appends s to the recording. 0, or -1 with err set. */
int recorder_take(struct recorder *r, const struct gtm_snapshot *s, char *err, size_t errn);

/* Parses a size: bytes, or with K, M, G (KiB, MiB, GiB; "256M", "1GiB"). 0 or -1. */
int recorder_parse_size(const char *text, uint64_t *out);

#endif
