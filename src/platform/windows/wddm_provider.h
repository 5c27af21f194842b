/* A vendor telemetry provider behind wddm_telemetry_* (wddm_telemetry.c):
 * NVML for NVIDIA (wddm_nvml.c), ADL for AMD (wddm_adl.c). Each lists its
 * devices' PCI locations once when opened; an adapter gets a device's
 * readings only when that device is the one unique match of its location
 * (sources/wddm/wddm_pci_join.c). */
#ifndef GTM_WDDM_PROVIDER_H
#define GTM_WDDM_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "sources/wddm/wddm_pci_join.h"

struct wddm_provider {
	const char *name;   /* "nvml", "adl" */
	uint32_t vendor_id; /* the cards it measures (PCI vendor id) */
	/* Loads and starts it. NULL with the reason in msg: absent (a normal
	 * state) or broken. */
	void *(*open)(char *msg, size_t cap);
	/* Its devices' locations; *n set. */
	const struct wddm_pci_cand *(*devices)(const void *p, int *n);
	/* Fills dev from device i (an index into devices()). */
	void (*fill)(void *p, int i, struct gtm_device *dev);
	/* Why device i, matched, still gives no readings ("" when it does);
	 * NULL: it always does. */
	void (*note)(const void *p, int i, char *out, size_t cap);
	/* What it found ("driver 551.23, 1 device (C:\\...\\nvml.dll)"). */
	void (*describe)(const void *p, char *out, size_t cap);
	void (*close)(void *p);
};

extern const struct wddm_provider wddm_nvml_provider;
extern const struct wddm_provider wddm_adl_provider;

#endif
