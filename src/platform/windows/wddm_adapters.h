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

/* struct wddm_adapter, wddm_luid and WDDM_MAX_ADAPTERS live in a portable
 * header, so the ordering and the PCI join are unit-tested on Linux too. */
#include "sources/wddm/wddm_adapter_info.h"
#include "sources/wddm/wddm_relist.h"

/* The hardware adapters DXGI lists, software ones (WARP, Basic Render)
 * left out (their LUIDs in skipped, when not NULL), at most cap, in --gpu order (NVIDIA first, then the others,
 * each group by dedicated memory, largest first). Returns how many, or -1 with why set when DXGI
 * itself is unavailable (as under Wine without a display). With a count, why
 * is empty or a note (an adapter D3DKMT gave no PCI location, and why). */
int wddm_adapters_list(struct wddm_adapter *out, int cap, struct wddm_luids *skipped, char *why, size_t why_len);

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
/* Why a's telemetry is what it is, one line per provider that could have
 * measured it ("nvml: no device at the adapter's PCI location"), into out. */
void wddm_telemetry_explain(const struct wddm_telemetry *t, const struct wddm_adapter *a, char *out, size_t cap);
void wddm_telemetry_close(struct wddm_telemetry *t);

#endif
