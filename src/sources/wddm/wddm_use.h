/* The WDDM readings as the snapshot holds them: a process's memory and
 * engine loads on one adapter into its gtm_gpu_use, an adapter's loads into
 * its gtm_device. The per-type vector keeps the driver's own type names;
 * the fixed fields the other sources fill (graphics, compute, copy,
 * encoder, decoder, video) take the types that mean them, by a table. */
#ifndef GTM_WDDM_USE_H
#define GTM_WDDM_USE_H

#include "core/snapshot.h"
#include "sources/wddm/wddm_engine_agg.h"
#include "sources/wddm/wddm_memory.h"

void wddm_use_fill_memory(struct gtm_gpu_use *u, const struct wddm_mem_use *m);
void wddm_use_fill_engines(struct gtm_gpu_use *u, const struct wddm_load *l);
/* The adapter's engine types and its busiest engine as the device's GPU %. */
void wddm_device_fill_engines(struct gtm_device *d, const struct wddm_load *l);

#endif
