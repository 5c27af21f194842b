#define COBJMACROS
#include "wddm_dxgi.h"

#include <dxgi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "sources/wddm/wddm_order.h"
#include "wddm_sysdll.h"

typedef HRESULT(WINAPI *create_factory1_fn)(REFIID, void **);

/* Copies at most cap-1 bytes of UTF-8 without cutting a character. */
static void utf8_copy(char *dst, const char *src, size_t cap)
{
	size_t n = str_copy(dst, src, cap);
	if (n < cap)
		return;
	size_t end = cap - 1;
	while (end > 0 && ((unsigned char)dst[end] & 0xC0) == 0x80)
		end--;
	dst[end] = '\0';
}

static void from_desc(const DXGI_ADAPTER_DESC1 *d, struct wddm_adapter *a)
{
	memset(a, 0, sizeof *a);
	char *name = wide_to_utf8(d->Description, -1);
	utf8_copy(a->name, name ? name : "", sizeof a->name);
	free(name);
	a->vendor_id = d->VendorId;
	a->device_id = d->DeviceId;
	a->subsys_id = d->SubSysId;
	a->revision = d->Revision;
	a->dedicated_video = d->DedicatedVideoMemory;
	a->dedicated_system = d->DedicatedSystemMemory;
	a->shared_system = d->SharedSystemMemory;
	a->luid = (uint64_t)(uint32_t)d->AdapterLuid.HighPart << 32 | d->AdapterLuid.LowPart;
}

static void skip(struct wddm_luids *skipped, const DXGI_ADAPTER_DESC1 *d)
{
	if (skipped && skipped->n < WDDM_MAX_ADAPTERS)
		skipped->v[skipped->n++] = (uint64_t)(uint32_t)d->AdapterLuid.HighPart << 32 | d->AdapterLuid.LowPart;
}

static int enumerate(IDXGIFactory1 *f, struct wddm_adapter *out, int cap, struct wddm_luids *skipped, char *why,
		     size_t why_len)
{
	int n = 0;

	for (UINT i = 0; n < cap; i++) {
		IDXGIAdapter1 *ad = NULL;
		HRESULT hr = IDXGIFactory1_EnumAdapters1(f, i, &ad);
		if (hr == DXGI_ERROR_NOT_FOUND)
			break;
		if (FAILED(hr) || !ad) {
			snprintf(why, why_len, "IDXGIFactory1::EnumAdapters1(%u) failed (HRESULT 0x%08lX)", i, (unsigned long)hr);
			return n ? n : -1;
		}
		DXGI_ADAPTER_DESC1 d;
		hr = IDXGIAdapter1_GetDesc1(ad, &d);
		IDXGIAdapter1_Release(ad);
		if (FAILED(hr))
			continue;
		if (wddm_adapter_is_software(d.VendorId, d.DeviceId, d.Flags)) {
			skip(skipped, &d);
			continue;
		}
		from_desc(&d, &out[n++]);
	}
	return n;
}

int wddm_dxgi_adapters(struct wddm_adapter *out, int cap, struct wddm_luids *skipped, char *why, size_t why_len)
{
	wchar_t sys[MAX_PATH];
	char path[MAX_PATH * 3];

	if (wddm_system_dir(sys, MAX_PATH) != 0) {
		snprintf(why, why_len, "no System32 folder (GetSystemDirectoryW failed)");
		return -1;
	}
	HMODULE dll = wddm_dll_load(sys, L"dxgi.dll", path, sizeof path);
	if (!dll) {
		snprintf(why, why_len, "DXGI is unavailable: %s does not load (error %lu)", path, (unsigned long)GetLastError());
		return -1;
	}
	create_factory1_fn create = (create_factory1_fn)wddm_dll_sym(dll, "CreateDXGIFactory1");
	IDXGIFactory1 *f = NULL;
	HRESULT hr = create ? create(&IID_IDXGIFactory1, (void **)&f) : E_NOTIMPL;
	int n = -1;
	if (!create)
		snprintf(why, why_len, "DXGI is unavailable: %s has no CreateDXGIFactory1", path);
	else if (FAILED(hr) || !f)
		snprintf(why, why_len, "DXGI is unavailable: CreateDXGIFactory1 failed (HRESULT 0x%08lX%s)", (unsigned long)hr,
			 hr == DXGI_ERROR_UNSUPPORTED ? ", DXGI_ERROR_UNSUPPORTED: no display, as under Wine headless" : "");
	else {
		n = enumerate(f, out, cap, skipped, why, why_len);
		IDXGIFactory1_Release(f);
	}
	FreeLibrary(dll);
	return n;
}
