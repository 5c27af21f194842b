/* A finished snapshot as Prometheus metrics (docs/exporter.md lists every
 * family). Pure: the text depends only on the snapshot and the options, so a
 * golden file pins it down. An unavailable reading is absent, never 0. */
#ifndef GTM_PROM_RENDER_H
#define GTM_PROM_RENDER_H

#include "core/snapshot.h"
#include "views/prom/prom_text.h"

#include <stdint.h>

#define PROM_MAX_PROCESSES_DEFAULT 32

/* A local process's container and, under Kubernetes, its pod, as the
 * exporter read them from /proc (serve/containers.c); "" where unreadable. */
struct prom_container {
	uint32_t pid;
	uint64_t start_time;
	char container_id[72];
	char pod_uid[40];
	char pod[64];        /* a Kubernetes object name: at most 63 characters */
	char ns[64];
	char container[64];
};

/* What the renderer keeps between collections (prom_select.c). */
struct prom_memory;
struct prom_memory *prom_memory_new(void);
void prom_memory_free(struct prom_memory *m);

struct prom_opts {
	int max_processes;        /* processes with their own series per GPU; the rest fold into pid="other" */
	double collect_seconds;   /* how long the snapshot took to collect; < 0 unknown */
	const char *version;      /* build_info */
	const char *os;
	struct prom_memory *memory; /* hysteresis at the cut and exited owners; NULL: none (one render) */
	const struct prom_container *containers; /* sorted by pid; may be NULL */
	int n_containers;
};

/* Writes the snapshot's families into o (after prom_out_reset). */
void prom_render(const struct gtm_snapshot *s, const struct prom_opts *opts, struct prom_out *o);

#endif
