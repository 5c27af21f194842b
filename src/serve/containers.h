/* The containers and Kubernetes pods of the processes using a GPU, read from
 * /proc and the runtimes' bundle files without the kubelet or a runtime's
 * API, for the exporter's per-process labels. Kept by (PID, start time). */
#ifndef GTM_SERVE_CONTAINERS_H
#define GTM_SERVE_CONTAINERS_H

#include "core/snapshot.h"
#include "views/prom/prom_render.h"

struct containers;
struct containers *containers_new(void);
void containers_free(struct containers *c);
/* The GPU rows' containers, sorted by PID, valid until the next call. */
const struct prom_container *containers_update(struct containers *c, const struct gtm_snapshot *s, int *n);

#endif
