/* wddm_adapters_list: DXGI's adapters (wddm_dxgi.c), each one's PCI location
 * from D3DKMT (wddm_d3dkmt.c), in --gpu order (sources/wddm/wddm_order.c). */
#include "wddm_adapters.h"

#include <stdio.h>

#include "sources/wddm/wddm_order.h"
#include "wddm_d3dkmt.h"
#include "wddm_dxgi.h"

int wddm_adapters_list(struct wddm_adapter *out, int cap, struct wddm_luids *skipped, char *why, size_t why_len)
{
	if (why_len)
		why[0] = '\0';
	if (skipped)
		skipped->n = 0;
	int n = wddm_dxgi_adapters(out, cap, skipped, why, why_len);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		char kmt_why[160];
		out[i].has_pci = wddm_d3dkmt_pci(out[i].luid, &out[i].pci_bus, &out[i].pci_dev, &out[i].pci_fn, kmt_why,
						 sizeof kmt_why);
		/* one note is enough: every adapter goes through the same entry points */
		if (!out[i].has_pci && why_len && !why[0])
			snprintf(why, why_len, "no PCI location for %s: %s (its telemetry is unavailable)", out[i].name, kmt_why);
	}
	wddm_order_adapters(out, n);
	return n;
}
