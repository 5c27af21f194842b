#include "sources/nvml_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

_Static_assert(sizeof(void *) == sizeof(nvml_init_fn), "function pointers are stored through void *");

/* Which entry points a source cannot start without: one of each group must resolve. */
enum sym_need { OPTIONAL = 0, NEED_INIT, NEED_SHUTDOWN, NEED_COUNT, NEED_HANDLE };

struct sym {
	const char *name;
	size_t off;
	enum sym_need need;
};

#define SYM(n, field, need) {n, offsetof(struct nvml_lib, field), need}

/* Newest first within a group; the NVML reference keeps the unversioned
 * names exported for older callers. */
static const struct sym syms[] = {
	SYM("nvmlInit_v2", init_v2, NEED_INIT),
	SYM("nvmlInit", init, NEED_INIT),
	SYM("nvmlShutdown", shutdown, NEED_SHUTDOWN),
	SYM("nvmlDeviceGetCount_v2", count_v2, NEED_COUNT),
	SYM("nvmlDeviceGetCount", count, NEED_COUNT),
	SYM("nvmlDeviceGetHandleByIndex_v2", handle_v2, NEED_HANDLE),
	SYM("nvmlDeviceGetHandleByIndex", handle, NEED_HANDLE),
	SYM("nvmlSystemGetDriverVersion", driver_version, OPTIONAL),
	SYM("nvmlSystemGetCudaDriverVersion_v2", cuda_version_v2, OPTIONAL),
	SYM("nvmlSystemGetCudaDriverVersion", cuda_version, OPTIONAL),
	SYM("nvmlDeviceGetName", name, OPTIONAL),
	SYM("nvmlDeviceGetUUID", uuid, OPTIONAL),
	SYM("nvmlDeviceGetPciInfo_v3", pci_v3, OPTIONAL),
	SYM("nvmlDeviceGetPciInfo_v2", pci_v2, OPTIONAL),
	SYM("nvmlDeviceGetMemoryInfo_v2", mem_v2, OPTIONAL),
	SYM("nvmlDeviceGetMemoryInfo", mem, OPTIONAL),
	SYM("nvmlDeviceGetUtilizationRates", util, OPTIONAL),
	SYM("nvmlDeviceGetTemperature", temp, OPTIONAL),
	SYM("nvmlDeviceGetPowerUsage", power, OPTIONAL),
	SYM("nvmlDeviceGetEnforcedPowerLimit", power_limit, OPTIONAL),
	SYM("nvmlDeviceGetFanSpeed", fan, OPTIONAL),
	SYM("nvmlDeviceGetCurrPcieLinkGeneration", pcie_gen, OPTIONAL),
	SYM("nvmlDeviceGetCurrPcieLinkWidth", pcie_width, OPTIONAL),
	SYM("nvmlDeviceGetClockInfo", clock, OPTIONAL),
	SYM("nvmlDeviceGetMaxClockInfo", max_clock, OPTIONAL),
	SYM("nvmlDeviceGetPcieThroughput", pcie_tput, OPTIONAL),
	SYM("nvmlDeviceGetEncoderUtilization", enc, OPTIONAL),
	SYM("nvmlDeviceGetDecoderUtilization", dec, OPTIONAL),
	SYM("nvmlDeviceGetComputeRunningProcesses_v3", compute[NVML_PROCS_V3], OPTIONAL),
	SYM("nvmlDeviceGetComputeRunningProcesses_v2", compute[NVML_PROCS_V2], OPTIONAL),
	SYM("nvmlDeviceGetComputeRunningProcesses", compute[NVML_PROCS_V1], OPTIONAL),
	SYM("nvmlDeviceGetGraphicsRunningProcesses_v3", graphics[NVML_PROCS_V3], OPTIONAL),
	SYM("nvmlDeviceGetGraphicsRunningProcesses_v2", graphics[NVML_PROCS_V2], OPTIONAL),
	SYM("nvmlDeviceGetGraphicsRunningProcesses", graphics[NVML_PROCS_V1], OPTIONAL),
	SYM("nvmlDeviceGetProcessUtilization", proc_util, OPTIONAL),
	SYM("nvmlDeviceGetDriverModel_v2", driver_model_v2, OPTIONAL),
	SYM("nvmlDeviceGetDriverModel", driver_model, OPTIONAL),
	SYM("nvmlDeviceGetTotalEnergyConsumption", energy, OPTIONAL),
	SYM("nvmlDeviceGetCurrentClocksEventReasons", event_reasons, OPTIONAL),
	SYM("nvmlDeviceGetCurrentClocksThrottleReasons", throttle_reasons, OPTIONAL),
	SYM("nvmlDeviceGetPcieReplayCounter", pcie_replay, OPTIONAL),
	SYM("nvmlDeviceGetTotalEccErrors", ecc_total, OPTIONAL),
};

static const char *const need_what[] = {
	[NEED_INIT] = "nvmlInit", [NEED_SHUTDOWN] = "nvmlShutdown",
	[NEED_COUNT] = "nvmlDeviceGetCount", [NEED_HANDLE] = "nvmlDeviceGetHandleByIndex",
};

/* Resolves every entry point; returns the first required group with none, or OPTIONAL. */
static enum sym_need resolve(struct nvml_lib *lib)
{
	bool have[ARRAY_LEN(need_what)] = {false};

	for (size_t i = 0; i < ARRAY_LEN(syms); i++) {
		void *p = dlsym(lib->dl, syms[i].name);
		memcpy((char *)lib + syms[i].off, &p, sizeof p);
		if (p)
			have[syms[i].need] = true;
	}
	for (size_t n = NEED_INIT; n < ARRAY_LEN(need_what); n++)
		if (!have[n])
			return (enum sym_need)n;
	return OPTIONAL;
}

