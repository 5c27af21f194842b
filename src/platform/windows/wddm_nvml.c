/* NVIDIA telemetry on Windows: nvml.dll, loaded by full path from System32
 * (DCH drivers) and then %ProgramW6432%\NVIDIA Corporation\NVSMI (standard
 * drivers), never from the current folder or PATH (NVML API Reference,
 * introduction). The entry-point table and the device readings are the
 * Linux source's (sources/nvml_lib.c, nvml_device.c); what differs is where
 * the library comes from and what is kept: DXGI names the adapter and PDH
 * measures its memory, so NVML's name and memory are not copied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/util.h"
#include "sources/nvml_internal.h"
#include "sources/nvml_lib.h"
#include "wddm_provider.h"
#include "wddm_sysdll.h"

struct wddm_nvml {
	struct nvml_lib lib;
	char driver[48], cuda[16];
	int n;
	struct wddm_pci_cand cand[WDDM_MAX_ADAPTERS];
	nvmlDevice_t h[WDDM_MAX_ADAPTERS];
};

/* System32 first, then NVSMI: the module, its path in path; NULL with the
 * places tried in msg. */
static HMODULE load_nvml(char *path, size_t path_cap, char *msg, size_t cap)
{
	wchar_t dir[MAX_PATH];
	char tried[2][MAX_PATH * 3] = {"System32 (unknown)", "%ProgramW6432% (unset)"};
	HMODULE h = NULL;

	if (wddm_system_dir(dir, MAX_PATH) == 0)
		h = wddm_dll_load(dir, L"nvml.dll", tried[0], sizeof tried[0]);
	DWORD n = h ? 0 : GetEnvironmentVariableW(L"ProgramW6432", dir, MAX_PATH - 40);
	if (n > 0 && n < MAX_PATH - 40) {
		wcscat(dir, L"\\NVIDIA Corporation\\NVSMI");
		h = wddm_dll_load(dir, L"nvml.dll", tried[1], sizeof tried[1]);
	}
	if (h)
		str_copy(path, tried[n > 0], path_cap);
	else
		snprintf(msg, cap, "no NVIDIA driver: neither %s nor %s loads", tried[0], tried[1]);
	return h;
}

/* nvmlPciInfo_t gives domain, bus and device; the function is in busId
 * ("00000000:01:00.0"), 0 when it does not parse. */
static bool device_location(const struct nvml_lib *lib, nvmlDevice_t h, struct wddm_pci_cand *c)
{
	nvmlPciInfo_t pci;
	nvml_pci_fn fn = lib->pci_v3 ? lib->pci_v3 : lib->pci_v2;
	unsigned dom, bus, dev, func = 0;

	memset(&pci, 0, sizeof pci);
	if (!fn || fn(h, &pci) != NVML_SUCCESS)
		return false;
	pci.busId[sizeof pci.busId - 1] = '\0';
	if (sscanf(pci.busId, "%x:%x:%x.%x", &dom, &bus, &dev, &func) != 4)
		func = 0;
	*c = (struct wddm_pci_cand){.domain = (int)pci.domain, .bus = (int)pci.bus, .dev = (int)pci.device,
				    .fn = (int)func, .has_ids = true};
	wddm_pci_ids_from_nvml(pci.pciDeviceId, &c->vendor_id, &c->device_id);
	return true;
}

static void list_devices(struct wddm_nvml *s)
{
	unsigned count = 0;
	nvml_count_fn count_fn = s->lib.count_v2 ? s->lib.count_v2 : s->lib.count;
	nvml_handle_fn handle_fn = s->lib.handle_v2 ? s->lib.handle_v2 : s->lib.handle;

	if (count_fn(&count) != NVML_SUCCESS)
		return;
	for (unsigned i = 0; i < count && s->n < WDDM_MAX_ADAPTERS; i++) {
		nvmlDevice_t h;
		if (handle_fn(i, &h) != NVML_SUCCESS || !device_location(&s->lib, h, &s->cand[s->n]))
			continue; /* a device without a location can never be joined */
		s->cand[s->n].tag = (int)i;
		s->h[s->n++] = h;
	}
}

