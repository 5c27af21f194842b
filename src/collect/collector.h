/* The collector runs one refresh of the pipeline: sources → /proc scan →
 * owner attribution → identify → explain, and returns a finished snapshot.
 * It keeps the caches between refreshes. Not thread-safe: one thread drives it
 * (the live view runs it on its own collection thread). */
#ifndef GTM_COLLECTOR_H
#define GTM_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/snapshot.h"

struct collector_opts {
	bool one_shot;        /* --once/--json: scan fully, no time budget */
	int gpu_filter;       /* -1 = all devices; else only this device index */
	uint64_t budget_ns;   /* per-refresh budget for slow work (maps, fds) in the live view */
	bool no_probe;        /* never probe local servers */
	bool all;             /* --all: every process's details (command line, executable, maps) and
	                       * listening ports; by default only the processes that matter get more
	                       * than ps reads: GPU users (driver-listed, DRM/KFD clients), the parent
	                       * of a GPU runner, and in a container with host PIDs to pair, every
	                       * local CUDA candidate */
	bool devices_only;    /* devices and their readings only: no /proc scan (inspect MODEL's fit check) */
	uint32_t only_pid;    /* inspect PID: detail just this process (the full scan still runs in a
	                       * container, where pairing host PIDs needs every CUDA process) */
	bool no_host;         /* WSL: --no-host, no Windows helper (device-wide numbers only) */
	double interval_s;    /* WSL: the helper's sampling interval (0: 1 s) */
	bool trace_opens;     /* --trace-opens: model files opened and closed (collect/opens_collect.h) */
};

struct collector;

struct collector *collector_new(const struct collector_opts *o);
/* A new snapshot, owned by the caller (snapshot_free). Never NULL. */
struct gtm_snapshot *collector_refresh(struct collector *c);
/* Turns --all on or off for the next refreshes (the live view's `a` key); on
 * the thread that refreshes. */
void collector_set_all(struct collector *c, bool all);
/* --trace-opens was asked and the platform refused it: the sentence; else NULL. */
const char *collector_trace_refused(const struct collector *c);
void collector_free(struct collector *c);

#endif