int nvml_lib_open_loaded(struct nvml_lib *lib, void *dl, const char *name, char *msg, size_t msg_len)
{
	memset(lib, 0, sizeof *lib);
	lib->dl = dl;
	str_copy(lib->soname, name, sizeof lib->soname);
	enum sym_need missing = resolve(lib);
	if (missing != OPTIONAL) {
		snprintf(msg, msg_len, "%s lacks %s: not a usable NVML library", lib->soname, need_what[missing]);
		dlclose(lib->dl);
		memset(lib, 0, sizeof *lib);
		return -2;
	}
	nvmlReturn_t r = lib->init_v2 ? lib->init_v2() : NVML_ERROR_FUNCTION_NOT_FOUND;
	if (r == NVML_ERROR_FUNCTION_NOT_FOUND && lib->init)
		r = lib->init();
	if (r != NVML_SUCCESS) {
		snprintf(msg, msg_len, "NVML could not start: %s (nvmlInit returned %d)", nvml_error_name(r), (int)r);
		dlclose(lib->dl);
		memset(lib, 0, sizeof *lib);
		return -2;
	}
	return 0;
}

/* nvmlSystemGetCudaDriverVersion: 1000 * major + 10 * minor (12040 → "12.4"). */
void nvml_lib_versions(const struct nvml_lib *lib, char *driver, size_t driver_cap, char *cuda, size_t cuda_cap)
{
	char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	int v = 0;

	if (lib->driver_version && lib->driver_version(buf, sizeof buf) == NVML_SUCCESS) {
		buf[sizeof buf - 1] = '\0';
		str_copy(driver, buf, driver_cap);
	}
	nvml_sys_int_fn fn = lib->cuda_version_v2 ? lib->cuda_version_v2 : lib->cuda_version;
	if (fn && fn(&v) == NVML_SUCCESS && v > 0)
		snprintf(cuda, cuda_cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

void nvml_lib_close(struct nvml_lib *lib)
{
	if (!lib->dl)
		return;
	lib->shutdown();
	dlclose(lib->dl);
	memset(lib, 0, sizeof *lib);
}

/* Wording after the NVML reference's descriptions of nvmlReturn_t. */
static const char *const error_names[] = {
	[NVML_SUCCESS] = "success",
	[NVML_ERROR_UNINITIALIZED] = "NVML not initialized",
	[NVML_ERROR_INVALID_ARGUMENT] = "invalid argument",
	[NVML_ERROR_NOT_SUPPORTED] = "not supported",
	[NVML_ERROR_NO_PERMISSION] = "no permission",
	[NVML_ERROR_ALREADY_INITIALIZED] = "already initialized",
	[NVML_ERROR_NOT_FOUND] = "not found",
	[NVML_ERROR_INSUFFICIENT_SIZE] = "insufficient size",
	[NVML_ERROR_INSUFFICIENT_POWER] = "insufficient power",
	[NVML_ERROR_DRIVER_NOT_LOADED] = "NVIDIA driver not loaded",
	[NVML_ERROR_TIMEOUT] = "timeout",
	[NVML_ERROR_IRQ_ISSUE] = "interrupt issue",
	[NVML_ERROR_LIBRARY_NOT_FOUND] = "library not found",
	[NVML_ERROR_FUNCTION_NOT_FOUND] = "function not found",
	[NVML_ERROR_CORRUPTED_INFOROM] = "corrupted infoROM",
	[NVML_ERROR_GPU_IS_LOST] = "GPU is lost",
	[NVML_ERROR_RESET_REQUIRED] = "GPU reset required",
	[NVML_ERROR_OPERATING_SYSTEM] = "operating system error",
	[NVML_ERROR_LIB_RM_VERSION_MISMATCH] = "NVML and driver versions differ",
	[NVML_ERROR_IN_USE] = "in use",
	[NVML_ERROR_MEMORY] = "out of memory",
	[NVML_ERROR_NO_DATA] = "no data",
	[NVML_ERROR_VGPU_ECC_NOT_SUPPORTED] = "vGPU ECC not supported",
	[NVML_ERROR_INSUFFICIENT_RESOURCES] = "insufficient resources",
	[NVML_ERROR_FREQ_NOT_SUPPORTED] = "frequency not supported",
	[NVML_ERROR_ARGUMENT_VERSION_MISMATCH] = "struct version mismatch",
	[NVML_ERROR_DEPRECATED] = "deprecated",
	[NVML_ERROR_NOT_READY] = "not ready",
	[NVML_ERROR_GPU_NOT_FOUND] = "GPU not found",
	[NVML_ERROR_INVALID_STATE] = "invalid state",
};

const char *nvml_error_name(nvmlReturn_t r)
{
	if ((unsigned)r < ARRAY_LEN(error_names) && error_names[r])
		return error_names[r];
	return "unknown error";
}

bool nvml_is_unsupported(nvmlReturn_t r)
{
	switch (r) {
	case NVML_ERROR_NOT_SUPPORTED:
	case NVML_ERROR_FUNCTION_NOT_FOUND:
	case NVML_ERROR_NO_PERMISSION:
	case NVML_ERROR_NOT_FOUND:
	case NVML_ERROR_NO_DATA:
	case NVML_ERROR_INVALID_ARGUMENT:
	case NVML_ERROR_DEPRECATED:
	case NVML_ERROR_NOT_READY:
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
		return true;
	default:
		return false;
	}
}
