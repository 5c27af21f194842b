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
	char soname[32];
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
};

/* dlopen + resolve + nvmlInit. Returns 0, or -1 with a one-line reason in msg
 * (the library is then closed). */
int nvml_lib_open(struct nvml_lib *lib, char *msg, size_t msg_len);
/* The names it tries, in order, NULL-terminated (--version looks for them too). */
extern const char *const nvml_lib_sonames[];
/* nvmlShutdown + dlclose. */
void nvml_lib_close(struct nvml_lib *lib);

/* "GPU is lost", "not supported", ... for a return code. */
const char *nvml_error_name(nvmlReturn_t r);
/* A reading that the driver does not offer: unavailable, not an error. */
bool nvml_is_unsupported(nvmlReturn_t r);

#endif
