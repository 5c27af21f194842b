/* An adapter's PCI location from its LUID through D3DKMT (gdi32):
 * D3DKMTOpenAdapterFromLuid, D3DKMTQueryAdapterInfo with
 * KMTQAITYPE_ADAPTERADDRESS, D3DKMTCloseAdapter. mingw-w64 ships no
 * d3dkmthk.h, so the few structs are declared here from Microsoft's DDI
 * reference pages (d3dkmthk.h: D3DKMT_OPENADAPTERFROMLUID,
 * D3DKMT_QUERYADAPTERINFO, D3DKMT_ADAPTERADDRESS, D3DKMT_CLOSEADAPTER).
 * The entry points are resolved with GetProcAddress, so a Windows or Wine
 * without one gives adapters without a location instead of failing to
 * start; the tests put their own in through wddm_d3dkmt_override. */
#ifndef GTM_WDDM_D3DKMT_H
#define GTM_WDDM_D3DKMT_H

#include <stdbool.h>
#include <stdint.h>
#include <windows.h>

#include "sources/wddm/wddm_adapter_info.h"

typedef UINT wddm_kmt_handle; /* D3DKMT_HANDLE */

struct wddm_kmt_open_from_luid { /* D3DKMT_OPENADAPTERFROMLUID */
	LUID AdapterLuid;
	wddm_kmt_handle hAdapter;
};

struct wddm_kmt_query_info { /* D3DKMT_QUERYADAPTERINFO */
	wddm_kmt_handle hAdapter;
	int Type;                /* KMTQUERYADAPTERINFOTYPE */
	void *pPrivateDriverData;
	UINT PrivateDriverDataSize;
};

struct wddm_kmt_adapter_address { /* D3DKMT_ADAPTERADDRESS */
	UINT BusNumber;
	UINT DeviceNumber;
	UINT FunctionNumber;
};

struct wddm_kmt_close { /* D3DKMT_CLOSEADAPTER */
	wddm_kmt_handle hAdapter;
};

/* KMTQAITYPE_ADAPTERADDRESS: the seventh of KMTQUERYADAPTERINFOTYPE
 * (UMDRIVERPRIVATE 0, UMDRIVERNAME, UMOPENGLINFO, GETSEGMENTSIZE,
 * ADAPTERGUID, FLIPQUEUEINFO, ADAPTERADDRESS 6). */
#define WDDM_KMTQAITYPE_ADAPTERADDRESS 6

typedef LONG(APIENTRY *wddm_kmt_open_fn)(struct wddm_kmt_open_from_luid *);
typedef LONG(APIENTRY *wddm_kmt_query_fn)(const struct wddm_kmt_query_info *);
typedef LONG(APIENTRY *wddm_kmt_close_fn)(const struct wddm_kmt_close *);

struct wddm_d3dkmt_api {
	wddm_kmt_open_fn open_from_luid;
	wddm_kmt_query_fn query_info;
	wddm_kmt_close_fn close_adapter;
};

/* Tests: these entry points (any may be NULL, as a missing export) instead
 * of gdi32's; NULL goes back to gdi32's. */
void wddm_d3dkmt_override(const struct wddm_d3dkmt_api *api);

/* The PCI bus/device/function of the adapter with this LUID. False when an
 * entry point is missing or a call fails (the reason in why). */
bool wddm_d3dkmt_pci(wddm_luid luid, uint32_t *bus, uint32_t *dev, uint32_t *fn, char *why, size_t why_len);

#endif
