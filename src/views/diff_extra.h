/* The identification and explanation parts of a snapshot's process object
 * (models with evidence; runtime-reported and estimated figures), read for diff.
 * Tolerant by design: these sections grow over schema revisions, so whatever
 * carries a `source` and byte counts is listed; nothing here is ever measured. */
#ifndef GTM_DIFF_EXTRA_H
#define GTM_DIFF_EXTRA_H

#include <jansson.h>
#include <stddef.h>

#include "views/diff_model.h"

/* Fills p->segs, p->models and p->flags from the process object o. Never fails:
 * what does not fit the known shapes is left out; past the per-process and
 * per-snapshot bounds, snap->extras_truncated is set. */
void diff_extra_read(const json_t *o, struct diff_snap *snap, struct diff_proc *p);
void diff_extra_free(struct diff_proc *p);

/* The kind of a `source` string: log/api → reported, estimate → estimated. */
enum diff_seg_kind diff_seg_kind_of(const char *source);

#endif
