/* A test double of libnvidia-ml.so.1: exports the NVML entry points that
 * gputaskman resolves, answering from a scenario file named by the
 * environment variable GTM_FAKE_NVML_SCENARIO (format: tests/fakes/README.md).
 * The file is re-read when its identity, size or mtime changes, checked at
 * nvmlInit and at every nvmlDeviceGetCount (once per refresh), so a test can
 * change the GPUs' state while gputaskman runs. With GTM_FAKE_NVML_STEP_REFRESHES=N
 * the state steps by refreshes instead of by the clock: the file read is
 * "SCENARIO.K", K the number of nvmlDeviceGetCount calls so far divided by N
 * (the highest K whose file exists once the steps run out), so a recording
 * of a story holds every step however fast or slow the machine is.
 *
 * Build variants (compile definitions):
 *   FAKE_NVML_OLD        an old driver: no _v2/_v3 entry points at all
 *   FAKE_NVML_NO_HANDLE  lacks nvmlDeviceGetHandleByIndex*: unusable library */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "scenario.h"
#include "sources/nvml_abi.h"

/* Built for Linux (libnvidia-ml.so.1, hidden by default) and, by the
 * Windows test suite, as nvml.dll (tests/windows/doubles). */
#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#define MTIME_NS(st) ((long long)(st).st_mtime * 1000000000ll)
#else
#define EXPORT __attribute__((visibility("default")))
#define MTIME_NS(st) ((long long)(st).st_mtim.tv_sec * 1000000000ll + (st).st_mtim.tv_nsec)
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_scenario sc;
static bool inited;
static struct stat loaded_st;
static char handles[FAKE_MAX_DEVICES]; /* a handle is the address of one of these */
static unsigned long counts;            /* nvmlDeviceGetCount calls: the refreshes so far */

/* The scenario file to read now: GTM_FAKE_NVML_SCENARIO, or with
 * GTM_FAKE_NVML_STEP_REFRESHES its step "PATH.K" (see the head of this file). */
static const char *scenario_path(char *buf, size_t n)
{
	const char *path = getenv("GTM_FAKE_NVML_SCENARIO"), *per = getenv("GTM_FAKE_NVML_STEP_REFRESHES");
	long step_len = per ? strtol(per, NULL, 10) : 0;
	struct stat st;

	if (!path || step_len <= 0)
		return path;
	for (unsigned long k = counts / (unsigned long)step_len;; k--) {
		snprintf(buf, n, "%s.%lu", path, k);
		if (stat(buf, &st) == 0 || k == 0)
			return buf;
	}
}

