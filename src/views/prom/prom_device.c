/* Device families: identity, memory by pool, load, sensors, clocks, PCIe. */
#include <stddef.h>
#include <string.h>

#include "views/prom/prom_internal.h"

void prom_device_labels(struct prom_out *o, const struct gtm_device *d)
{
	prom_add_label_int(o, "gpu", d->index);
	prom_add_label(o, "uuid", d->uuid);
}

static const struct prom_family f_info = {"gputaskman_gpu_info", "gauge",
	"A GPU's identity (value 1): name, vendor, PCI address, kernel driver and driver version, and the source that reads it."};
static const struct prom_family f_mem_total = {"gputaskman_gpu_memory_total_bytes", "gauge",
	"Memory of a GPU by pool: device (dedicated VRAM) or shared (GPU-accessible system RAM, GTT)."};
static const struct prom_family f_mem_used = {"gputaskman_gpu_memory_used_bytes", "gauge",
	"Memory in use on a GPU by pool: device (dedicated VRAM) or shared (GPU-accessible system RAM, GTT)."};
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
		prom_add_label(o, "name", d->name);
		prom_add_label(o, "vendor", gtm_vendor_name(d->vendor));
		prom_add_label(o, "pci_bus_id", d->pci_bus_id);
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

void prom_render_devices(const struct gtm_snapshot *s, struct prom_out *o)
{
	write_info(s, o);
	write_rows(s, o, rows_memory, sizeof rows_memory / sizeof rows_memory[0]);
	write_engines(s, o);
	write_rows(s, o, rows_sensors, sizeof rows_sensors / sizeof rows_sensors[0]);
	prom_family(o, &f_listed);
	for (int k = 0; k < s->n_devices; k++) {
		if (s->devices[k].n_processes_seen < 0)
			continue;
		prom_device_labels(o, &s->devices[k]);
		prom_write(o, s->devices[k].n_processes_seen);
	}
}
