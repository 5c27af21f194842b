/* Loading libnvidia-ml with dlopen and resolving the entry points gputaskman
 * uses through one table. Newer versioned entry points are preferred; where
 * one is absent the older one is used; a reading whose entry point is absent
 * is unavailable. */
#ifndef GTM_NVML_LIB_H
#define GTM_NVML_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include "sources/nvml_abi.h"

/* Process-list entry points, newest first: _v3 and _v2 fill nvmlProcessInfo_t
 * (24 bytes), the original fills nvmlProcessInfo_v1_t (16 bytes). */
enum { NVML_PROCS_V3 = 0, NVML_PROCS_V2, NVML_PROCS_V1, NVML_PROCS_N };

struct nvml_lib {
	void *dl;
	char soname[128];      /* Linux: the soname; Windows: nvml.dll's full path */
	nvml_init_fn init_v2, init;
	nvml_shutdown_fn shutdown;
	nvml_count_fn count_v2, count;
	nvml_handle_fn handle_v2, handle;
	nvml_sys_str_fn driver_version;
	nvml_sys_int_fn cuda_version_v2, cuda_version;
	nvml_dev_str_fn name, uuid;
	nvml_pci_fn pci_v3, pci_v2;
	nvml_mem_v2_fn mem_v2;
	nvml_mem_fn mem;
	nvml_util_fn util;
	nvml_temp_fn temp;
	nvml_dev_uint_fn power, power_limit, fan, pcie_gen, pcie_width;
	nvml_clock_fn clock, max_clock;
	nvml_pcie_tput_fn pcie_tput;
	nvml_dev_uint2_fn enc, dec;
	nvml_procs_fn compute[NVML_PROCS_N], graphics[NVML_PROCS_N];
	nvml_proc_util_fn proc_util;
	nvml_driver_model_fn driver_model_v2, driver_model; /* Windows: WDDM, TCC, MCDM */
	nvml_dev_u64_fn energy;                   /* nvmlDeviceGetTotalEnergyConsumption (mJ) */
	nvml_dev_u64_fn event_reasons, throttle_reasons; /* ClocksEventReasons (12.x), ClocksThrottleReasons */
	nvml_dev_uint_fn pcie_replay;
	nvml_ecc_fn ecc_total;
};

/* dlopen + resolve + nvmlInit (Linux: nvml_load.c). Returns 0, or -1 with a one-line reason in msg
 * (the library is then closed). */
int nvml_lib_open(struct nvml_lib *lib, char *msg, size_t msg_len);
/* Resolves and nvmlInit on a library already loaded (dl, from dlopen or
 * LoadLibrary; name for messages): what nvml_lib_open does after finding it.
 * Returns 0, or -2 with a reason in msg (the library is then closed). */
int nvml_lib_open_loaded(struct nvml_lib *lib, void *dl, const char *name, char *msg, size_t msg_len);
/* The names it tries, in order, NULL-terminated (--version looks for them too). */
extern const char *const nvml_lib_sonames[];
/* The driver's version and CUDA's ("12.4") into driver and cuda; each left
 * as it is when the driver does not say. */
void nvml_lib_versions(const struct nvml_lib *lib, char *driver, size_t driver_cap, char *cuda, size_t cuda_cap);
/* nvmlShutdown + dlclose. */
void nvml_lib_close(struct nvml_lib *lib);

/* "GPU is lost", "not supported", ... for a return code. */
const char *nvml_error_name(nvmlReturn_t r);
/* A reading that the driver does not offer: unavailable, not an error. */
bool nvml_is_unsupported(nvmlReturn_t r);

#endif