static void reload_if_changed(void)
{
	char step_buf[4096];
	const char *path = scenario_path(step_buf, sizeof step_buf);
	struct stat st;

	if (!path || stat(path, &st) != 0) {
		fake_scenario_clear(&sc);
		memset(&loaded_st, 0, sizeof loaded_st);
		sc.fail_init = true; /* no scenario: behave as a machine without a driver */
		return;
	}
	if (st.st_ino == loaded_st.st_ino && st.st_dev == loaded_st.st_dev && st.st_size == loaded_st.st_size &&
	    MTIME_NS(st) == MTIME_NS(loaded_st))
		return;
	FILE *f = fopen(path, "rb");
	char *text = calloc(1, (size_t)st.st_size + 1);
	if (!f || !text || fread(text, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		if (f)
			fclose(f);
		free(text);
		return; /* mid-rewrite: keep the previous scenario */
	}
	fclose(f);
	fake_scenario_parse(&sc, text);
	free(text);
	loaded_st = st;
}

/* Common checks of every entry point; called with the lock held. */
static nvmlReturn_t enter(const char *fn)
{
	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	if (fake_scenario_missing(&sc, fn))
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if (sc.fail_all)
		return NVML_ERROR_GPU_IS_LOST;
	return NVML_SUCCESS;
}

static nvmlReturn_t enter_dev(const char *fn, nvmlDevice_t h, struct fake_device **d, unsigned *index)
{
	nvmlReturn_t r = enter(fn);
	if (r != NVML_SUCCESS)
		return r;
	const char *p = (const char *)h;
	if (p < handles || p >= handles + sc.n_devs)
		return NVML_ERROR_INVALID_ARGUMENT;
	*index = (unsigned)(p - handles);
	*d = &sc.devs[*index];
	return (*d)->fail ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

#define LOCKED(expr)                                                                                                   \
	do {                                                                                                           \
		pthread_mutex_lock(&lock);                                                                             \
		nvmlReturn_t locked_r_ = (expr);                                                                       \
		pthread_mutex_unlock(&lock);                                                                           \
		return locked_r_;                                                                                      \
	} while (0)

static nvmlReturn_t do_init(const char *fn)
{
	nvmlReturn_t r = NVML_SUCCESS;

	reload_if_changed();
	if (fake_scenario_missing(&sc, fn))
		r = NVML_ERROR_FUNCTION_NOT_FOUND;
	else if (sc.fail_init)
		r = NVML_ERROR_DRIVER_NOT_LOADED;
	if (r != NVML_SUCCESS) {
		/* A caller may dlclose us now without nvmlShutdown: hold nothing. */
		fake_scenario_clear(&sc);
		memset(&loaded_st, 0, sizeof loaded_st);
		return r;
	}
	inited = true;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit(void) { LOCKED(do_init(__func__)); }
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlInit_v2(void) { LOCKED(do_init(__func__)); }
#endif

static nvmlReturn_t do_shutdown(void)
{
	if (!inited)
		return NVML_ERROR_UNINITIALIZED;
	inited = false;
	/* Forget the scenario: a caller that dlcloses us must not see it as a leak. */
	fake_scenario_clear(&sc);
	memset(&loaded_st, 0, sizeof loaded_st);
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlShutdown(void) { LOCKED(do_shutdown()); }

static nvmlReturn_t do_count(const char *fn, unsigned *n)
{
	if (inited) {
		reload_if_changed();
		counts++;
	}
	nvmlReturn_t r = enter(fn);
	if (r == NVML_SUCCESS)
		*n = (unsigned)sc.n_devs;
	return r;
}
EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned *n) { LOCKED(do_count(__func__, n)); }
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n) { LOCKED(do_count(__func__, n)); }
#endif

__attribute__((unused)) static nvmlReturn_t do_handle(const char *fn, unsigned i, nvmlDevice_t *h)
{
	nvmlReturn_t r = enter(fn);
	if (r != NVML_SUCCESS)
		return r;
	if (i >= sc.n_devs)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (sc.devs[i].fail)
		return NVML_ERROR_GPU_IS_LOST;
	*h = (nvmlDevice_t)(void *)&handles[i];
	return NVML_SUCCESS;
}
#ifndef FAKE_NVML_NO_HANDLE
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i, nvmlDevice_t *h) { LOCKED(do_handle(__func__, i, h)); }
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *h) { LOCKED(do_handle(__func__, i, h)); }
#endif
#endif

static nvmlReturn_t copy_str(char *buf, unsigned len, const char *s)
{
	if (!s[0])
		return NVML_ERROR_NOT_SUPPORTED;
	if (strlen(s) + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, s, strlen(s) + 1);
	return NVML_SUCCESS;
}

static nvmlReturn_t do_driver(const char *fn, char *buf, unsigned len)
{
	nvmlReturn_t r = enter(fn);
	return r != NVML_SUCCESS ? r : copy_str(buf, len, sc.driver);
}
EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned len) { LOCKED(do_driver(__func__, buf, len)); }

static nvmlReturn_t do_cuda(const char *fn, int *v)
{
	nvmlReturn_t r = enter(fn);
	if (r == NVML_SUCCESS && sc.cuda == 0)
		r = NVML_ERROR_NOT_SUPPORTED;
	if (r == NVML_SUCCESS)
		*v = sc.cuda;
	return r;
}
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { LOCKED(do_cuda(__func__, v)); }
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { LOCKED(do_cuda(__func__, v)); }
#endif

/* Device strings: 'n' name, 'u' uuid. */
static nvmlReturn_t do_dev_str(const char *fn, nvmlDevice_t h, char *buf, unsigned len, char which)
{
	struct fake_device *d;
	unsigned i;
	nvmlReturn_t r = enter_dev(fn, h, &d, &i);
	return r != NVML_SUCCESS ? r : copy_str(buf, len, which == 'n' ? d->name : d->uuid);
}
EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *b, unsigned n) { LOCKED(do_dev_str(__func__, h, b, n, 'n')); }
EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *b, unsigned n) { LOCKED(do_dev_str(__func__, h, b, n, 'u')); }

