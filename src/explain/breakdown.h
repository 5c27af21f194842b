/* Per-process, per-device breakdown: reported segments (log, else API), the
 * remainder of the measured VRAM after them, and the estimate beside them. */
#ifndef GTM_BREAKDOWN_H
#define GTM_BREAKDOWN_H

#include "core/snapshot.h"
#include "explain/explain.h"
#include "llm/llama_log.h"

struct estimate;

struct bd_input {
	const struct gtm_snapshot *snap;
	const struct gtm_process *p;
	const struct llog_load *load;          /* the current log load, or NULL */
	const struct ex_server_model *api;     /* an API's memory figures for the process's model, or NULL */
	const struct estimate *est;            /* or NULL */
};

/* Appends segments and notes to e. */
void breakdown_build(struct gtm_explain *e, const struct bd_input *in);

/* The snapshot device index a runtime device name ("CUDA0") stands for, or -1
 * (host memory, or no reliable mapping). */
int breakdown_map_device(const struct gtm_snapshot *snap, const struct gtm_process *p,
			 const struct llog_load *load, const char *device);

/* The same with how it was joined (explain.h enum ex_join): by the log's PCI
 * bus id, a UUID, ..., or a guess. */
int breakdown_join_device(const struct gtm_snapshot *snap, const struct gtm_process *p,
			  const struct llog_load *load, const char *device, enum ex_join *how);

/* Fills e->devs from the segments (after the remainder) and notes the joins
 * that are not exact. */
void breakdown_devices(struct gtm_explain *e, const struct bd_input *in);

/* The process's VRAM on one device (the driver's, with its provenance); N/A
 * when any part of it is not measured. */
gtm_u64 breakdown_measured_on(const struct gtm_process *p, int dev);

/* The one GPU the process uses (snapshot device index), or -1 (none, several). */
int breakdown_single_gpu(const struct gtm_process *p);

/* Whether two figures differ by more than max(1 MiB, 2 %). */
bool breakdown_disagree(uint64_t a, uint64_t b);

#endif
