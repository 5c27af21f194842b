#include "sources/wddm/wddm_adl_sensors.h"

#include <stddef.h>

/* Sensor numbers from AMD's adl_defines.h (ADL 18.1, enum ADL_PMLOG_SENSORS);
 * written here as facts, no AMD header is needed to build. */
enum {
	PMLOG_CLK_GFXCLK = 1,
	PMLOG_CLK_MEMCLK = 2,
	PMLOG_TEMPERATURE_EDGE = 8,
	PMLOG_FAN_PERCENTAGE = 15,
	PMLOG_INFO_ACTIVITY_GFX = 19,
	PMLOG_INFO_ACTIVITY_MEM = 20,
	PMLOG_ASIC_POWER = 23,
	PMLOG_BUS_LANES = 41,
	PMLOG_BOARD_POWER = 73,
};

/* sensor → reading, in order: a later row for the same reading wins when its
 * sensor is supported (board power, where a card has it, over ASIC power).
 * Units are those AMD's Overdrive8 sample prints (MHz, °C, %, W, lanes);
 * AMD documents no unit per generation (platforms.md §1.7), so values
 * outside the range a GPU can show are dropped rather than trusted. */
static const struct {
	int sensor;
	size_t off;
	double lo, hi;
} sensor_map[] = {
	{PMLOG_CLK_GFXCLK, offsetof(struct gtm_device, clock_sm_mhz), 0, 100000},
	{PMLOG_CLK_MEMCLK, offsetof(struct gtm_device, clock_mem_mhz), 0, 100000},
	{PMLOG_TEMPERATURE_EDGE, offsetof(struct gtm_device, temp_c), -50, 200},
	{PMLOG_FAN_PERCENTAGE, offsetof(struct gtm_device, fan_pct), 0, 100},
	{PMLOG_INFO_ACTIVITY_GFX, offsetof(struct gtm_device, util_gpu_pct), 0, 100},
	{PMLOG_INFO_ACTIVITY_MEM, offsetof(struct gtm_device, util_mem_pct), 0, 100},
	{PMLOG_ASIC_POWER, offsetof(struct gtm_device, power_w), 0, 10000},
	{PMLOG_BOARD_POWER, offsetof(struct gtm_device, power_w), 0, 10000},
	{PMLOG_BUS_LANES, offsetof(struct gtm_device, pcie_width), 1, 64},
};

static void set_if(gtm_f64 *r, double v, double lo, double hi)
{
	if (v >= lo && v <= hi)
		*r = gtm_f64_of(v, GTM_MEASURED);
}

void wddm_adl_apply_sensors(const struct wddm_adl_sensor *sensors, int n, struct gtm_device *d)
{
	for (size_t i = 0; i < sizeof sensor_map / sizeof sensor_map[0]; i++) {
		int k = sensor_map[i].sensor;
		if (k >= n || !sensors[k].supported)
			continue;
		set_if((gtm_f64 *)((char *)d + sensor_map[i].off), sensors[k].value, sensor_map[i].lo, sensor_map[i].hi);
	}
}

void wddm_adl_apply_od5(const struct wddm_adl_od5_sample *s, struct gtm_device *d)
{
	if (s->has_activity) {
		/* ADL fills iActivityPercent only where ODParameters says it reports it */
		if (s->activity_reported)
			set_if(&d->util_gpu_pct, s->activity_pct, 0, 100);
		set_if(&d->clock_sm_mhz, s->engine_clock_10khz / 100.0, 0, 100000);
		set_if(&d->clock_mem_mhz, s->memory_clock_10khz / 100.0, 0, 100000);
		set_if(&d->pcie_width, s->bus_lanes, 1, 64);
	}
	if (s->has_temp)
		set_if(&d->temp_c, s->temp_millic / 1000.0, -50, 200);
	if (s->has_fan_pct)
		set_if(&d->fan_pct, s->fan_pct, 0, 100);
}
