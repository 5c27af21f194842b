/* Device families: identity, memory by pool, load, sensors, clocks, PCIe. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "views/prom/prom_internal.h"

int prom_gpu_number(const struct gtm_device *d)
{
	return d->driver_index >= 0 ? d->driver_index : d->index;
}

const struct gtm_device *prom_device_at(const struct gtm_snapshot *s, int index)
{
	if (index >= 0 && index < s->n_devices && s->devices[index].index == index)
		return &s->devices[index];
	for (int i = 0; i < s->n_devices; i++)
		if (s->devices[i].index == index)
			return &s->devices[i];
	return NULL;
}

/* dcgm-exporter's pci_bus_id is NVML's busId: an 8-digit domain, upper-case
 * hex ("00000000:1A:00.0"); the snapshot keeps "0000:1a:00.0". */
static void dcgm_bus_id(const char *in, char *out, size_t n)
{
	unsigned dom, bus, dev, fn;
	int used = 0;
	out[0] = '\0';
	if (sscanf(in, "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &used) == 4 && in[used] == '\0')
		snprintf(out, n, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
}

static void identity_labels(struct prom_out *o, const struct gtm_device *d)
{
	char bus[32];
	prom_add_label(o, "uuid", d->uuid);
	dcgm_bus_id(d->pci_bus_id, bus, sizeof bus);
	prom_add_label(o, "pci_bus_id", bus);
}

void prom_device_labels(struct prom_out *o, const struct gtm_device *d)
{
	prom_add_label_int(o, "gpu", prom_gpu_number(d));
	identity_labels(o, d);
}

void prom_use_identity(struct prom_out *o, const struct prom_use *u)
{
	if (u->dev)
		identity_labels(o, u->dev);
	if (u->first && u->first->mig) {
		prom_add_label_int(o, "gpu_instance_id", u->first->gpu_instance_id);
		prom_add_label_int(o, "compute_instance_id", u->first->compute_instance_id);
	}
}

static const struct prom_family f_info = {"gputaskman_gpu_info", "gauge",
	"A GPU's identity (value 1): name, vendor, PCI address, kernel driver and driver version, and the source that reads it."};
static const struct prom_family f_mem_total = {"gputaskman_gpu_memory_total_bytes", "gauge",
	"Memory of a GPU by pool: device (dedicated VRAM) or shared (" PROM_HELP_POOL ")."};
static const struct prom_family f_mem_used = {"gputaskman_gpu_memory_used_bytes", "gauge",
	"Memory in use on a GPU by pool: device (dedicated VRAM) or shared (" PROM_HELP_POOL ")."};
static const struct prom_family f_mem_free = {"gputaskman_gpu_memory_free_bytes", "gauge",
	"Dedicated memory the driver reports free."};
static const struct prom_family f_mem_reserved = {"gputaskman_gpu_memory_reserved_bytes", "gauge",
	"Dedicated memory the driver reserves for itself (NVML)."};
static const struct prom_family f_util = {"gputaskman_gpu_utilization_ratio", "gauge",
	"Share of the last sample period a kernel ran on the GPU (0-1)."};
static const struct prom_family f_mem_activity = {"gputaskman_gpu_memory_activity_ratio", "gauge",
	"Share of the last sample period device memory was read or written (activity, not fullness; 0-1)."};
static const struct prom_family f_engine = {"gputaskman_gpu_engine_utilization_ratio", "gauge",
	"Load of one GPU engine (0-1): the driver's engines by name, or the encoder and decoder."};
static const struct prom_family f_temp = {"gputaskman_gpu_temperature_celsius", "gauge",
	"GPU temperature by sensor."};
static const struct prom_family f_power = {"gputaskman_gpu_power_watts", "gauge", "Power draw of the GPU."};
static const struct prom_family f_power_limit = {"gputaskman_gpu_power_limit_watts", "gauge",
	"Power limit the driver enforces."};
static const struct prom_family f_fan = {"gputaskman_gpu_fan_speed_ratio", "gauge",
	"Fan speed as a share of its maximum (0-1)."};
static const struct prom_family f_clock = {"gputaskman_gpu_clock_hertz", "gauge",
	"Current clock by domain: graphics (SM), memory, video."};
static const struct prom_family f_clock_max = {"gputaskman_gpu_clock_max_hertz", "gauge",
	"Maximum clock by domain: graphics (SM), memory."};
static const struct prom_family f_pcie = {"gputaskman_gpu_pcie_throughput_bytes_per_second", "gauge",
	"PCIe traffic by direction (tx from the GPU, rx to it), as the driver samples it."};
static const struct prom_family f_pcie_gen = {"gputaskman_gpu_pcie_link_generation", "gauge",
	"Current PCIe link generation."};
static const struct prom_family f_pcie_width = {"gputaskman_gpu_pcie_link_width_lanes", "gauge",
	"Current PCIe link width."};
static const struct prom_family f_up = {"gputaskman_gpu_up", "gauge",
	"Whether the GPU answered its driver in the last collection (1) or failed (0: the reason is in gputaskman_gpu_error_info)."};
static const struct prom_family f_error = {"gputaskman_gpu_error_info", "gauge",
	"Why a GPU did not answer (value 1): the driver call that failed and its error."};
static const struct prom_family f_energy = {"gputaskman_gpu_energy_joules_total", "counter",
	"Energy the GPU used since the driver loaded, from the driver's own counter (NVML total energy)."};
static const struct prom_family f_replays = {"gputaskman_gpu_pcie_replays_total", "counter",
	"PCIe replays (link-level retransmissions) the driver counted."};
static const struct prom_family f_ecc = {"gputaskman_gpu_ecc_errors_total", "counter",
	"ECC memory errors since the driver loaded, by error = corrected | uncorrected (the driver's volatile counters)."};
static const struct prom_family f_throttle = {"gputaskman_gpu_clock_throttle_reasons_info", "gauge",
	"Why the clocks are held below their maximum now (value 1): the driver's bitmask (mask, hex) and its bits by name "
	"(reasons, comma-separated; none when nothing throttles)."};
static const struct prom_family f_listed = {"gputaskman_gpu_driver_processes", "gauge",
	"Processes the driver lists on the GPU (absent when the driver gives no process list)."};

/* One sample of a device family: a reading, its scale, and one label. */
struct dev_row {
	const struct prom_family *fam;
	size_t off;          /* offset of a gtm_u64 (is_u64) or gtm_f64 in struct gtm_device */
	bool is_u64;
	double scale;
	const char *key, *value;
};

#define U64(f, field, k, v) {&f, offsetof(struct gtm_device, field), true, 1.0, k, v}
#define F64(f, field, sc, k, v) {&f, offsetof(struct gtm_device, field), false, sc, k, v}

/* Rows of one family are adjacent: each family is written for every device
 * before the next starts. The engine family is written in between (engines
 * by name need a loop). */
static const struct dev_row rows_memory[] = {
	U64(f_mem_total, mem_total, "pool", "device"),
	U64(f_mem_total, shared_total, "pool", "shared"),
	U64(f_mem_used, mem_used, "pool", "device"),
	U64(f_mem_used, shared_used, "pool", "shared"),
	U64(f_mem_free, mem_free, NULL, NULL),
	U64(f_mem_reserved, mem_reserved, NULL, NULL),
	F64(f_util, util_gpu_pct, 0.01, NULL, NULL),
	F64(f_mem_activity, util_mem_pct, 0.01, NULL, NULL),
};
static const struct dev_row rows_sensors[] = {
	F64(f_temp, temp_c, 1.0, "sensor", "gpu"),
	F64(f_power, power_w, 1.0, NULL, NULL),
	F64(f_power_limit, power_limit_w, 1.0, NULL, NULL),
	F64(f_fan, fan_pct, 0.01, NULL, NULL),
	F64(f_clock, clock_sm_mhz, 1e6, "clock", "graphics"),
	F64(f_clock, clock_mem_mhz, 1e6, "clock", "memory"),
	F64(f_clock, clock_video_mhz, 1e6, "clock", "video"),
	F64(f_clock_max, clock_sm_max_mhz, 1e6, "clock", "graphics"),
	F64(f_clock_max, clock_mem_max_mhz, 1e6, "clock", "memory"),
	F64(f_pcie, pcie_tx_bps, 1.0, "direction", "tx"),
	F64(f_pcie, pcie_rx_bps, 1.0, "direction", "rx"),
	F64(f_pcie_gen, pcie_gen, 1.0, NULL, NULL),
	F64(f_pcie_width, pcie_width, 1.0, NULL, NULL),
};
/* The driver's counters: written as they are, never integrated from a gauge. */
static const struct dev_row rows_counters[] = {
	{&f_energy, offsetof(struct gtm_device, energy_mj), true, 1e-3, NULL, NULL},
	U64(f_replays, pcie_replays, NULL, NULL),
	U64(f_ecc, ecc_corrected, "error", "corrected"),
	U64(f_ecc, ecc_uncorrected, "error", "uncorrected"),
};

static void write_row(struct prom_out *o, const struct gtm_device *d, const struct dev_row *r)
{
	const char *field = (const char *)d + r->off;
	if (r->is_u64) {
		gtm_u64 v;
		memcpy(&v, field, sizeof v);
		if (!gtm_u64_ok(v))
			return;
		prom_device_labels(o, d);
		prom_add_label(o, r->key, r->value);
		if (r->scale != 1.0)
			prom_write(o, (double)v.v * r->scale);
		else
			prom_write_u64(o, v.v);
	} else {
		gtm_f64 v;
		memcpy(&v, field, sizeof v);
		if (!gtm_f64_ok(v))
			return;
		prom_device_labels(o, d);
		prom_add_label(o, r->key, r->value);
		prom_write(o, v.v * r->scale);
	}
}

static void write_rows(const struct gtm_snapshot *s, struct prom_out *o, const struct dev_row *rows, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t end = i;
		while (end < n && rows[end].fam == rows[i].fam)
			end++;
		prom_family(o, rows[i].fam);
		for (int k = 0; k < s->n_devices; k++)
			for (size_t r = i; r < end; r++)
				write_row(o, &s->devices[k], &rows[r]);
		i = end;
	}
}

static void write_info(const struct gtm_snapshot *s, struct prom_out *o)
{
	prom_family(o, &f_info);
	for (int k = 0; k < s->n_devices; k++) {
		const struct gtm_device *d = &s->devices[k];
		prom_device_labels(o, d);
		if (!d->name_unread) /* a placeholder naming the error is not the card's name */
			prom_add_label(o, "name", d->name);
		prom_add_label(o, "vendor", gtm_vendor_name(d->vendor));
		prom_add_label(o, "driver", d->driver);
		prom_add_label(o, "driver_version", d->driver_version);
		prom_add_label(o, "backend", d->source);
		prom_write(o, 1);
	}
}

/* Engines by name (DRM), then the encoder and decoder (NVML); a name is
 * written once per device. */
static void write_engines(const struct gtm_snapshot *s, struct prom_out *o)
{
	prom_family(o, &f_engine);
	for (int k = 0; k < s->n_devices; k++) {
		const struct gtm_device *d = &s->devices[k];
		struct { const char *name; gtm_f64 v; } fixed[] = {{"encoder", d->enc_pct}, {"decoder", d->dec_pct}};
		for (int e = 0; e < d->n_engines && e < GTM_MAX_ENGINES; e++) {
			if (!gtm_f64_ok(d->engines[e].busy_pct) || !d->engines[e].name[0])
				continue;
			prom_device_labels(o, d);
			prom_add_label(o, "engine", d->engines[e].name);
			prom_write(o, d->engines[e].busy_pct.v / 100.0);
		}
		for (size_t e = 0; e < sizeof fixed / sizeof fixed[0]; e++) {
			if (!gtm_f64_ok(fixed[e].v))
				continue;
			prom_device_labels(o, d);
			prom_add_label(o, "engine", fixed[e].name);
			prom_write(o, fixed[e].v.v / 100.0);
		}
	}
}

/* nvmlClocksEventReasons bits (nvml.h: nvmlClocksThrottleReason*), one table. */
static const struct { uint64_t bit; const char *name; } throttle_bits[] = {
	{0x1, "gpu_idle"}, {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
	{0x8, "hw_slowdown"}, {0x10, "sync_boost"}, {0x20, "sw_thermal_slowdown"},
	{0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clock_setting"},
};

static void write_throttle(const struct gtm_snapshot *s, struct prom_out *o)
{
	prom_family(o, &f_throttle);
	for (int k = 0; k < s->n_devices; k++) {
		const struct gtm_device *d = &s->devices[k];
		char mask[24], names[256] = "";
		if (!gtm_u64_ok(d->throttle_reasons))
			continue;
		uint64_t rest = d->throttle_reasons.v;
		for (size_t b = 0; b < ARRAY_LEN(throttle_bits); b++)
			if (rest & throttle_bits[b].bit) {
				size_t len = strlen(names);
				snprintf(names + len, sizeof names - len, "%s%s", len ? "," : "", throttle_bits[b].name);
				rest &= ~throttle_bits[b].bit;
			}
		if (rest) { /* bits this table does not name yet */
			size_t len = strlen(names);
			snprintf(names + len, sizeof names - len, "%sother", len ? "," : "");
		}
		snprintf(mask, sizeof mask, "0x%016llx", (unsigned long long)d->throttle_reasons.v);
		prom_device_labels(o, d);
		prom_add_label(o, "mask", mask);
		prom_add_label(o, "reasons", names[0] ? names : "none");
		prom_write(o, 1);
	}
}

/* Per device: up or not, and why not; the others' series are unchanged. */
static void write_health(const struct gtm_snapshot *s, struct prom_out *o)
{
	prom_family(o, &f_up);
	for (int k = 0; k < s->n_devices; k++) {
		prom_device_labels(o, &s->devices[k]);
		prom_write(o, s->devices[k].fault_reason[0] ? 0 : 1);
	}
	prom_family(o, &f_error);
	for (int k = 0; k < s->n_devices; k++) {
		const struct gtm_device *d = &s->devices[k];
		if (!d->fault_reason[0])
			continue;
		prom_device_labels(o, d);
		prom_add_label(o, "call", d->fault_call);
		prom_add_label(o, "reason", d->fault_reason);
		prom_write(o, 1);
	}
}

void prom_render_devices(const struct gtm_snapshot *s, struct prom_out *o)
{
	write_info(s, o);
	write_health(s, o);
	write_rows(s, o, rows_memory, sizeof rows_memory / sizeof rows_memory[0]);
	write_engines(s, o);
	write_rows(s, o, rows_sensors, sizeof rows_sensors / sizeof rows_sensors[0]);
	write_rows(s, o, rows_counters, sizeof rows_counters / sizeof rows_counters[0]);
	write_throttle(s, o);
	prom_family(o, &f_listed);
	for (int k = 0; k < s->n_devices; k++) {
		if (s->devices[k].n_processes_seen < 0)
			continue;
		prom_device_labels(o, &s->devices[k]);
		prom_write(o, s->devices[k].n_processes_seen);
	}
}
