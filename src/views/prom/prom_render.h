/* A finished snapshot as Prometheus metrics (docs/exporter.md lists every
 * family). Pure: the text depends only on the snapshot and the options, so a
 * golden file pins it down. An unavailable reading is absent, never 0. */
#ifndef GTM_PROM_RENDER_H
#define GTM_PROM_RENDER_H

#include "core/snapshot.h"
#include "views/prom/prom_text.h"

#define PROM_MAX_PROCESSES_DEFAULT 32

struct prom_opts {
	int max_processes;        /* processes with their own series; the rest fold into pid="other" */
	double collect_seconds;   /* how long the snapshot took to collect; < 0 unknown */
	const char *version;      /* build_info */
	const char *os;
};

/* Writes the snapshot's families into o (after prom_out_reset). */
void prom_render(const struct gtm_snapshot *s, const struct prom_opts *opts, struct prom_out *o);

#endif
