#include "wddm_adl_od5.h"

bool wddm_adl_od5_present(const struct wddm_adl_od5 *f)
{
	return f->activity != NULL;
}

/* Thermal controller 0: AMD's sample enumerates the controllers and takes
 * the GPU domain's; a discrete card has its GPU sensor first [UNVERIFIED on
 * hardware], and a wrong guess reads N/A, not another card's value. */
void wddm_adl_od5_read(const struct wddm_adl_od5 *f, gtm_adl_context ctx, int adapter, struct gtm_device *d)
{
	struct wddm_adl_od5_sample s = {0};
	struct gtm_adl_pm_activity act = {.iSize = sizeof act};
	struct gtm_adl_od_parameters par = {.iSize = sizeof par};
	struct gtm_adl_temperature temp = {.iSize = sizeof temp};
	struct gtm_adl_fan_speed fan = {.iSize = sizeof fan, .iSpeedType = GTM_ADL_FANCTRL_SPEED_TYPE_PERCENT};

	if (f->activity && f->activity(ctx, adapter, &act) == GTM_ADL_OK) {
		s.has_activity = true;
		s.activity_reported = f->params && f->params(ctx, adapter, &par) == GTM_ADL_OK && par.iActivityReportingSupported;
		s.activity_pct = act.iActivityPercent;
		s.engine_clock_10khz = act.iEngineClock;
		s.memory_clock_10khz = act.iMemoryClock;
		s.bus_lanes = act.iCurrentBusLanes;
	}
	if (f->temp && f->temp(ctx, adapter, 0, &temp) == GTM_ADL_OK) {
		s.has_temp = true;
		s.temp_millic = temp.iTemperature;
	}
	/* the call may answer in RPM when percent is not supported: only a percent counts */
	if (f->fan && f->fan(ctx, adapter, 0, &fan) == GTM_ADL_OK && fan.iSpeedType == GTM_ADL_FANCTRL_SPEED_TYPE_PERCENT) {
		s.has_fan_pct = true;
		s.fan_pct = fan.iFanSpeed;
	}
	wddm_adl_apply_od5(&s, d);
}
