#include "sources/wddm/wddm_order.h"

#include <stdio.h>

void wddm_luid_format(wddm_luid luid, char *out, size_t cap)
{
	snprintf(out, cap, "0x%08X_0x%08X", (unsigned)(luid >> 32), (unsigned)(luid & 0xFFFFFFFFu));
}

/* Microsoft's software adapters: (vendor, device). */
static const struct {
	uint32_t vendor, device;
} software_ids[] = {
	{WDDM_VENDOR_MICROSOFT, 0x008C}, /* Microsoft Basic Render Driver / WARP */
};

bool wddm_adapter_is_software(uint32_t vendor_id, uint32_t device_id, uint32_t dxgi_flags)
{
	if (dxgi_flags & WDDM_DXGI_FLAG_SOFTWARE)
		return true;
	for (size_t i = 0; i < sizeof software_ids / sizeof software_ids[0]; i++)
		if (software_ids[i].vendor == vendor_id && software_ids[i].device == device_id)
			return true;
	return false;
}

/* True when x goes before y. */
static bool before(const struct wddm_adapter *x, const struct wddm_adapter *y)
{
	bool xn = x->vendor_id == WDDM_VENDOR_NVIDIA, yn = y->vendor_id == WDDM_VENDOR_NVIDIA;
	if (xn != yn)
		return xn;
	return x->dedicated_video > y->dedicated_video;
}

/* Insertion sort: at most WDDM_MAX_ADAPTERS items, and stable. */
void wddm_order_adapters(struct wddm_adapter *a, int n)
{
	for (int i = 1; i < n; i++) {
		struct wddm_adapter k = a[i];
		int j = i - 1;
		while (j >= 0 && before(&k, &a[j])) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = k;
	}
}
