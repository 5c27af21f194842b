/* A test double of dxgi.dll for the Windows suite under Wine: the small part
 * of DXGI's COM surface gputaskman uses (CreateDXGIFactory1,
 * IDXGIFactory1::EnumAdapters1, IDXGIAdapter1::GetDesc1, Release), with the
 * adapters read from the scenario file named by GTM_FAKE_DXGI_SCENARIO at
 * each CreateDXGIFactory1 (format: tests/fakes/README.md). Slots of the
 * vtables gputaskman never calls are NULL, so a call to one crashes the test
 * instead of passing unnoticed. fake_dxgi_live_objects() tells a test whether
 * every object it was handed has been released. */
#define COBJMACROS
#include <dxgi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "scenario_words.h"

#define MAX_ADAPTERS 16

struct fake_adapter {
	IDXGIAdapter1 iface;
	LONG refs;
	DXGI_ADAPTER_DESC1 desc;
};

struct fake_factory {
	IDXGIFactory1 iface;
	LONG refs;
	DXGI_ADAPTER_DESC1 descs[MAX_ADAPTERS];
	UINT n;
};

static LONG live_objects;

__declspec(dllexport) LONG fake_dxgi_live_objects(void)
{
	return live_objects;
}

/* IDXGIAdapter1 */
static HRESULT STDMETHODCALLTYPE ad_query(IDXGIAdapter1 *This, REFIID riid, void **out)
{
	(void)riid;
	(void)This;
	*out = NULL;
	return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE ad_addref(IDXGIAdapter1 *This)
{
	return (ULONG)InterlockedIncrement(&((struct fake_adapter *)This)->refs);
}
static ULONG STDMETHODCALLTYPE ad_release(IDXGIAdapter1 *This)
{
	struct fake_adapter *a = (struct fake_adapter *)This;
	LONG r = InterlockedDecrement(&a->refs);
	if (r == 0) {
		free(a);
		InterlockedDecrement(&live_objects);
	}
	return (ULONG)r;
}
static HRESULT STDMETHODCALLTYPE ad_desc1(IDXGIAdapter1 *This, DXGI_ADAPTER_DESC1 *d)
{
	*d = ((struct fake_adapter *)This)->desc;
	return S_OK;
}
static IDXGIAdapter1Vtbl adapter_vtbl = {
	.QueryInterface = ad_query,
	.AddRef = ad_addref,
	.Release = ad_release,
	.GetDesc1 = ad_desc1,
};

/* IDXGIFactory1 */
static HRESULT STDMETHODCALLTYPE f_query(IDXGIFactory1 *This, REFIID riid, void **out)
{
	if (IsEqualGUID(riid, &IID_IUnknown) || IsEqualGUID(riid, &IID_IDXGIFactory1)) {
		*out = This;
		IDXGIFactory1_AddRef(This);
		return S_OK;
	}
	*out = NULL;
	return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE f_addref(IDXGIFactory1 *This)
{
	return (ULONG)InterlockedIncrement(&((struct fake_factory *)This)->refs);
}
static ULONG STDMETHODCALLTYPE f_release(IDXGIFactory1 *This)
{
	struct fake_factory *f = (struct fake_factory *)This;
	LONG r = InterlockedDecrement(&f->refs);
	if (r == 0) {
		free(f);
		InterlockedDecrement(&live_objects);
	}
	return (ULONG)r;
}
static HRESULT STDMETHODCALLTYPE f_enum1(IDXGIFactory1 *This, UINT i, IDXGIAdapter1 **out)
{
	struct fake_factory *f = (struct fake_factory *)This;
	*out = NULL;
	if (i >= f->n)
		return DXGI_ERROR_NOT_FOUND;
	struct fake_adapter *a = calloc(1, sizeof *a);
	if (!a)
		return E_OUTOFMEMORY;
	a->iface.lpVtbl = &adapter_vtbl;
	a->refs = 1;
	a->desc = f->descs[i];
	InterlockedIncrement(&live_objects);
	*out = &a->iface;
	return S_OK;
}
static BOOL STDMETHODCALLTYPE f_is_current(IDXGIFactory1 *This)
{
	(void)This;
	return TRUE;
}
static IDXGIFactory1Vtbl factory_vtbl = {
	.QueryInterface = f_query,
	.AddRef = f_addref,
	.Release = f_release,
	.EnumAdapters1 = f_enum1,
	.IsCurrent = f_is_current,
};

/* "0xHIGH_0xLOW", as PDH prints a LUID. */
static void parse_luid(const char *v, LUID *l)
{
	unsigned hi = 0, lo = 0;
	sscanf(v, "0x%x_0x%x", &hi, &lo);
	l->HighPart = (LONG)hi;
	l->LowPart = lo;
}

static void parse_adapter(const char *p, DXGI_ADAPTER_DESC1 *d)
{
	char key[32], val[160];
	memset(d, 0, sizeof *d);
	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		unsigned long long n = strtoull(val, NULL, 0);
		if (!strcmp(key, "name"))
			MultiByteToWideChar(CP_UTF8, 0, val, -1, d->Description, 128);
		else if (!strcmp(key, "luid"))
			parse_luid(val, &d->AdapterLuid);
		else if (!strcmp(key, "software"))
			d->Flags |= DXGI_ADAPTER_FLAG_SOFTWARE;
		else if (!strcmp(key, "vendor"))
			d->VendorId = (UINT)n;
		else if (!strcmp(key, "device"))
			d->DeviceId = (UINT)n;
		else if (!strcmp(key, "subsys"))
			d->SubSysId = (UINT)n;
		else if (!strcmp(key, "rev"))
			d->Revision = (UINT)n;
		else if (!strcmp(key, "dedicated"))
			d->DedicatedVideoMemory = (SIZE_T)n;
		else if (!strcmp(key, "dedicated_system"))
			d->DedicatedSystemMemory = (SIZE_T)n;
		else if (!strcmp(key, "shared"))
			d->SharedSystemMemory = (SIZE_T)n;
		else
			fprintf(stderr, "fake-dxgi: unknown adapter key '%s'\n", key);
	}
}

/* Fills f from the scenario; returns the HRESULT CreateDXGIFactory1 gives. */
static HRESULT load_scenario(struct fake_factory *f)
{
	char *text = scenario_read_file(getenv("GTM_FAKE_DXGI_SCENARIO"));
	HRESULT hr = S_OK;
	char word[32], val[160];

	if (!text)
		return DXGI_ERROR_UNSUPPORTED; /* no scenario: Wine's headless answer */
	for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		if (!scenario_next_word(&p, word, sizeof word, val, sizeof val))
			continue;
		if (!strcmp(word, "adapter") && f->n < MAX_ADAPTERS)
			parse_adapter(p, &f->descs[f->n++]);
		else if (!strcmp(word, "fail") && scenario_next_word(&p, word, sizeof word, val, sizeof val))
			hr = (HRESULT)strtoul(val, NULL, 0);
	}
	free(text);
	return hr;
}

/* One line per CreateDXGIFactory1 to GTM_FAKE_DXGI_LOG, when set: how often
 * the adapters were listed, and when ("create ms=T", GetTickCount64: the
 * tests check the time between two listings, not how many fit in a run). */
static void log_create(void)
{
	const char *path = getenv("GTM_FAKE_DXGI_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (f) {
		fprintf(f, "create ms=%llu\n", (unsigned long long)GetTickCount64());
		fclose(f);
	}
}

__declspec(dllexport) HRESULT WINAPI CreateDXGIFactory1(REFIID riid, void **out)
{
	*out = NULL;
	log_create();
	if (!IsEqualGUID(riid, &IID_IDXGIFactory1))
		return E_NOINTERFACE;
	struct fake_factory *f = calloc(1, sizeof *f);
	if (!f)
		return E_OUTOFMEMORY;
	HRESULT hr = load_scenario(f);
	if (FAILED(hr)) {
		free(f);
		return hr;
	}
	f->iface.lpVtbl = &factory_vtbl;
	f->refs = 1;
	InterlockedIncrement(&live_objects);
	*out = &f->iface;
	return S_OK;
}
