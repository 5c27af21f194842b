/* GPU Engine "Running Time" deltas (platforms.md 1.2, step 5). The counter is
 * cumulative, in 100 ns ticks of the engine running this process's work, so
 * a load needs two samples of the same instance: until then it is N/A,
 * never 0. A sample is keyed by its instance name and its process's start
 * time: a PID reused by a new process starts over instead of inheriting (or
 * going backwards from) the old one's counter. */
#ifndef GTM_WDDM_ENGINE_TRACK_H
#define GTM_WDDM_ENGINE_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wddm_engine_tracker;

struct wddm_engine_tracker *wddm_engine_tracker_new(void);
void wddm_engine_tracker_free(struct wddm_engine_tracker *t);

/* A refresh is begin, one update per instance, end; end forgets instances
 * not updated since begin (vanished engines and exited processes). */
void wddm_engine_tracker_begin(struct wddm_engine_tracker *t);
void wddm_engine_tracker_end(struct wddm_engine_tracker *t);

/* Feeds one instance's cumulative running time at stamp (both 100 ns
 * ticks). Sets *pct (0..100 of that engine, unclamped: a driver's counter
 * may run ahead of the clock) and returns true when the instance has an
 * earlier sample of this refresh's process with time between them; false
 * (N/A) for a first sample, a counter that went backwards (the instance
 * was recreated: it starts over), or no time elapsed. A second update of
 * the same key in one refresh returns the first one's answer. */
bool wddm_engine_tracker_update(struct wddm_engine_tracker *t, const char *inst, size_t n, uint64_t start_time,
				uint64_t running, uint64_t stamp, double *pct);

/* Instances remembered (tests, benchmarks). */
size_t wddm_engine_tracker_size(const struct wddm_engine_tracker *t);

#endif