__attribute__((unused)) static nvmlReturn_t do_pci(const char *fn, nvmlDevice_t h, nvmlPciInfo_t *pci)
{
	struct fake_device *d;
	unsigned i, dom = 0, bus = 0, dev = 0;
	nvmlReturn_t r = enter_dev(fn, h, &d, &i);
	if (r != NVML_SUCCESS)
		return r;
	if (!d->bus[0])
		return NVML_ERROR_NOT_SUPPORTED;
	memset(pci, 0, sizeof *pci);
	sscanf(d->bus, "%x:%x:%x", &dom, &bus, &dev);
	pci->domain = dom;
	pci->bus = bus;
	pci->device = dev;
	/* DeviceId << 16 | VendorId; an H100 unless the scenario says otherwise */
	pci->pciDeviceId = d->has[K_PCI_DEVICE_ID] ? (unsigned)d->v[K_PCI_DEVICE_ID] : 0x233010deu;
	snprintf(pci->busId, sizeof pci->busId, "%s", d->bus);
	snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", dom, bus, dev);
	return NVML_SUCCESS;
}
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t *p) { LOCKED(do_pci(__func__, h, p)); }
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t h, nvmlPciInfo_t *p) { LOCKED(do_pci(__func__, h, p)); }
#endif

static unsigned long long mem_free_of(const struct fake_device *d)
{
	if (d->has[K_MEM_FREE])
		return d->v[K_MEM_FREE];
	unsigned long long used = d->v[K_MEM_USED] + d->v[K_MEM_RESERVED];
	return d->v[K_MEM_TOTAL] > used ? d->v[K_MEM_TOTAL] - used : 0;
}

/* v1 folds reserved memory into used (nvmlMemory_t reference). */
static nvmlReturn_t do_mem(const char *fn, nvmlDevice_t h, nvmlMemory_t *m)
{
	struct fake_device *d;
	unsigned i;
	nvmlReturn_t r = enter_dev(fn, h, &d, &i);
	if (r != NVML_SUCCESS)
		return r;
	if (!d->has[K_MEM_TOTAL])
		return NVML_ERROR_NOT_SUPPORTED;
	m->total = d->v[K_MEM_TOTAL];
	m->used = d->v[K_MEM_USED] + d->v[K_MEM_RESERVED];
	m->free = mem_free_of(d);
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m) { LOCKED(do_mem(__func__, h, m)); }

__attribute__((unused)) static nvmlReturn_t do_mem_v2(const char *fn, nvmlDevice_t h, nvmlMemory_v2_t *m)
{
	struct fake_device *d;
	unsigned i;
	nvmlReturn_t r = enter_dev(fn, h, &d, &i);
	if (r != NVML_SUCCESS)
		return r;
	if (m->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (!d->has[K_MEM_TOTAL])
		return NVML_ERROR_NOT_SUPPORTED;
	m->total = d->v[K_MEM_TOTAL];
	m->reserved = d->v[K_MEM_RESERVED];
	m->used = d->v[K_MEM_USED];
	m->free = mem_free_of(d);
	return NVML_SUCCESS;
}
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t *m) { LOCKED(do_mem_v2(__func__, h, m)); }
#endif

/* One numeric key; NOT_SUPPORTED when the scenario leaves it out. The
 * driver's counters and the throttle reasons are 64-bit answers. */
static nvmlReturn_t do_key64(const char *fn, nvmlDevice_t h, enum fake_key k, unsigned long long *v)
{
	struct fake_device *d;
	unsigned i;
	nvmlReturn_t r = enter_dev(fn, h, &d, &i);
	if (r != NVML_SUCCESS)
		return r;
	if (!d->has[k])
		return NVML_ERROR_NOT_SUPPORTED;
	*v = d->v[k];
	return NVML_SUCCESS;
}

static nvmlReturn_t do_key(const char *fn, nvmlDevice_t h, enum fake_key k, unsigned *v)
{
	unsigned long long x;
	nvmlReturn_t r = do_key64(fn, h, k, &x);
	if (r == NVML_SUCCESS)
		*v = (unsigned)x;
	return r;
}

static nvmlReturn_t do_util(const char *fn, nvmlDevice_t h, nvmlUtilization_t *u)
{
	nvmlReturn_t r = do_key(fn, h, K_UTIL_GPU, &u->gpu);
	if (r == NVML_SUCCESS && do_key(fn, h, K_UTIL_MEM, &u->memory) != NVML_SUCCESS)
		u->memory = 0;
	return r;
}
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u) { LOCKED(do_util(__func__, h, u)); }

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, nvmlTemperatureSensors_t s, unsigned *v)
{
	LOCKED(s != NVML_TEMPERATURE_GPU ? NVML_ERROR_INVALID_ARGUMENT : do_key(__func__, h, K_TEMP, v));
}
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned *v) { LOCKED(do_key(__func__, h, K_POWER_MW, v)); }
EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t h, unsigned *v) { LOCKED(do_key(__func__, h, K_POWER_LIMIT_MW, v)); }
EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t h, unsigned *v) { LOCKED(do_key(__func__, h, K_FAN, v)); }
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t h, unsigned *v) { LOCKED(do_key(__func__, h, K_PCIE_GEN, v)); }
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t h, unsigned *v) { LOCKED(do_key(__func__, h, K_PCIE_WIDTH, v)); }

EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h, unsigned long long *v) { LOCKED(do_key64(__func__, h, K_ENERGY_MJ, v)); }
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t h, unsigned long long *v) { LOCKED(do_key64(__func__, h, K_THROTTLE, v)); }
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h, unsigned long long *v) { LOCKED(do_key64(__func__, h, K_THROTTLE, v)); }
#endif
EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t h, unsigned *v) { LOCKED(do_key(__func__, h, K_PCIE_REPLAY, v)); }
/* Volatile counts only (the aggregate ones answer NOT_SUPPORTED). */
static nvmlReturn_t do_ecc(const char *fn, nvmlDevice_t h, nvmlMemoryErrorType_t t, nvmlEccCounterType_t c,
			   unsigned long long *v)
{
	if (c != NVML_VOLATILE_ECC)
		return NVML_ERROR_NOT_SUPPORTED;
	return do_key64(fn, h, t == NVML_MEMORY_ERROR_TYPE_CORRECTED ? K_ECC_CORRECTED : K_ECC_UNCORRECTED, v);
}
EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t h, nvmlMemoryErrorType_t t, nvmlEccCounterType_t c,
						unsigned long long *v) { LOCKED(do_ecc(__func__, h, t, c, v)); }

/* The Windows driver model (nvmlDriverModel_t: WDDM 0, WDM/TCC 1, MCDM 2);
 * NOT_SUPPORTED without driver_model, as on Linux. */
static nvmlReturn_t do_driver_model(const char *fn, nvmlDevice_t h, nvmlDriverModel_t *cur, nvmlDriverModel_t *pending)
{
	unsigned v;
	nvmlReturn_t r = do_key(fn, h, K_DRIVER_MODEL, &v);
	if (r == NVML_SUCCESS)
		*cur = *pending = (nvmlDriverModel_t)v;
	return r;
}
EXPORT nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t h, nvmlDriverModel_t *c, nvmlDriverModel_t *p) { LOCKED(do_driver_model(__func__, h, c, p)); }
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t h, nvmlDriverModel_t *c, nvmlDriverModel_t *p) { LOCKED(do_driver_model(__func__, h, c, p)); }
#endif

/* Entry points gputaskman never calls but nvtop needs to start (bench/compare
 * runs it on this double): a valid handle gets NOT_SUPPORTED. */
static nvmlReturn_t do_unsupported(const char *fn, nvmlDevice_t h)
{
	struct fake_device *d;
	unsigned i;
	nvmlReturn_t r = enter_dev(fn, h, &d, &i);
	return r != NVML_SUCCESS ? r : NVML_ERROR_NOT_SUPPORTED;
}
EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t h, unsigned *v) { (void)v; LOCKED(do_unsupported(__func__, h)); }
EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t h, unsigned *v) { (void)v; LOCKED(do_unsupported(__func__, h)); }
EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t h, int threshold, unsigned *v)
{
	(void)threshold;
	(void)v;
	LOCKED(do_unsupported(__func__, h));
}

static enum fake_key clock_key(nvmlClockType_t t, bool max)
{
	if (t == NVML_CLOCK_SM || t == NVML_CLOCK_GRAPHICS)
		return max ? K_CLOCK_SM_MAX : K_CLOCK_SM;
	if (t == NVML_CLOCK_MEM)
		return max ? K_CLOCK_MEM_MAX : K_CLOCK_MEM;
	return max ? K_N : K_CLOCK_VIDEO;
}

static nvmlReturn_t do_clock(const char *fn, nvmlDevice_t h, nvmlClockType_t t, unsigned *v, bool max)
{
	enum fake_key k = clock_key(t, max);
	if (k == K_N) {
		struct fake_device *d;
		unsigned i;
		nvmlReturn_t r = enter_dev(fn, h, &d, &i);
		return r != NVML_SUCCESS ? r : NVML_ERROR_NOT_SUPPORTED;
	}
	return do_key(fn, h, k, v);
}
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, nvmlClockType_t t, unsigned *v) { LOCKED(do_clock(__func__, h, t, v, false)); }
EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t h, nvmlClockType_t t, unsigned *v) { LOCKED(do_clock(__func__, h, t, v, true)); }

EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t h, nvmlPcieUtilCounter_t c, unsigned *v)
{
	LOCKED(do_key(__func__, h, c == NVML_PCIE_UTIL_TX_BYTES ? K_PCIE_TX_KBS : K_PCIE_RX_KBS, v));
}

