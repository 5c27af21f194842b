/* Shared by the renderer's files: one per part of the snapshot. */
#ifndef GTM_PROM_INTERNAL_H
#define GTM_PROM_INTERNAL_H

#include "views/prom/prom_render.h"

/* One process's use of one device, its uses there merged. inferred: its
 * bytes are a WSL VM context's, matched or guessed to the process (provenance
 * MATCHED/GUESSED): the VM row's measured total holds them already. */
struct prom_use {
	int gpu;
	gtm_u64 vram, spill, paged;
	bool inferred;
	const struct gtm_gpu_use *first; /* engine loads come from the first use on the device */
};

/* A process chosen for its own series, with its labels. */
struct prom_proc {
	const struct gtm_process *p;
	char pid[24];           /* "1234", "H:1234", "W:1234", "x1234", "unattributed" */
	const char *owner;      /* local, matched, guessed, host, windows, exited, unattributed */
	const char *runtime;    /* runtime id, or "" */
	struct prom_use *uses;
	int n_uses;
	uint64_t rank;          /* measured VRAM + 1, 0 when none is measured */
	uint64_t rank_inferred; /* among those with none measured: matched/guessed VRAM */
};

/* The processes' selection: the first `kept` of `procs` keep their series. */
struct prom_selection {
	struct prom_proc *procs;
	int n, kept;
};

void prom_select(const struct gtm_snapshot *s, int max_processes, struct prom_selection *sel);
void prom_selection_free(struct prom_selection *sel);

void prom_render_devices(const struct gtm_snapshot *s, struct prom_out *o);
void prom_render_processes(const struct gtm_snapshot *s, const struct prom_selection *sel, struct prom_out *o);
void prom_render_models(const struct prom_selection *sel, struct prom_out *o);
void prom_render_servers(const struct prom_selection *sel, struct prom_out *o);

/* The labels gpu and, when known, uuid of a device. */
void prom_device_labels(struct prom_out *o, const struct gtm_device *d);

#endif
