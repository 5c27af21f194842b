/* AMD ADL's Overdrive8 PMLog sensors (ADLPMLogDataOutput.sensors[], indexed
 * by ADL_PMLOG_* numbers) turned into device readings: one table of which
 * sensor feeds which reading. Pure, unit-tested on Linux. */
#ifndef GTM_WDDM_ADL_SENSORS_H
#define GTM_WDDM_ADL_SENSORS_H

#include "core/snapshot.h"

/* ADL_PMLOG_MAX_SENSORS (adl_defines.h): the length of the sensors array. */
#define WDDM_ADL_PMLOG_MAX_SENSORS 256

/* ADLSingleSensorData (adl_structures.h): two ints, in this order. */
struct wddm_adl_sensor {
	int supported;
	int value;
};

/* Sets the readings whose sensor is supported and plausible; the others are
 * left as they are (N/A). */
void wddm_adl_apply_sensors(const struct wddm_adl_sensor *sensors, int n, struct gtm_device *d);

/* One GPU's Overdrive5 answers (the generations before PMLog), in ADL's
 * units: clocks in 10 kHz (adl_structures.h, ADLPMActivity; AMD's sample
 * divides by 100 for MHz), temperature in millidegrees Celsius. */
struct wddm_adl_od5_sample {
	bool has_activity;           /* ADL2_Overdrive5_CurrentActivity_Get answered */
	bool activity_reported;      /* ADLODParameters.iActivityReportingSupported */
	int activity_pct, engine_clock_10khz, memory_clock_10khz, bus_lanes;
	bool has_temp;
	int temp_millic;
	bool has_fan_pct;            /* FanSpeed_Get with ADL_DL_FANCTRL_SPEED_TYPE_PERCENT */
	int fan_pct;
};

/* Sets the readings the sample has and that are plausible. */
void wddm_adl_apply_od5(const struct wddm_adl_od5_sample *s, struct gtm_device *d);

#endif
