/* The fake NVML's scenario: devices, processes and faults read from a small
 * line-based file (format in tests/fakes/README.md). */
#ifndef FAKE_NVML_SCENARIO_H
#define FAKE_NVML_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#define FAKE_MAX_DEVICES 64

/* Numeric device keys; an absent key makes its entry point NOT_SUPPORTED. */
enum fake_key {
	K_MEM_TOTAL, K_MEM_USED, K_MEM_FREE, K_MEM_RESERVED,
	K_UTIL_GPU, K_UTIL_MEM, K_TEMP, K_POWER_MW, K_POWER_LIMIT_MW, K_FAN,
	K_CLOCK_SM, K_CLOCK_MEM, K_CLOCK_VIDEO, K_CLOCK_SM_MAX, K_CLOCK_MEM_MAX,
	K_PCIE_TX_KBS, K_PCIE_RX_KBS, K_PCIE_GEN, K_PCIE_WIDTH, K_ENC, K_DEC,
	K_PCI_DEVICE_ID, K_DRIVER_MODEL,
	K_ENERGY_MJ, K_THROTTLE, K_PCIE_REPLAY, K_ECC_CORRECTED, K_ECC_UNCORRECTED,
	K_N
};

enum { FAKE_COMPUTE = 1, FAKE_GRAPHICS = 2 };

struct fake_device {
	char name[96], uuid[96], bus[32];
	bool has[K_N];
	unsigned long long v[K_N];
	bool fail;
};

struct fake_process {
	unsigned dev, pid;
	int lists;               /* FAKE_COMPUTE | FAKE_GRAPHICS */
	bool mem_na;             /* usedGpuMemory = NVML_VALUE_NOT_AVAILABLE */
	unsigned long long mem;
	bool has_load;
	unsigned sm, mem_util, enc, dec;
	bool late;               /* absent from the size query, present when filled */
	unsigned gi, ci;         /* MIG instance ids; 0xFFFFFFFF (NVML's "not MIG") by default */
};

struct fake_scenario {
	char driver[80];
	int cuda;                /* 1000 * major + 10 * minor; 0 = not supported */
	int api;                 /* newest process-list entry point: 1, 2 or 3 */
	bool fail_init, fail_all;
	char (*missing)[64];     /* entry points that answer FUNCTION_NOT_FOUND */
	size_t n_missing;
	struct fake_device devs[FAKE_MAX_DEVICES];
	size_t n_devs;
	struct fake_process *procs;
	size_t n_procs, cap_procs;
};

/* Parses a scenario text; unknown words are reported on stderr and skipped. */
void fake_scenario_parse(struct fake_scenario *s, const char *text);
void fake_scenario_clear(struct fake_scenario *s);
bool fake_scenario_missing(const struct fake_scenario *s, const char *entry);

#endif
