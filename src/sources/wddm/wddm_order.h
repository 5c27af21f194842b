/* Which DXGI adapters gputaskman lists, and in which order: the pure rules,
 * shared by the Windows build and the Linux unit tests. */
#ifndef GTM_WDDM_ORDER_H
#define GTM_WDDM_ORDER_H

#include <stdbool.h>

#include "sources/wddm/wddm_adapter_info.h"

#define WDDM_VENDOR_NVIDIA 0x10DEu
#define WDDM_VENDOR_AMD 0x1002u
#define WDDM_VENDOR_INTEL 0x8086u
#define WDDM_VENDOR_MICROSOFT 0x1414u

/* DXGI_ADAPTER_FLAG_SOFTWARE (dxgi.h): WARP and the Basic Render Driver. */
#define WDDM_DXGI_FLAG_SOFTWARE 2u

/* A software adapter, by its DXGI flags or by Microsoft's Basic Render
 * Driver ids (VEN_1414 DEV_008C), which some systems list without the flag
 * (windows_exporter skips it by id). */
bool wddm_adapter_is_software(uint32_t vendor_id, uint32_t device_id, uint32_t dxgi_flags);

/* Sorts a[0..n) into --gpu order: NVIDIA first, then the others, each group
 * by dedicated video memory, largest first; equal ones keep DXGI's order
 * (stable), so the order is the same every run. */
void wddm_order_adapters(struct wddm_adapter *a, int n);

#endif
