/* The rules over the IOKit registry of an Apple GPU (the list of ioreg.h),
 * pure so that they are tested on Linux from ioreg's output:
 * - a device is an IOAccelerator entry (depth 0) with PerformanceStatistics:
 *   `Alloc system memory` is the GPU's memory (out of hw.memsize: the memory
 *   is the CPU's too), `In use system memory` beside it, `Device
 *   Utilization %` its load, `Renderer`/`Tiler Utilization %` where present;
 * - a client is an AGXDeviceUserClient child: IOUserClientCreator
 *   "pid N, name" (names cut to 16 characters by the driver) and AppUsage, an
 *   array of dictionaries whose accumulatedGPUTime (ns) only ever grows;
 * - a process's GPU% is the growth of its clients' GPU time between two
 *   samples over the time between them, taken per client (a client that
 *   closed takes its own time away, never the others'), then summed per
 *   PID; a client whose PID now names a younger process (reused) is not
 *   that process's.
 * Facts and sources: nvtop's extract_gpuinfo_apple.m, stats' reader.swift,
 * and ioreg's own output (docs/validation.md says what never ran on a Mac). */
#ifndef GTM_AGX_H
#define GTM_AGX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/reading.h"
#include "ioreg.h"

#define AGX_NAME_LEN 17 /* the driver's 16 characters and a NUL */

struct agx_device {
	char model[64];       /* "Apple M3" ("model"), else the entry's IOClass */
	int64_t cores;        /* gpu-core-count; -1 when absent */
	gtm_u64 alloc_mem;    /* Alloc system memory: what the GPU holds */
	gtm_u64 in_use_mem;   /* In use system memory: what the last work touched */
	gtm_f64 device_pct, renderer_pct, tiler_pct;
};

struct agx_client {
	uint64_t id;          /* registry id (0: none given, then keyed by order) */
	int dev;              /* its accelerator's index among the devices */
	uint32_t pid;
	char name[AGX_NAME_LEN];
	uint64_t gpu_ns;      /* accumulatedGPUTime summed over AppUsage */
	bool has_usage;       /* AppUsage lists something */
};

/* "pid 31299, voxel_game_examp" -> 31299 and the name. False when s has
 * another shape (the name may be empty). */
bool agx_creator_parse(const char *s, uint32_t *pid, char *name, size_t cap);

/* Reads a device from an accelerator's properties; false when it has no
 * PerformanceStatistics dictionary. */
bool agx_device_read(const struct ioreg_entry *e, struct agx_device *out);

/* Walks the list: the devices into devs (at most max_devs; returns how
 * many) and their clients (children that name a creator) into *clients
 * (malloc'd, *n_clients of them; freed by the caller). */
int agx_walk(const struct ioreg_list *l, struct agx_device *devs, int max_devs, struct agx_client **clients,
	     size_t *n_clients);

/* The per-client memory between samples. */
struct agx_seen {
	uint64_t key;         /* registry id, or pid << 20 | ordinal when none */
	int dev;
	uint32_t pid;
	uint64_t start_time;  /* the PID's start time when the client was first seen */
	uint64_t gpu_ns;
	bool stale;           /* its PID was reused: the client is a dead process's */
	uint32_t gen;
};
struct agx_tracker {
	struct agx_seen *v;
	size_t n, cap;
	uint64_t last_ns;     /* monotonic time of the last sample; 0 before the first */
	uint32_t gen;
};

/* One process's use of one device in a sample. */
struct agx_proc {
	uint32_t pid;
	int dev;
	char name[AGX_NAME_LEN];
	uint64_t start_time;  /* as start_of gave it (0: unknown) */
	gtm_f64 gpu_pct;      /* N/A on the first sample */
	uint64_t gpu_ns;      /* its clients' GPU time since the last sample */
	uint64_t total_ns;    /* their accumulatedGPUTime, all of it */
	int n_clients;        /* its clients on this device (a closed one is gone) */
};

/* The start time of a live PID now (the process scan's), 0 when unknown or gone. */
typedef uint64_t (*agx_start_fn)(void *ctx, uint32_t pid);

/* Takes one sample of the clients at monotonic time now_ns: the rates into
 * out (at most max rows; returns how many), one row per (PID, device). A
 * row is left out when its process was idle since the last sample, but for
 * WindowServer (the compositor: always shown); on the first sample, rows
 * with no GPU time at all are left out. */
size_t agx_tracker_update(struct agx_tracker *t, const struct agx_client *c, size_t n, uint64_t now_ns,
			  agx_start_fn start_of, void *ctx, struct agx_proc *out, size_t max);
void agx_tracker_free(struct agx_tracker *t);

#endif
