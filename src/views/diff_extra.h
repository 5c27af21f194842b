/* The identification and explanation parts of a snapshot's process object
 * (models with evidence; runtime-reported and estimated figures), read for diff.
 * Tolerant by design: these sections grow over schema revisions, so whatever
 * carries a `source` and byte counts is listed; nothing here is ever measured. */
#ifndef GTM_DIFF_EXTRA_H
#define GTM_DIFF_EXTRA_H

#include <jansson.h>
#include <stddef.h>

#include "views/diff_model.h"

/* Fills p->segs and p->models from the process object o. Returns 0, or -1 with err set. */
int diff_extra_read(const json_t *o, struct diff_proc *p, const char *where, char *err, size_t errn);
void diff_extra_free(struct diff_proc *p);

/* The kind of a `source` string: log/api → reported, estimate → estimated. */
enum diff_seg_kind diff_seg_kind_of(const char *source);

#endif
