/* A test double of gdi32's three D3DKMT entry points gputaskman calls
 * (D3DKMTOpenAdapterFromLuid, D3DKMTQueryAdapterInfo with
 * KMTQAITYPE_ADAPTERADDRESS, D3DKMTCloseAdapter), for gputaskman.exe under
 * Wine 8, whose gdi32 has no D3DKMTQueryAdapterInfo: the exe takes them from
 * the DLL GTM_D3DKMT_DLL names (src/platform/windows/wddm_d3dkmt.c). The
 * LUID → PCI location table is read from GTM_FAKE_D3DKMT_SCENARIO at each
 * open (format: tests/fakes/README.md); an unknown LUID is
 * STATUS_INVALID_PARAMETER, as on Windows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "scenario_words.h"
#include "wddm_d3dkmt.h"

#define STATUS_INVALID_PARAMETER_ ((LONG)0xC000000Du)
#define MAX_ADAPTERS 16

struct row {
	wddm_luid luid;
	UINT bus, dev, fn;
};

static struct row rows[MAX_ADAPTERS];
static int n_rows;
static LONG open_handles;

__declspec(dllexport) LONG fake_d3dkmt_open_handles(void)
{
	return open_handles;
}

static void parse_adapter(const char *p, struct row *r)
{
	char key[32], val[64];
	unsigned hi = 0, lo = 0;
	memset(r, 0, sizeof *r);
	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		UINT n = (UINT)strtoul(val, NULL, 0);
		if (!strcmp(key, "luid") && sscanf(val, "0x%x_0x%x", &hi, &lo) == 2)
			r->luid = (wddm_luid)hi << 32 | lo;
		else if (!strcmp(key, "bus"))
			r->bus = n;
		else if (!strcmp(key, "dev"))
			r->dev = n;
		else if (!strcmp(key, "fn"))
			r->fn = n;
		else
			fprintf(stderr, "fake-d3dkmt: unknown adapter key '%s'\n", key);
	}
}

static void load_scenario(void)
{
	char *text = scenario_read_file(getenv("GTM_FAKE_D3DKMT_SCENARIO"));
	char word[32], val[64];

	n_rows = 0;
	for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		if (scenario_next_word(&p, word, sizeof word, val, sizeof val) && !strcmp(word, "adapter") &&
		    n_rows < MAX_ADAPTERS)
			parse_adapter(p, &rows[n_rows++]);
	}
	free(text);
}

__declspec(dllexport) LONG APIENTRY D3DKMTOpenAdapterFromLuid(struct wddm_kmt_open_from_luid *o)
{
	wddm_luid l = (wddm_luid)(uint32_t)o->AdapterLuid.HighPart << 32 | o->AdapterLuid.LowPart;
	load_scenario();
	for (int i = 0; i < n_rows; i++)
		if (rows[i].luid == l) {
			o->hAdapter = (UINT)i + 1;
			InterlockedIncrement(&open_handles);
			return 0;
		}
	return STATUS_INVALID_PARAMETER_;
}

__declspec(dllexport) LONG APIENTRY D3DKMTQueryAdapterInfo(const struct wddm_kmt_query_info *q)
{
	if (q->Type != WDDM_KMTQAITYPE_ADAPTERADDRESS || q->PrivateDriverDataSize != sizeof(struct wddm_kmt_adapter_address) ||
	    q->hAdapter < 1 || (int)q->hAdapter > n_rows)
		return STATUS_INVALID_PARAMETER_;
	struct wddm_kmt_adapter_address *a = q->pPrivateDriverData;
	const struct row *r = &rows[q->hAdapter - 1];
	a->BusNumber = r->bus;
	a->DeviceNumber = r->dev;
	a->FunctionNumber = r->fn;
	return 0;
}

__declspec(dllexport) LONG APIENTRY D3DKMTCloseAdapter(const struct wddm_kmt_close *c)
{
	(void)c;
	InterlockedDecrement(&open_handles);
	return 0;
}
