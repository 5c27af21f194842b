/* One NVIDIA device's readings through NVML. A reading the driver does not
 * offer (not supported, entry point absent) stays unavailable, never 0. */
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "sources/nvml_internal.h"

bool nvml_check(struct nvml_fault *f, nvmlReturn_t r, const char *call)
{
	if (r == NVML_SUCCESS)
		return true;
	if (!nvml_is_unsupported(r) && f->code == NVML_SUCCESS) {
		f->code = r;
		f->call = call;
	}
	return false;
}

bool nvml_normalise_bus_id(const char *in, char *out, size_t n)
{
	unsigned dom, bus, dev, fn;
	int used = 0;

	out[0] = '\0';
	if (sscanf(in, "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &used) != 4 || in[used] != '\0')
		return false;
	snprintf(out, n, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

/* Loads a function pointer stored at byte offset off of the entry-point table. */
static void *entry(const struct nvml_lib *lib, size_t off)
{
	void *p;
	memcpy(&p, (const char *)lib + off, sizeof p);
	return p;
}

#define F64_AT(d, off) ((gtm_f64 *)((char *)(d) + (off)))
#define SKIP(f) ((f)->code != NVML_SUCCESS)

/* Readings that are one unsigned int times a scale. */
struct uint_reading {
	const char *call;
	size_t fn_off, out_off;
	double scale;
};

#define UR(call, fn, out, scale) {call, offsetof(struct nvml_lib, fn), offsetof(struct gtm_device, out), scale}
static const struct uint_reading uint_readings[] = {
	UR("nvmlDeviceGetPowerUsage", power, power_w, 1e-3),               /* milliwatts */
	UR("nvmlDeviceGetEnforcedPowerLimit", power_limit, power_limit_w, 1e-3),
	UR("nvmlDeviceGetFanSpeed", fan, fan_pct, 1.0),
	UR("nvmlDeviceGetCurrPcieLinkGeneration", pcie_gen, pcie_gen, 1.0),
	UR("nvmlDeviceGetCurrPcieLinkWidth", pcie_width, pcie_width, 1.0),
};

/* Readings of one entry point taking a selector (clock type, PCIe counter). */
struct sel_reading {
	bool max_clock, pcie;
	int sel;
	size_t out_off;
	double scale;
};

#define SR(max, pcie, sel, out, scale) {max, pcie, sel, offsetof(struct gtm_device, out), scale}
static const struct sel_reading sel_readings[] = {
	SR(false, false, NVML_CLOCK_SM, clock_sm_mhz, 1.0),
	SR(false, false, NVML_CLOCK_MEM, clock_mem_mhz, 1.0),
	SR(false, false, NVML_CLOCK_VIDEO, clock_video_mhz, 1.0),
	SR(true, false, NVML_CLOCK_SM, clock_sm_max_mhz, 1.0),
	SR(true, false, NVML_CLOCK_MEM, clock_mem_max_mhz, 1.0),
	/* nvmlDeviceGetPcieThroughput returns KB/s; NVIDIA's KB is 1024 bytes. */
	SR(false, true, NVML_PCIE_UTIL_TX_BYTES, pcie_tx_bps, 1024.0),
	SR(false, true, NVML_PCIE_UTIL_RX_BYTES, pcie_rx_bps, 1024.0),
};

static void read_uint_readings(const struct nvml_lib *lib, nvmlDevice_t h, struct gtm_device *d, struct nvml_fault *f)
{
	for (size_t i = 0; i < ARRAY_LEN(uint_readings) && !SKIP(f); i++) {
		const struct uint_reading *u = &uint_readings[i];
		nvml_dev_uint_fn fn = (nvml_dev_uint_fn)entry(lib, u->fn_off);
		unsigned v;
		if (fn && nvml_check(f, fn(h, &v), u->call))
			*F64_AT(d, u->out_off) = gtm_f64_of(v * u->scale, GTM_MEASURED);
	}
	for (size_t i = 0; i < ARRAY_LEN(sel_readings) && !SKIP(f); i++) {
		const struct sel_reading *s = &sel_readings[i];
		unsigned v;
		nvmlReturn_t r;
		if (s->pcie && lib->pcie_tput)
			r = lib->pcie_tput(h, (nvmlPcieUtilCounter_t)s->sel, &v);
		else if (!s->pcie && (s->max_clock ? lib->max_clock : lib->clock))
			r = (s->max_clock ? lib->max_clock : lib->clock)(h, (nvmlClockType_t)s->sel, &v);
		else
			continue;
		if (nvml_check(f, r, s->pcie ? "nvmlDeviceGetPcieThroughput" : "nvmlDeviceGetClockInfo"))
			*F64_AT(d, s->out_off) = gtm_f64_of(v * s->scale, GTM_MEASURED);
	}
}

/* The versioned call separates reserved memory; the original folds it into used. */
static void read_memory(const struct nvml_lib *lib, nvmlDevice_t h, struct gtm_device *d, struct nvml_fault *f)
{
	if (lib->mem_v2) {
		nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
		if (nvml_check(f, lib->mem_v2(h, &m), "nvmlDeviceGetMemoryInfo_v2")) {
			d->mem_total = gtm_u64_of(m.total, GTM_MEASURED);
			d->mem_used = gtm_u64_of(m.used, GTM_MEASURED);
			d->mem_free = gtm_u64_of(m.free, GTM_MEASURED);
			d->mem_reserved = gtm_u64_of(m.reserved, GTM_MEASURED);
			return;
		}
	}
	if (lib->mem && !SKIP(f)) {
		nvmlMemory_t m;
		if (nvml_check(f, lib->mem(h, &m), "nvmlDeviceGetMemoryInfo")) {
			d->mem_total = gtm_u64_of(m.total, GTM_MEASURED);
			d->mem_used = gtm_u64_of(m.used, GTM_MEASURED);
			d->mem_free = gtm_u64_of(m.free, GTM_MEASURED);
		}
	}
}

static void read_identity(const struct nvml_lib *lib, nvmlDevice_t h, struct gtm_device *d, struct nvml_fault *f)
{
	char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	nvmlPciInfo_t pci;

	if (lib->name && nvml_check(f, lib->name(h, buf, sizeof buf), "nvmlDeviceGetName"))
		str_copy(d->name, buf, sizeof d->name);
	if (lib->uuid && !SKIP(f) && nvml_check(f, lib->uuid(h, buf, sizeof buf), "nvmlDeviceGetUUID"))
		str_copy(d->uuid, buf, sizeof d->uuid);
	nvml_pci_fn pci_fn = lib->pci_v3 ? lib->pci_v3 : lib->pci_v2;
	memset(&pci, 0, sizeof pci);
	if (pci_fn && !SKIP(f) && nvml_check(f, pci_fn(h, &pci), "nvmlDeviceGetPciInfo")) {
		pci.busId[sizeof pci.busId - 1] = '\0';
		nvml_normalise_bus_id(pci.busId, d->pci_bus_id, sizeof d->pci_bus_id);
	}
}

static void read_activity(const struct nvml_lib *lib, nvmlDevice_t h, struct gtm_device *d, struct nvml_fault *f)
{
	nvmlUtilization_t u;
	unsigned v, period;

	if (lib->util && !SKIP(f) && nvml_check(f, lib->util(h, &u), "nvmlDeviceGetUtilizationRates")) {
		d->util_gpu_pct = gtm_f64_of(u.gpu, GTM_MEASURED);
		d->util_mem_pct = gtm_f64_of(u.memory, GTM_MEASURED);
	}
	if (lib->temp && !SKIP(f) && nvml_check(f, lib->temp(h, NVML_TEMPERATURE_GPU, &v), "nvmlDeviceGetTemperature"))
		d->temp_c = gtm_f64_of(v, GTM_MEASURED);
	if (lib->enc && !SKIP(f) && nvml_check(f, lib->enc(h, &v, &period), "nvmlDeviceGetEncoderUtilization"))
		d->enc_pct = gtm_f64_of(v, GTM_MEASURED);
	if (lib->dec && !SKIP(f) && nvml_check(f, lib->dec(h, &v, &period), "nvmlDeviceGetDecoderUtilization"))
		d->dec_pct = gtm_f64_of(v, GTM_MEASURED);
}

/* The driver's own counters: total energy (mJ since the driver loaded,
 * Volta and later), PCIe replays, volatile ECC errors; and the clock
 * throttle reasons bitmask (nvmlClocksEventReasons in 12.x, the older name
 * otherwise). Never derived from a sampled gauge. */
static void read_counters(const struct nvml_lib *lib, nvmlDevice_t h, struct gtm_device *d, struct nvml_fault *f)
{
	unsigned long long v;
	unsigned u;
	nvml_dev_u64_fn reasons = lib->event_reasons ? lib->event_reasons : lib->throttle_reasons;

	if (lib->energy && !SKIP(f) && nvml_check(f, lib->energy(h, &v), "nvmlDeviceGetTotalEnergyConsumption"))
		d->energy_mj = gtm_u64_of(v, GTM_MEASURED);
	if (reasons && !SKIP(f) && nvml_check(f, reasons(h, &v), "nvmlDeviceGetCurrentClocksEventReasons"))
		d->throttle_reasons = gtm_u64_of(v, GTM_MEASURED);
	if (lib->pcie_replay && !SKIP(f) && nvml_check(f, lib->pcie_replay(h, &u), "nvmlDeviceGetPcieReplayCounter"))
		d->pcie_replays = gtm_u64_of(u, GTM_MEASURED);
	static const struct { nvmlMemoryErrorType_t type; size_t off; } ecc[] = {
		{NVML_MEMORY_ERROR_TYPE_CORRECTED, offsetof(struct gtm_device, ecc_corrected)},
		{NVML_MEMORY_ERROR_TYPE_UNCORRECTED, offsetof(struct gtm_device, ecc_uncorrected)},
	};
	for (size_t i = 0; i < ARRAY_LEN(ecc) && lib->ecc_total && !SKIP(f); i++)
		if (nvml_check(f, lib->ecc_total(h, ecc[i].type, NVML_VOLATILE_ECC, &v), "nvmlDeviceGetTotalEccErrors")) {
			gtm_u64 r = gtm_u64_of(v, GTM_MEASURED);
			memcpy((char *)d + ecc[i].off, &r, sizeof r);
		}
}

/* What NVML can plausibly report; anything outside (0xFFFFFFFF is NVML's own
 * "not available", a power limit of 0 W, a link of width 0) is unavailable,
 * never a number. Fan speed may exceed 100 % (NVML reference: "may exceed
 * 100% in certain cases"). */
struct plausible {
	size_t off;
	double lo, hi;
};

#define PL(out, lo, hi) {offsetof(struct gtm_device, out), lo, hi}
static const struct plausible plausible_ranges[] = {
	PL(util_gpu_pct, 0, 100),     PL(util_mem_pct, 0, 100),   PL(enc_pct, 0, 100),
	PL(dec_pct, 0, 100),          PL(fan_pct, 0, 255),        PL(temp_c, -50, 200),
	PL(power_w, 0, 10000),        PL(power_limit_w, 1, 10000), PL(clock_sm_mhz, 0, 100000),
	PL(clock_mem_mhz, 0, 100000), PL(clock_video_mhz, 0, 100000), PL(clock_sm_max_mhz, 1, 100000),
	PL(clock_mem_max_mhz, 1, 100000), PL(pcie_gen, 1, 16),    PL(pcie_width, 1, 64),
	PL(pcie_tx_bps, 0, 1e12),     PL(pcie_rx_bps, 0, 1e12),
};

static void drop_implausible(struct gtm_device *d)
{
	for (size_t i = 0; i < ARRAY_LEN(plausible_ranges); i++) {
		gtm_f64 *r = F64_AT(d, plausible_ranges[i].off);
		if (gtm_f64_ok(*r) && (r->v < plausible_ranges[i].lo || r->v > plausible_ranges[i].hi))
			*r = GTM_F64_NA;
	}
}

void nvml_device_blank(struct gtm_device *d)
{
	d->vendor = GTM_VENDOR_NVIDIA;
	str_copy(d->source, "nvml", sizeof d->source);
	d->mem_total = d->mem_used = d->mem_free = d->mem_reserved = GTM_U64_NA;
	d->shared_total = d->shared_used = GTM_U64_NA;
	d->energy_mj = d->pcie_replays = d->ecc_corrected = d->ecc_uncorrected = d->throttle_reasons = GTM_U64_NA;
	d->n_processes_seen = -1; /* no list read yet: unavailable, not none */
	gtm_f64 *fs[] = {&d->util_gpu_pct, &d->util_mem_pct, &d->temp_c, &d->power_w, &d->power_limit_w,
			 &d->fan_pct, &d->clock_sm_mhz, &d->clock_mem_mhz, &d->clock_video_mhz,
			 &d->clock_sm_max_mhz, &d->clock_mem_max_mhz, &d->pcie_tx_bps, &d->pcie_rx_bps,
			 &d->pcie_gen, &d->pcie_width, &d->enc_pct, &d->dec_pct};
	for (size_t i = 0; i < ARRAY_LEN(fs); i++)
		*fs[i] = GTM_F64_NA;
}

void nvml_read_device(const struct nvml_lib *lib, nvmlDevice_t h, struct gtm_device *d, struct nvml_fault *f)
{
	read_identity(lib, h, d, f);
	if (!SKIP(f))
		read_memory(lib, h, d, f);
	read_activity(lib, h, d, f);
	read_uint_readings(lib, h, d, f);
	read_counters(lib, h, d, f);
	drop_implausible(d);
}
