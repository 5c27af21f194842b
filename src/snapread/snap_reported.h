/* The identification and explanation parts of a snapshot's process object
 * (models with evidence; runtime-reported and estimated figures), read for diff and replay.
 * Tolerant by design: these sections grow over schema revisions, so whatever
 * carries a `source` and byte counts is listed; nothing here is ever measured. */
#ifndef GTM_SNAPREAD_SNAP_REPORTED_H
#define GTM_SNAPREAD_SNAP_REPORTED_H

#include <jansson.h>
#include <stddef.h>

#include "snapread/snap_rows.h"

/* Fills p->segs, p->models and p->flags from the process object o. Never fails:
 * what does not fit the known shapes is left out; past the per-process and
 * per-snapshot bounds, snap->extras_truncated is set. */
void snap_reported_read(const json_t *o, struct snap_rows *snap, struct snap_proc *p);
void snap_reported_free(struct snap_proc *p);

/* The kind of a `source` string: log/api → reported, estimate → estimated. */
enum snap_seg_kind snap_seg_kind_of(const char *source);

#endif
