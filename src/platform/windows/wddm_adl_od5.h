/* ADL's Overdrive5 readings, for AMD GPUs without Overdrive8 PMLog (the
 * generations before it): current activity (clocks, load, PCIe lanes),
 * temperature and fan speed of thermal controller 0. */
#ifndef GTM_WDDM_ADL_OD5_H
#define GTM_WDDM_ADL_OD5_H

#include <stdbool.h>

#include "adl_abi.h"

struct wddm_adl_od5 {
	gtm_adl_od5_activity_fn activity;
	gtm_adl_od5_params_fn params;
	gtm_adl_od5_temp_fn temp;
	gtm_adl_od5_fan_fn fan;
};

/* Whether the library has Overdrive5's current activity at all. */
bool wddm_adl_od5_present(const struct wddm_adl_od5 *f);
/* Fills what Overdrive5 answers for the adapter into d. */
void wddm_adl_od5_read(const struct wddm_adl_od5 *f, gtm_adl_context ctx, int adapter, struct gtm_device *d);

#endif
