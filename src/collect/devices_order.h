/* The device list as views show it: an NVIDIA GPU seen through both NVML and
 * DRM once (the NVML one kept), NVIDIA first, then the others, each group by
 * dedicated memory, largest first. Device indexes (--gpu N) follow this order. */
#ifndef GTM_DEVICES_ORDER_H
#define GTM_DEVICES_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "sources/source.h"

/* Drops duplicates, orders and re-indexes snap->devices, and remaps every
 * use's dev_index (uses of a dropped duplicate are removed: the kept source
 * reports that device's processes). */
void devices_order(struct gtm_snapshot *snap, struct gtm_raw_uses *uses);

/* Parses a PCI address, "0000:03:00.0", NVML's "00000000:03:00.0" or
 * "03:00.0", into one comparable number; false when it is not one. */
bool pci_address_key(const char *s, uint64_t *key);

#endif
