/* One Windows GPU adapter as DXGI and D3DKMT describe it, in plain C types so
 * the pure parts that order adapters and join telemetry to them
 * (wddm_order.c, wddm_pci_join.c) build and are unit-tested on Linux too.
 * The Windows side that fills it is src/platform/windows/wddm_adapters.h. */
#ifndef GTM_WDDM_ADAPTER_INFO_H
#define GTM_WDDM_ADAPTER_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The LUID as PDH prints it and gtm_device.luid holds it:
 * "0x%08X_0x%08X" of (HighPart, LowPart). */
void wddm_luid_format(wddm_luid luid, char *out, size_t cap);

#endif
