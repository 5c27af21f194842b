/* Engine busy percentages of DRM clients between two samples. The kernel's
 * counters are cumulative, so a client's load needs its previous sample:
 * until a client has two, its percentages are unavailable (never 0). */
#ifndef GTM_DRM_ENGINES_H
#define GTM_DRM_ENGINES_H

#include <stdbool.h>
#include <stdint.h>

#include "sources/drm_fdinfo.h"

struct drm_engine_pct {
	bool ok;
	double pct; /* 0..100, of the engine group (capacity) */
};

struct drm_engine_state;

struct drm_engine_state *drm_engine_state_new(void);
void drm_engine_state_free(struct drm_engine_state *s);
/* Starts a refresh; drm_engine_state_end() forgets clients not seen since. */
void drm_engine_state_begin(struct drm_engine_state *s);
void drm_engine_state_end(struct drm_engine_state *s);
/* Feeds client (dev, client_id) read at now_ns; out[i] is the load of
 * fi->engines[i] since its previous sample. Returns whether the client had a
 * previous sample. A second call for the same client in one refresh returns
 * the first call's results. */
bool drm_engine_update(struct drm_engine_state *s, int dev, uint64_t client_id, uint64_t now_ns,
		       const struct drm_fdinfo *fi, struct drm_engine_pct out[DRM_FDINFO_MAX_ENGINES]);
/* Clients remembered (tests, benchmarks). */
size_t drm_engine_state_size(const struct drm_engine_state *s);
/* Clients of this refresh (since begin) with engine counters and no earlier
 * sample: their loads are N/A until the next refresh. */
size_t drm_engine_state_first_samples(const struct drm_engine_state *s);

#endif
