/* A source of device readings and raw per-process GPU usage (NVML, DRM, ...).
 * One file per source behind this small table of functions. A source never
 * formats and never guesses an owner: it reports PIDs as it saw them. */
#ifndef GTM_SOURCE_H
#define GTM_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

/* One process's usage of one device, PID as the source saw it. pid 0 means
 * bytes the source could not charge to any process ("unattributed"). */
struct gtm_raw_use {
	uint32_t pid;
	uint64_t start_time;     /* when the source knows it (DRM scans /proc), else 0 */
	struct gtm_gpu_use use;  /* use.dev_index is the snapshot's device index */
};

struct gtm_raw_uses {
	struct gtm_raw_use *v;
	size_t n, cap;
};

/* Appends a zeroed use with every reading unavailable. */
struct gtm_raw_use *raw_uses_add(struct gtm_raw_uses *u);
void raw_uses_clear(struct gtm_raw_uses *u);
void raw_uses_free(struct gtm_raw_uses *u);

/* What the collector tells a source about this run. */
struct gtm_source_opts {
	bool one_shot;          /* --once/--json: scan fully, never cut short */
	uint64_t scan_budget_ns; /* live view: time a refresh may spend listing fds */
};

struct gtm_source_ops {
	const char *name;
	/* Opens the source. Returns its private state, or NULL when it is not
	 * available on this machine; st->message then says why (no driver is a
	 * normal state, not an error). */
	void *(*open)(const struct gtm_source_opts *o, struct gtm_source_status *st);
	/* Appends this source's devices to snap and their per-process usage to
	 * uses. Returns 0, or -1 with st->message set; devices it could read stay. */
	int (*sample)(void *priv, struct gtm_snapshot *snap, struct gtm_raw_uses *uses,
		      struct gtm_source_status *st);
	void (*close)(void *priv);
	/* Optional (NULL: never). Whether the last sample read cumulative
	 * counters with no earlier sample to take a rate against (DRM's engine
	 * times, PDH's Running Time), so their loads are N/A: a one-shot run
	 * (--once, --json, inspect) then samples once more after
	 * GTM_SECOND_SAMPLE_NS, as Task Manager's first sample does. */
	bool (*needs_second_sample)(void *priv);
};

/* The wait before a one-shot run's second sample, the loads' window: long
 * enough for a load to mean something beside Windows's 15.6 ms timer tick,
 * short enough for a script (at most 1 s). */
#define GTM_SECOND_SAMPLE_NS (500ull * 1000000ull)

#endif
