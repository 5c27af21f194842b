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

#endif
