/* Engine loads reduced the way Task Manager does (platforms.md 1.3, from
 * Microsoft's blog on the GPU in Task Manager): per (adapter, physical GPU,
 * engine) the processes' shares summed and clamped to 100; per engine type
 * the busiest engine of that type; per adapter its busiest engine (never an
 * average, never 3D only). Per process and adapter: each engine's share (a
 * process's duplicate instances of one engine summed, clamped), per type the
 * busiest engine of it, and the busiest engine as the process's GPU %. */
#ifndef GTM_WDDM_ENGINE_AGG_H
#define GTM_WDDM_ENGINE_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/wddm/wddm_instance.h"

#define WDDM_MAX_TYPES 16

/* One GPU Engine instance of this refresh; ok false: N/A (first sample, a
 * bad CStatus). */
struct wddm_engine_sample {
	uint32_t pid;
	uint64_t start_time;
	uint64_t luid;
	uint32_t phys, eng;
	char type[WDDM_ENGTYPE_MAX];
	bool ok;
	double pct;
};

struct wddm_type_load {
	char type[WDDM_ENGTYPE_MAX];
	bool ok;       /* some engine of this type had a sample */
	double pct;    /* its busiest engine, 0..100 */
};

/* An adapter's or a process's loads: n_types types in order of first
 * appearance (past WDDM_MAX_TYPES the rest count only in busiest). */
struct wddm_load {
	struct wddm_type_load types[WDDM_MAX_TYPES];
	int n_types;
	bool ok;
	double busiest_pct;
	char busiest_type[WDDM_ENGTYPE_MAX];
};

struct wddm_adapter_load {
	uint64_t luid;
	struct wddm_load load;
};

struct wddm_proc_load {
	uint32_t pid;
	uint64_t start_time;
	uint64_t luid;
	struct wddm_load load;
};

struct wddm_engine_loads {
	struct wddm_adapter_load *adapters; /* by luid */
	size_t n_adapters, cap_adapters;
	struct wddm_proc_load *procs;       /* by (pid, start_time, luid) */
	size_t n_procs, cap_procs;
	size_t *order;                      /* scratch */
	size_t cap_order;
};

/* Reduces n samples (reordered in place). Fills out, replacing what it held. */
void wddm_engine_aggregate(struct wddm_engine_sample *s, size_t n, struct wddm_engine_loads *out);
void wddm_engine_loads_free(struct wddm_engine_loads *l);

/* The adapter's loads, or NULL when no engine of it was listed. */
const struct wddm_load *wddm_engine_loads_adapter(const struct wddm_engine_loads *l, uint64_t luid);

/* A process's loads on an adapter, or NULL when it has no engine there. */
const struct wddm_load *wddm_engine_loads_proc(const struct wddm_engine_loads *l, uint32_t pid, uint64_t start_time,
					       uint64_t luid);

#endif
