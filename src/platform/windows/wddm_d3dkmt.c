#include "wddm_d3dkmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

#include "wddm_sysdll.h"
#include "win_seam.h"

static bool overridden;
static struct wddm_d3dkmt_api test_api;

void wddm_d3dkmt_override(const struct wddm_d3dkmt_api *api)
{
	overridden = api != NULL;
	if (api)
		test_api = *api;
}

/* GTM_D3DKMT_DLL (win_seam.h) names a DLL whose D3DKMT exports stand in for
 * gdi32's: Wine 8's gdi32 has no D3DKMTQueryAdapterInfo (tests/fakes/d3dkmt).
 * Loaded once, kept loaded. */
static HMODULE seam_dll(void)
{
	static HMODULE dll;
	static bool tried;
	bool named;

	if (!tried)
		dll = win_seam_dll(L"GTM_D3DKMT_DLL", &named);
	tried = true;
	return dll;
}

/* gdi32 is loaded in every GUI-capable process; resolving from it on each
 * call costs three lookups, made once per adapter listing. */
static void resolve(struct wddm_d3dkmt_api *api)
{
	if (overridden) {
		*api = test_api;
		return;
	}
	*api = (struct wddm_d3dkmt_api){0};
	HMODULE gdi = seam_dll();
	if (!gdi)
		gdi = GetModuleHandleW(L"gdi32.dll");
	if (!gdi)
		gdi = LoadLibraryExW(L"gdi32.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
	if (!gdi)
		return;
	api->open_from_luid = (wddm_kmt_open_fn)wddm_dll_sym(gdi, "D3DKMTOpenAdapterFromLuid");
	api->query_info = (wddm_kmt_query_fn)wddm_dll_sym(gdi, "D3DKMTQueryAdapterInfo");
	api->close_adapter = (wddm_kmt_close_fn)wddm_dll_sym(gdi, "D3DKMTCloseAdapter");
}

bool wddm_d3dkmt_pci(wddm_luid luid, uint32_t *bus, uint32_t *dev, uint32_t *fn, char *why, size_t why_len)
{
	struct wddm_d3dkmt_api api;

	resolve(&api);
	if (!api.open_from_luid || !api.query_info || !api.close_adapter) {
		snprintf(why, why_len, "D3DKMT%s is not exported",
			 !api.open_from_luid ? "OpenAdapterFromLuid" : !api.query_info ? "QueryAdapterInfo" : "CloseAdapter");
		return false;
	}
	struct wddm_kmt_open_from_luid o = {.AdapterLuid = {.LowPart = (DWORD)(luid & 0xFFFFFFFFu),
							    .HighPart = (LONG)(uint32_t)(luid >> 32)}};
	LONG st = api.open_from_luid(&o);
	if (st != 0) {
		snprintf(why, why_len, "D3DKMTOpenAdapterFromLuid failed (NTSTATUS 0x%08lX)", (unsigned long)st);
		return false;
	}
	struct wddm_kmt_adapter_address addr = {0};
	struct wddm_kmt_query_info q = {.hAdapter = o.hAdapter, .Type = WDDM_KMTQAITYPE_ADAPTERADDRESS,
					.pPrivateDriverData = &addr, .PrivateDriverDataSize = sizeof addr};
	st = api.query_info(&q);
	struct wddm_kmt_close c = {.hAdapter = o.hAdapter};
	api.close_adapter(&c);
	if (st != 0) {
		snprintf(why, why_len, "D3DKMTQueryAdapterInfo(ADAPTERADDRESS) failed (NTSTATUS 0x%08lX)", (unsigned long)st);
		return false;
	}
	*bus = addr.BusNumber;
	*dev = addr.DeviceNumber;
	*fn = addr.FunctionNumber;
	return true;
}
