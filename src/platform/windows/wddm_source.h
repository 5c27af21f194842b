/* The WDDM source (Windows): devices from wddm_adapters_list, or from the
 * LUIDs PDH's counters carry when DXGI lists none; per-process memory and
 * engine loads from PDH (pdh_reader.h) with the rules of src/sources/wddm/.
 * wddm_source_ops is registered in platform_sources.c. */
#ifndef GTM_WDDM_SOURCE_H
#define GTM_WDDM_SOURCE_H

#include "sources/source.h"
#include "sources/wddm/wddm_engine_agg.h"
#include "sources/wddm/wddm_engine_track.h"
#include "pdh_reader.h"
#include "wddm_adapters.h"

extern const struct gtm_source_ops wddm_source_ops;

/* A PID's start time (FILETIME ticks, what proc_windows.c reads), looked up
 * once per refresh. */
struct wddm_pid_start {
	uint32_t pid;
	uint64_t start_time; /* 0: the process refused or is gone; WDDM_START_LATE */
};

/* A process created after the counters were read: they are an earlier
 * process's, whose PID it reuses, and never this one's. */
#define WDDM_START_LATE UINT64_MAX

/* A handle held on a process the counters list: while it is open Windows
 * cannot give its PID to another process, so the start time read when it
 * was opened stays true and a refresh only asks whether it has exited. */
struct wddm_held {
	uint32_t pid;
	void *handle;        /* HANDLE */
	uint64_t start_time;
	bool exited;         /* signalled at this refresh's check (wddm_procs.c: mark_exited) */
};

struct wddm_use_key {
	uint32_t pid;
	uint64_t luid;
	size_t row;     /* a GPU Process Memory row, or SIZE_MAX for an engines-only pair */
};

struct wddm_source {
	struct pdh_reader *pdh;
	struct wddm_telemetry *telemetry;
	struct wddm_adapter adapters[WDDM_MAX_ADAPTERS];
	int n_adapters;
	bool from_dxgi;         /* false: adapters named by PDH's LUIDs */
	char dxgi_why[128];     /* why DXGI gave none */
	struct wddm_luids dxgi_skipped; /* DXGI's software adapters: PDH may name them, they are not new */
	struct wddm_relist relist;      /* when DXGI was last asked again (a LUID no adapter had) */
	struct wddm_engine_tracker *tracker;
	struct wddm_engine_sample *samples;
	size_t n_samples, cap_samples;
	struct wddm_engine_loads loads;
	struct wddm_items engines;     /* this collect's Running Time items, repeated names folded */
	void *fold_scratch;
	size_t fold_scratch_cap;
	struct wddm_pid_start *starts; /* by pid */
	size_t n_starts, cap_starts;
	struct wddm_held *held, *held_next; /* by pid, the last refresh's and this one's */
	size_t n_held, n_held_next, cap_held, cap_held_next;
	uint64_t collect_ticks;        /* the system time (FILETIME ticks) just before the last collect */
	unsigned n_collects;           /* collects tried: a first one's engine loads are N/A */
	struct wddm_use_key *keys;     /* scratch: (process, adapter) pairs of a refresh */
	size_t cap_keys;
};

/* wddm_devices.c: appends one device per adapter (adding the LUIDs PDH
 * lists first when DXGI gave none); returns the index of the first. */
int wddm_devices_add(struct wddm_source *s, struct gtm_snapshot *snap);
/* The adapter LUIDs this collect's counters name (the adapter sets first,
 * then the per-process ones), appended to luids[0..n) once each, at most
 * cap; returns the new count. */
int wddm_counter_luids(const struct wddm_source *s, wddm_luid *luids, int n, int cap);
/* The device index of an adapter LUID among those added at base, or -1. */
int wddm_device_of(const struct wddm_source *s, int base, uint64_t luid);

/* wddm_procs.c: engine deltas and loads of this refresh. */
void wddm_engines_update(struct wddm_source *s);
/* Appends one raw use per (process, adapter) PDH lists. */
void wddm_procs_add(struct wddm_source *s, struct gtm_snapshot *snap, int base, struct gtm_raw_uses *uses);
/* The start time of pid this refresh (0 unknown, WDDM_START_LATE). */
uint64_t wddm_pid_start_time(struct wddm_source *s, uint32_t pid);
/* Notes the time just before a collect (call it before pdh_reader_collect). */
void wddm_mark_collect(struct wddm_source *s);
/* Closes the held process handles and frees the per-process arrays. */
void wddm_procs_release(struct wddm_source *s);

#endif
