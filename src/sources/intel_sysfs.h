/* Intel i915 and xe device readings from sysfs: frequency, local memory
 * size, integrated or discrete. Engine load comes from fdinfo. */
#ifndef GTM_INTEL_SYSFS_H
#define GTM_INTEL_SYSFS_H

#include "core/snapshot.h"

/* card: "card0"; driver: "i915" or "xe"; pci_slot: "0000:00:02.0".
 * may_wake false (runtime-suspended): sizes only, no frequency or hwmon. */
void intel_sysfs_read(const char *card, const char *driver, const char *pci_slot, struct gtm_device *d,
		      bool may_wake);

#endif
