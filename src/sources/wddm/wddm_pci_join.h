/* Joining vendor telemetry (NVML devices, ADL adapters) to DXGI adapters by
 * PCI location only: PDH and DXGI name an adapter by LUID, NVML and ADL by
 * PCI bus/device/function, and D3DKMT gives the adapter's location. A
 * telemetry device that is not the one unique match of an adapter's location
 * is never lent to it. Pure, so the rules are unit-tested on Linux. */
#ifndef GTM_WDDM_PCI_JOIN_H
#define GTM_WDDM_PCI_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "sources/wddm/wddm_adapter_info.h"

/* One telemetry device's PCI location as its provider reports it. */
struct wddm_pci_cand {
	int domain, bus, dev, fn;     /* ADL reports bus -1 for adapters with no location */
	bool has_ids;                 /* vendor_id/device_id known (NVML's pciDeviceId) */
	uint32_t vendor_id, device_id;
	int tag;                      /* the provider's own index (NVML device, ADL adapter index) */
};

enum wddm_join {
	WDDM_JOIN_OK = 0,
	WDDM_JOIN_NO_PCI,     /* D3DKMT gave the adapter no location */
	WDDM_JOIN_NONE,       /* no device at that location */
	WDDM_JOIN_IDS_DIFFER, /* a device there, but its PCI ids are another card's */
	WDDM_JOIN_AMBIGUOUS,  /* more than one device there */
};

/* The index into c[0..n) of the one device at a's PCI location, or -1 with
 * the reason in *why. D3DKMT carries no PCI domain: only domain-0 devices
 * match (platforms.md §1.5). */
int wddm_pci_match(const struct wddm_pci_cand *c, int n, const struct wddm_adapter *a, enum wddm_join *why);
/* In words, for the sources line and notes. */
const char *wddm_join_name(enum wddm_join j);

/* NVML's nvmlPciInfo_t.pciDeviceId is DeviceId << 16 | VendorId. */
void wddm_pci_ids_from_nvml(unsigned pci_device_id, uint32_t *vendor_id, uint32_t *device_id);

/* Drops locations ADL marks as none (bus <= -1) and later duplicates of one
 * location (ADL lists one GPU under several logical adapter indices; the
 * first is kept). Returns the new count. */
int wddm_pci_dedupe(struct wddm_pci_cand *c, int n);

#endif
