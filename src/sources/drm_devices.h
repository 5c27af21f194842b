/* The DRM devices under <root>/sys/class/drm: each primary node (cardN)
 * paired with its render node (renderDN) by the device they belong to. */
#ifndef GTM_DRM_DEVICES_H
#define GTM_DRM_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

struct drm_dev {
	char card[16];        /* "card0"; "" when only a render node exists */
	char render[16];      /* "renderD128"; "" for display-only devices */
	int card_minor;       /* N of cardN, -1 when absent */
	int render_minor;     /* N of renderDN, -1 when absent */
	char pci_slot[32];    /* "0000:03:00.0" lower case; "" for non-PCI devices */
	char driver[32];      /* "amdgpu", "i915", "xe", "nouveau", ... */
	uint16_t vendor_id, device_id;
	enum gtm_vendor vendor;
};

/* What a device's uevent file says (DRIVER=, PCI_ID=, PCI_SLOT_NAME=). */
struct drm_uevent {
	char driver[32];
	char pci_slot[32];
	uint16_t vendor_id, device_id;
	bool has_pci_id;
};
void drm_uevent_parse(const char *buf, size_t len, struct drm_uevent *out);

/* Lists the devices. Returns the count (0: none) and *out (free()), or -1 when
 * /sys/class/drm cannot be read. Only devices with a render node, or PCI
 * devices of a GPU vendor, are kept: simpledrm and display-only controllers
 * have no engines or memory to show. Sorted by primary node number. */
int drm_devices_enumerate(struct drm_dev **out);

/* The device owning DRM node "renderD128"/"card0" (a /dev/dri link's basename),
 * or -1. */
int drm_devices_find_node(const struct drm_dev *devs, int n, const char *node);
/* The device at PCI slot "0000:03:00.0" (case-insensitive), or -1. */
int drm_devices_find_slot(const struct drm_dev *devs, int n, const char *slot);

#endif