static void *nvml_win_open(char *msg, size_t cap)
{
	char path[MAX_PATH * 3];
	HMODULE dll = load_nvml(path, sizeof path, msg, cap);
	if (!dll)
		return NULL;
	struct wddm_nvml *s = xcalloc(1, sizeof *s);
	if (nvml_lib_open_loaded(&s->lib, (void *)dll, path, msg, cap) != 0) {
		free(s);
		return NULL;
	}
	nvml_lib_versions(&s->lib, s->driver, sizeof s->driver, s->cuda, sizeof s->cuda);
	list_devices(s);
	return s;
}

static const struct wddm_pci_cand *nvml_win_devices(const void *p, int *n)
{
	const struct wddm_nvml *s = p;
	*n = s->n;
	return s->cand;
}

/* nvmlDriverModel_t → the name Windows and nvidia-smi use. */
static const char *const driver_models[] = {
	[NVML_DRIVER_WDDM] = "WDDM", [NVML_DRIVER_WDM] = "TCC", [NVML_DRIVER_MCDM] = "MCDM",
};

static void read_driver_model(const struct nvml_lib *lib, nvmlDevice_t h, struct gtm_device *dev)
{
	nvml_driver_model_fn fn = lib->driver_model_v2 ? lib->driver_model_v2 : lib->driver_model;
	nvmlDriverModel_t cur, pending;
	if (fn && fn(h, &cur, &pending) == NVML_SUCCESS && (unsigned)cur < ARRAY_LEN(driver_models))
		str_copy(dev->driver, driver_models[cur], sizeof dev->driver);
}

/* The readings taken from NVML's view of the device; name and memory stay DXGI's and PDH's. */
static const size_t kept_f64[] = {
	offsetof(struct gtm_device, util_gpu_pct), offsetof(struct gtm_device, util_mem_pct),
	offsetof(struct gtm_device, temp_c), offsetof(struct gtm_device, power_w),
	offsetof(struct gtm_device, power_limit_w), offsetof(struct gtm_device, fan_pct),
	offsetof(struct gtm_device, clock_sm_mhz), offsetof(struct gtm_device, clock_mem_mhz),
	offsetof(struct gtm_device, clock_video_mhz), offsetof(struct gtm_device, clock_sm_max_mhz),
	offsetof(struct gtm_device, clock_mem_max_mhz), offsetof(struct gtm_device, pcie_tx_bps),
	offsetof(struct gtm_device, pcie_rx_bps), offsetof(struct gtm_device, pcie_gen),
	offsetof(struct gtm_device, pcie_width), offsetof(struct gtm_device, enc_pct),
	offsetof(struct gtm_device, dec_pct),
};

static void nvml_win_fill(void *p, int i, struct gtm_device *dev)
{
	struct wddm_nvml *s = p;
	struct gtm_device *nv = xcalloc(1, sizeof *nv);
	struct nvml_fault fault = {NVML_SUCCESS, NULL};

	nvml_device_blank(nv);
	nvml_read_device(&s->lib, s->h[i], nv, &fault);
	for (size_t k = 0; k < ARRAY_LEN(kept_f64); k++)
		memcpy((char *)dev + kept_f64[k], (const char *)nv + kept_f64[k], sizeof(gtm_f64));
	if (nv->uuid[0])
		str_copy(dev->uuid, nv->uuid, sizeof dev->uuid);
	if (nv->pci_bus_id[0])
		str_copy(dev->pci_bus_id, nv->pci_bus_id, sizeof dev->pci_bus_id);
	str_copy(dev->driver_version, s->driver, sizeof dev->driver_version);
	str_copy(dev->cuda_version, s->cuda, sizeof dev->cuda_version);
	read_driver_model(&s->lib, s->h[i], dev);
	free(nv);
}

static void nvml_win_describe(const void *p, char *out, size_t cap)
{
	const struct wddm_nvml *s = p;
	snprintf(out, cap, "driver %s, CUDA %s, %d device%s with a PCI location (%s)", s->driver[0] ? s->driver : "N/A",
		 s->cuda[0] ? s->cuda : "N/A", s->n, s->n == 1 ? "" : "s", s->lib.soname);
}

static void nvml_win_close(void *p)
{
	struct wddm_nvml *s = p;
	if (!s)
		return;
	nvml_lib_close(&s->lib);
	free(s);
}

const struct wddm_provider wddm_nvml_provider = {
	.name = "nvml",
	.vendor_id = 0x10DE,
	.open = nvml_win_open,
	.devices = nvml_win_devices,
	.fill = nvml_win_fill,
	.describe = nvml_win_describe,
	.close = nvml_win_close,
};
