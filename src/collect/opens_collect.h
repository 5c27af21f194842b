/* --trace-opens in the refresh: the tracer started with the mounts of the
 * model folders gputaskman's own environment names, the mounts of each AI
 * process's working folder and app folders added as they appear, the traced
 * processes read in detail like the GPU's, and each recorded open put on its
 * process's row as `opened` evidence with the VRAM measured around it. */
#ifndef GTM_OPENS_COLLECT_H
#define GTM_OPENS_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

struct opens_collect;

/* Starts tracing; never NULL: when the platform refuses, the refusal is kept
 * (opens_collect_refused) and every snapshot says it. */
struct opens_collect *opens_collect_new(void);
/* The sentence the platform refused with, or NULL while tracing. */
const char *opens_collect_refused(const struct opens_collect *o);
/* The PIDs of the recorded opens, appended to *v (grown; *n, *cap as grow_array). */
void opens_collect_pids(struct opens_collect *o, uint32_t **v, size_t *n, size_t *cap);
/* After identification: marks new AI processes' folders, puts the opens on
 * their rows, notes the tracer's state, keeps this refresh's VRAM per process. */
void opens_collect_apply(struct opens_collect *o, struct gtm_snapshot *snap);
void opens_collect_free(struct opens_collect *o);

#endif
