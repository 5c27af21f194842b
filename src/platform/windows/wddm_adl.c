/* AMD telemetry on Windows: ADL's atiadlxx.dll from System32 (the 64-bit
 * library; atiadlxy.dll is the 32-bit one, which a 64-bit exe cannot load).
 * The call sequence is the one AMD's Overdrive8 sample uses: a context
 * (ADL2_Main_Control_Create), the adapters with their PCI bus/device/
 * function, then per GPU the PMLog shared memory (device create, sensor
 * list, start) read once per refresh and stopped at close. One GPU appears
 * under several logical adapter indices: they are deduplicated by location,
 * and adapters ADL gives no bus (-1) are skipped. A GPU without PMLog (the
 * generations before it) is read through Overdrive5 (wddm_adl_od5.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adl_abi.h"
#include "wddm_adl_od5.h"
#include "core/util.h"
#include "wddm_provider.h"
#include "wddm_sysdll.h"

struct adl_fns {
	gtm_adl_create_fn create;
	gtm_adl_destroy_fn destroy;
	gtm_adl_count_fn count;
	gtm_adl_info_fn info;
	gtm_adl_shm_support_fn shm_support;
	gtm_adl_dev_create_fn dev_create;
	gtm_adl_dev_destroy_fn dev_destroy;
	gtm_adl_sensor_types_fn sensor_types;
	gtm_adl_shm_start_fn shm_start;
	gtm_adl_shm_read_fn shm_read;
	gtm_adl_shm_stop_fn shm_stop;
	struct wddm_adl_od5 od5;
};

#define ADL_SYM(n, field, need) {"ADL2_" n, offsetof(struct adl_fns, field), need}
static const struct {
	const char *name;
	size_t off;
	bool needed; /* without it no adapter can be listed */
} adl_syms[] = {
	ADL_SYM("Main_Control_Create", create, true),
	ADL_SYM("Main_Control_Destroy", destroy, true),
	ADL_SYM("Adapter_NumberOfAdapters_Get", count, true),
	ADL_SYM("Adapter_AdapterInfo_Get", info, true),
	ADL_SYM("Overdrive8_PMLog_ShareMemory_Support", shm_support, false),
	ADL_SYM("Device_PMLog_Device_Create", dev_create, false),
	ADL_SYM("Device_PMLog_Device_Destroy", dev_destroy, false),
	ADL_SYM("Overdrive8_PMLogSenorType_Support_Get", sensor_types, false), /* AMD's spelling */
	ADL_SYM("Overdrive8_PMLog_ShareMemory_Start", shm_start, false),
	ADL_SYM("Overdrive8_PMLog_ShareMemory_Read", shm_read, false),
	ADL_SYM("Overdrive8_PMLog_ShareMemory_Stop", shm_stop, false),
	ADL_SYM("Overdrive5_CurrentActivity_Get", od5.activity, false),
	ADL_SYM("Overdrive5_ODParameters_Get", od5.params, false),
	ADL_SYM("Overdrive5_Temperature_Get", od5.temp, false),
	ADL_SYM("Overdrive5_FanSpeed_Get", od5.fan, false),
};

/* One GPU's PMLog session. */
struct adl_gpu {
	bool logging;
	gtm_adl_kmt kmt;
	void *shm;
	int n_sensors;
	int *sensors; /* allocated by ADL through adl_alloc */
};

struct wddm_adl {
	HMODULE dll;
	char path[MAX_PATH * 3];
	struct adl_fns fn;
	gtm_adl_context ctx;
	int n, n_logging;
	struct wddm_pci_cand cand[WDDM_MAX_ADAPTERS];
	struct adl_gpu gpu[WDDM_MAX_ADAPTERS];
};

static void *__stdcall adl_alloc(int size)
{
	return size > 0 ? malloc((size_t)size) : NULL;
}

/* Returns the first needed entry point that is missing, or NULL. */
static const char *resolve(struct wddm_adl *s)
{
	const char *missing = NULL;
	for (size_t i = 0; i < ARRAY_LEN(adl_syms); i++) {
		void *p = wddm_dll_sym(s->dll, adl_syms[i].name);
		memcpy((char *)&s->fn + adl_syms[i].off, &p, sizeof p);
		if (!p && adl_syms[i].needed && !missing)
			missing = adl_syms[i].name;
	}
	return missing;
}

/* The adapters' locations, deduplicated; tag is ADL's adapter index. */
static void list_adapters(struct wddm_adl *s)
{
	int n = 0;
	if (s->fn.count(s->ctx, &n) != GTM_ADL_OK || n <= 0 || n > 256)
		return;
	struct gtm_adl_adapter_info *info = xcalloc((size_t)n, sizeof *info);
	if (s->fn.info(s->ctx, info, (int)(sizeof *info * (size_t)n)) == GTM_ADL_OK) {
		struct wddm_pci_cand all[256];
		for (int i = 0; i < n; i++)
			all[i] = (struct wddm_pci_cand){.domain = 0, .bus = info[i].iBusNumber, .dev = info[i].iDeviceNumber,
							.fn = info[i].iFunctionNumber, .tag = info[i].iAdapterIndex};
		int kept = wddm_pci_dedupe(all, n);
		s->n = kept < WDDM_MAX_ADAPTERS ? kept : WDDM_MAX_ADAPTERS;
		memcpy(s->cand, all, sizeof all[0] * (size_t)s->n);
	}
	free(info);
}

