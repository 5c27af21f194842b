/* DXGI's hardware adapters (dxgi.dll from System32): the Windows half of
 * wddm_adapters_list. */
#ifndef GTM_WDDM_DXGI_H
#define GTM_WDDM_DXGI_H

#include <stddef.h>

#include "sources/wddm/wddm_adapter_info.h"
#include "sources/wddm/wddm_relist.h"

/* CreateDXGIFactory1, EnumAdapters1 until DXGI_ERROR_NOT_FOUND, GetDesc1:
 * name, ids, memory and LUID of each adapter that is not a software one,
 * at most cap, in DXGI's order; has_pci false. The software ones' LUIDs go
 * to skipped (when not NULL): PDH counts them too, and they are no new
 * adapter. Returns how many, or -1 with the reason in why. */
int wddm_dxgi_adapters(struct wddm_adapter *out, int cap, struct wddm_luids *skipped, char *why, size_t why_len);

#endif
