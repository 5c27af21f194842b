/* Our own declarations of the parts of NVIDIA's NVML ABI that gputaskman uses,
 * written from the NVML API Reference (docs.nvidia.com/deploy/nvml-api, R590):
 * no NVIDIA header or library is needed to build. Layouts are exact: the
 * driver writes into these structs. The fake libnvidia-ml.so.1 in tests/fakes
 * includes this header too, so both sides share one definition. */
#ifndef GTM_NVML_ABI_H
#define GTM_NVML_ABI_H

#include <limits.h>

typedef struct nvmlDevice_st *nvmlDevice_t; /* opaque handle */

/* nvmlReturn_t: "Return values for NVML API calls" (Return Values group). */
typedef enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_ALREADY_INITIALIZED = 5,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_INSUFFICIENT_POWER = 8,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_IRQ_ISSUE = 11,
	NVML_ERROR_LIBRARY_NOT_FOUND = 12,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_CORRUPTED_INFOROM = 14,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_RESET_REQUIRED = 16,
	NVML_ERROR_OPERATING_SYSTEM = 17,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_IN_USE = 19,
	NVML_ERROR_MEMORY = 20,
	NVML_ERROR_NO_DATA = 21,
	NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
	NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
	NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_DEPRECATED = 26,
	NVML_ERROR_NOT_READY = 27,
	NVML_ERROR_GPU_NOT_FOUND = 28,
	NVML_ERROR_INVALID_STATE = 29,
	NVML_ERROR_UNKNOWN = 999,
} nvmlReturn_t;

/* "usedGpuMemory ... NVML_VALUE_NOT_AVAILABLE" (nvmlProcessInfo_t): (unsigned long long)-1. */
#define NVML_VALUE_NOT_AVAILABLE ULLONG_MAX

/* Buffer sizes from the Constants group. */
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* nvmlMemory_t (v1): used includes reserved. */
typedef struct {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;

/* nvmlMemory_v2_t: version must be nvmlMemory_v2. */
typedef struct {
	unsigned int version;
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;

/* NVML_STRUCT_VERSION(data, ver) = sizeof(struct) | ver << 24. */
#define NVML_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((unsigned int)(ver) << 24U)))
#define nvmlMemory_v2 NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2)

/* nvmlProcessInfo_v1_t: filled by the original Get*RunningProcesses (16 bytes). */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

/* nvmlProcessInfo_v2_t / nvmlProcessInfo_t: filled by the _v2 and _v3 entry
 * points (24 bytes); the instance ids are set under MIG. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;

/* nvmlProcessUtilizationSample_t: timeStamp is CPU time in microseconds. */
typedef struct {
	unsigned int pid;
	unsigned long long timeStamp;
	unsigned int smUtil;
	unsigned int memUtil;
	unsigned int encUtil;
	unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

/* nvmlUtilization_t: percent of the last sample period. */
typedef struct {
	unsigned int gpu;
	unsigned int memory;
} nvmlUtilization_t;

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v2/_v3. */
typedef struct {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;
typedef enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 } nvmlClockType_t;
typedef enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 } nvmlPcieUtilCounter_t;

/* nvmlDriverModel_t: the Windows driver model (nvml.h; NOT_SUPPORTED off
 * Windows). WDM is the deprecated TCC model. */
typedef enum { NVML_DRIVER_WDDM = 0, NVML_DRIVER_WDM = 1, NVML_DRIVER_MCDM = 2 } nvmlDriverModel_t;

/* nvmlMemoryErrorType_t and nvmlEccCounterType_t (nvml.h): volatile counts
 * since the driver loaded, aggregate ones over the board's life. */
typedef enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 } nvmlMemoryErrorType_t;
typedef enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 } nvmlEccCounterType_t;

/* Entry-point signatures (the names are the exported symbols). */
typedef nvmlReturn_t (*nvml_init_fn)(void);
typedef nvmlReturn_t (*nvml_shutdown_fn)(void);
typedef nvmlReturn_t (*nvml_count_fn)(unsigned int *count);
typedef nvmlReturn_t (*nvml_handle_fn)(unsigned int index, nvmlDevice_t *dev);
typedef nvmlReturn_t (*nvml_sys_str_fn)(char *buf, unsigned int len);
typedef nvmlReturn_t (*nvml_sys_int_fn)(int *v);
typedef nvmlReturn_t (*nvml_dev_str_fn)(nvmlDevice_t dev, char *buf, unsigned int len);
typedef nvmlReturn_t (*nvml_dev_uint_fn)(nvmlDevice_t dev, unsigned int *v);
typedef nvmlReturn_t (*nvml_dev_uint2_fn)(nvmlDevice_t dev, unsigned int *v, unsigned int *period_us);
typedef nvmlReturn_t (*nvml_pci_fn)(nvmlDevice_t dev, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvml_mem_fn)(nvmlDevice_t dev, nvmlMemory_t *m);
typedef nvmlReturn_t (*nvml_mem_v2_fn)(nvmlDevice_t dev, nvmlMemory_v2_t *m);
typedef nvmlReturn_t (*nvml_util_fn)(nvmlDevice_t dev, nvmlUtilization_t *u);
typedef nvmlReturn_t (*nvml_temp_fn)(nvmlDevice_t dev, nvmlTemperatureSensors_t s, unsigned int *t);
typedef nvmlReturn_t (*nvml_clock_fn)(nvmlDevice_t dev, nvmlClockType_t type, unsigned int *mhz);
typedef nvmlReturn_t (*nvml_pcie_tput_fn)(nvmlDevice_t dev, nvmlPcieUtilCounter_t c, unsigned int *kbps);
typedef nvmlReturn_t (*nvml_dev_u64_fn)(nvmlDevice_t dev, unsigned long long *v);
typedef nvmlReturn_t (*nvml_ecc_fn)(nvmlDevice_t dev, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
				    unsigned long long *count);
typedef nvmlReturn_t (*nvml_driver_model_fn)(nvmlDevice_t dev, nvmlDriverModel_t *current, nvmlDriverModel_t *pending);
/* infos points at nvmlProcessInfo_v1_t (original) or nvmlProcessInfo_t (_v2, _v3). */
typedef nvmlReturn_t (*nvml_procs_fn)(nvmlDevice_t dev, unsigned int *count, void *infos);
typedef nvmlReturn_t (*nvml_proc_util_fn)(nvmlDevice_t dev, nvmlProcessUtilizationSample_t *s,
					  unsigned int *count, unsigned long long last_seen_us);

#endif