static bool has_pmlog(const struct adl_fns *f)
{
	return f->shm_support && f->dev_create && f->dev_destroy && f->sensor_types && f->shm_start && f->shm_read &&
	       f->shm_stop;
}

/* PMLog shared memory for one GPU, sampled every second by the driver. */
static void start_log(struct wddm_adl *s, int i)
{
	struct adl_gpu *g = &s->gpu[i];
	int idx = s->cand[i].tag, supported = 0;

	if (s->fn.shm_support(s->ctx, idx, &supported, 0) != GTM_ADL_OK || !supported)
		return;
	if (s->fn.dev_create(s->ctx, idx, &g->kmt) != GTM_ADL_OK)
		return;
	if (s->fn.sensor_types(s->ctx, idx, &g->n_sensors, &g->sensors) == GTM_ADL_OK &&
	    s->fn.shm_start(s->ctx, idx, 1000, g->n_sensors, g->sensors, &g->kmt, &g->shm, 0) == GTM_ADL_OK) {
		g->logging = true;
		s->n_logging++;
		return;
	}
	s->fn.dev_destroy(s->ctx, g->kmt);
	free(g->sensors);
	g->sensors = NULL;
}

static void adl_close(void *p);

static void *adl_open(char *msg, size_t cap)
{
	wchar_t dir[MAX_PATH];
	struct wddm_adl *s = xcalloc(1, sizeof *s);

	if (wddm_system_dir(dir, MAX_PATH) == 0)
		s->dll = wddm_dll_load(dir, L"atiadlxx.dll", s->path, sizeof s->path);
	if (!s->dll) {
		snprintf(msg, cap, "no AMD driver: %s does not load", s->path[0] ? s->path : "atiadlxx.dll");
		free(s);
		return NULL;
	}
	const char *missing = resolve(s);
	if (missing)
		snprintf(msg, cap, "%s lacks %s: not a usable ADL library", s->path, missing);
	else if (s->fn.create(adl_alloc, 1, &s->ctx) != GTM_ADL_OK) {
		snprintf(msg, cap, "ADL could not start (ADL2_Main_Control_Create failed)");
		s->ctx = NULL;
	}
	if (missing || !s->ctx) {
		adl_close(s);
		return NULL;
	}
	list_adapters(s);
	for (int i = 0; i < s->n && has_pmlog(&s->fn); i++)
		start_log(s, i);
	return s;
}

static const struct wddm_pci_cand *adl_devices(const void *p, int *n)
{
	const struct wddm_adl *s = p;
	*n = s->n;
	return s->cand;
}

static void adl_fill(void *p, int i, struct gtm_device *dev)
{
	struct wddm_adl *s = p;
	struct adl_gpu *g = &s->gpu[i];
	struct gtm_adl_pmlog_output out;

	snprintf(dev->pci_bus_id, sizeof dev->pci_bus_id, "0000:%02x:%02x.%x", (unsigned)s->cand[i].bus,
		 (unsigned)s->cand[i].dev, (unsigned)s->cand[i].fn);
	if (!g->logging) {
		wddm_adl_od5_read(&s->fn.od5, s->ctx, s->cand[i].tag, dev);
		return;
	}
	memset(&out, 0, sizeof out);
	if (s->fn.shm_read(s->ctx, s->cand[i].tag, g->n_sensors, g->sensors, &g->shm, &out) == GTM_ADL_OK)
		wddm_adl_apply_sensors(out.sensors, WDDM_ADL_PMLOG_MAX_SENSORS, dev);
}

static void adl_note(const void *p, int i, char *out, size_t cap)
{
	const struct wddm_adl *s = p;
	if (s->gpu[i].logging)
		out[0] = '\0';
	else
		snprintf(out, cap, "%s", wddm_adl_od5_present(&s->fn.od5) ? "no Overdrive8 PMLog on this GPU: Overdrive5 readings"
									  : "neither Overdrive8 PMLog nor Overdrive5 on this GPU");
}

static void adl_describe(const void *p, char *out, size_t cap)
{
	const struct wddm_adl *s = p;
	snprintf(out, cap, "%d GPU%s, %d with PMLog sensors (%s)", s->n, s->n == 1 ? "" : "s", s->n_logging, s->path);
}

static void adl_close(void *p)
{
	struct wddm_adl *s = p;
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		struct adl_gpu *g = &s->gpu[i];
		if (g->logging) {
			s->fn.shm_stop(s->ctx, s->cand[i].tag, &g->kmt);
			s->fn.dev_destroy(s->ctx, g->kmt);
		}
		free(g->sensors);
	}
	if (s->ctx)
		s->fn.destroy(s->ctx);
	FreeLibrary(s->dll);
	free(s);
}

const struct wddm_provider wddm_adl_provider = {
	.name = "adl",
	.vendor_id = 0x1002,
	.open = adl_open,
	.devices = adl_devices,
	.fill = adl_fill,
	.note = adl_note,
	.describe = adl_describe,
	.close = adl_close,
};