static nvmlReturn_t do_codec(const char *fn, nvmlDevice_t h, enum fake_key k, unsigned *v, unsigned *period)
{
	nvmlReturn_t r = do_key(fn, h, k, v);
	if (r == NVML_SUCCESS)
		*period = 167000;
	return r;
}
EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t h, unsigned *v, unsigned *p) { LOCKED(do_codec(__func__, h, K_ENC, v, p)); }
EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t h, unsigned *v, unsigned *p) { LOCKED(do_codec(__func__, h, K_DEC, v, p)); }

/* Running-process lists with NVML's size protocol: a size query (count 0 or
 * infos NULL) sees only the processes that are not "late"; the fill call sees
 * them all, so a list can grow between the two calls as on a real driver. */
static nvmlReturn_t do_running(const char *fn, nvmlDevice_t h, int list, int min_api, size_t stride,
			       unsigned *count, void *infos)
{
	struct fake_device *d;
	unsigned dev, n = 0;
	nvmlReturn_t r = enter_dev(fn, h, &d, &dev);
	if (r != NVML_SUCCESS)
		return r;
	if (sc.api < min_api)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	bool query = infos == NULL || *count == 0;
	for (size_t i = 0; i < sc.n_procs; i++) {
		const struct fake_process *p = &sc.procs[i];
		if (p->dev != dev || !(p->lists & list) || (query && p->late))
			continue;
		if (!query && n < *count) {
			nvmlProcessInfo_t rec = {.pid = p->pid, .usedGpuMemory = p->mem_na ? NVML_VALUE_NOT_AVAILABLE : p->mem,
						 .gpuInstanceId = p->gi, .computeInstanceId = p->ci};
			memcpy((char *)infos + (size_t)n * stride, &rec, stride); /* v1 records are the first 16 bytes */
		}
		n++;
	}
	if (n == 0) {
		*count = 0;
		return NVML_SUCCESS;
	}
	if (query || n > *count) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return NVML_SUCCESS;
}

#define V1 sizeof(nvmlProcessInfo_v1_t)
#define V2 sizeof(nvmlProcessInfo_t)
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t h, unsigned *c, nvmlProcessInfo_v1_t *i) { LOCKED(do_running(__func__, h, FAKE_COMPUTE, 1, V1, c, i)); }
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t h, unsigned *c, nvmlProcessInfo_v1_t *i) { LOCKED(do_running(__func__, h, FAKE_GRAPHICS, 1, V1, c, i)); }
#ifndef FAKE_NVML_OLD
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t h, unsigned *c, nvmlProcessInfo_t *i) { LOCKED(do_running(__func__, h, FAKE_COMPUTE, 2, V2, c, i)); }
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t h, unsigned *c, nvmlProcessInfo_t *i) { LOCKED(do_running(__func__, h, FAKE_GRAPHICS, 2, V2, c, i)); }
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned *c, nvmlProcessInfo_t *i) { LOCKED(do_running(__func__, h, FAKE_COMPUTE, 3, V2, c, i)); }
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t h, unsigned *c, nvmlProcessInfo_t *i) { LOCKED(do_running(__func__, h, FAKE_GRAPHICS, 3, V2, c, i)); }
#endif

/* One sample per process line with a load, stamped now (CPU time in µs, as
 * NVML stamps them); none when lastSeen is not older than now. */
static nvmlReturn_t do_proc_util(const char *fn, nvmlDevice_t h, nvmlProcessUtilizationSample_t *s, unsigned *count,
				 unsigned long long last_seen)
{
	struct fake_device *d;
	struct timespec ts;
	unsigned dev, n = 0;
	nvmlReturn_t r = enter_dev(fn, h, &d, &dev);
	if (r != NVML_SUCCESS)
		return r;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long long now = (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
	for (size_t i = 0; i < sc.n_procs && now > last_seen; i++) {
		const struct fake_process *p = &sc.procs[i];
		if (p->dev != dev || !p->has_load)
			continue;
		if (s && n < *count)
			s[n] = (nvmlProcessUtilizationSample_t){p->pid, now, p->sm, p->mem_util, p->enc, p->dec};
		n++;
	}
	if (n == 0)
		return NVML_ERROR_NOT_FOUND;
	if (!s || n > *count) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t h, nvmlProcessUtilizationSample_t *s, unsigned *c,
						    unsigned long long last) { LOCKED(do_proc_util(__func__, h, s, c, last)); }

EXPORT const char *nvmlErrorString(nvmlReturn_t r)
{
	return r == NVML_SUCCESS ? "Success" : "fake NVML error";
}
