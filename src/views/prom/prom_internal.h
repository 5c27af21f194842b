/* Shared by the renderer's files: one per part of the snapshot. */
#ifndef GTM_PROM_INTERNAL_H
#define GTM_PROM_INTERNAL_H

#include "views/prom/prom_render.h"

/* One process's use of one device, its uses there merged. inferred: its
 * bytes are a WSL VM context's, matched or guessed to the process (provenance
 * MATCHED/GUESSED): the VM row's measured total holds them already. */
struct prom_use {
	int gpu;                            /* the snapshot's device index */
	const struct gtm_device *dev;       /* that device; NULL when the snapshot has none of that index */
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
	uint64_t key;           /* identity across collections: PID label and start time */
	bool kept;
	const struct prom_container *container; /* its container and pod, NULL when none is known */
};

/* The processes' selection: the first `kept` of `procs` keep their series. */
struct prom_selection {
	const struct gtm_snapshot *s;
	struct prom_proc *procs;
	int n, kept;
};

/* Ranks per GPU and keeps the first max_processes there; a process kept in
 * the previous collection (memory, may be NULL) keeps its series until it
 * falls clearly below the cut; memory is updated for the next one. */
void prom_select(const struct gtm_snapshot *s, const struct prom_opts *opts, struct prom_selection *sel);
void prom_selection_free(struct prom_selection *sel);

void prom_render_devices(const struct gtm_snapshot *s, struct prom_out *o);
void prom_render_processes(const struct gtm_snapshot *s, const struct prom_selection *sel, struct prom_out *o);
void prom_render_models(const struct prom_selection *sel, struct prom_out *o);
void prom_render_servers(const struct prom_selection *sel, struct prom_out *o);

/* The labels gpu (the driver's index), uuid and pci_bus_id of a device, as
 * dcgm-exporter writes them. */
void prom_device_labels(struct prom_out *o, const struct gtm_device *d);
/* The driver's index of a device (gputaskman's where the driver gives none). */
int prom_gpu_number(const struct gtm_device *d);
/* The device of a snapshot index, or NULL. */
const struct gtm_device *prom_device_at(const struct gtm_snapshot *s, int index);
/* The per-process identity of a use: uuid, pci_bus_id, and the MIG instance. */
void prom_use_identity(struct prom_out *o, const struct prom_use *u);

#endif
