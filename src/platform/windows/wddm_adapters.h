/* Windows' GPU adapters (DXGI, with each one's PCI location from D3DKMT) and
 * their vendor telemetry (NVML's nvml.dll for NVIDIA, ADL's atiadlxx.dll for
 * AMD), the seam between the WDDM source (PDH counters, which name adapters
 * only by LUID) and what names and measures the cards. Telemetry is joined
 * to an adapter only by PCI location: no unique match leaves it N/A. */
#ifndef GTM_WDDM_ADAPTERS_H
#define GTM_WDDM_ADAPTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

#define WDDM_MAX_ADAPTERS 16

/* An adapter LUID as one number: HighPart in the upper 32 bits, LowPart in
 * the lower, the order PDH's instance names print them in
 * (luid_0x<HIGH>_0x<LOW>). */
typedef uint64_t wddm_luid;

struct wddm_adapter {
	wddm_luid luid;
	char name[96];                 /* DXGI Description, UTF-8 */
	uint32_t vendor_id, device_id, subsys_id, revision;
	uint64_t dedicated_video;      /* DXGI DedicatedVideoMemory, bytes */
	uint64_t dedicated_system, shared_system;
	bool has_pci;                  /* D3DKMT gave its bus/device/function */
	uint32_t pci_bus, pci_dev, pci_fn;
};

/* The hardware adapters DXGI lists, software ones (WARP, Basic Render)
 * left out, at most cap, in --gpu order (NVIDIA first, then the others,
 * each group by dedicated memory, largest first). Returns how many, or -1 with why set when DXGI
 * itself is unavailable (as under Wine without a display). */
int wddm_adapters_list(struct wddm_adapter *out, int cap, char *why, size_t why_len);

/* Vendor telemetry providers, opened once (each is loaded at run time and
 * may be absent: a normal state). */
struct wddm_telemetry;
struct wddm_telemetry *wddm_telemetry_open(void);
/* Fills what a provider measures for the card at a's PCI location into dev
 * (temperature, power, clocks, fan, PCIe, utilisation, driver/CUDA versions,
 * uuid, pci_bus_id, ...); leaves the rest as they are (N/A). */
void wddm_telemetry_fill(struct wddm_telemetry *t, const struct wddm_adapter *a, struct gtm_device *dev);
/* One line per provider for the sources list ("nvml: driver 551.23", "adl: not
 * installed"), written into out. */
void wddm_telemetry_describe(const struct wddm_telemetry *t, char *out, size_t cap);
void wddm_telemetry_close(struct wddm_telemetry *t);

#endif
