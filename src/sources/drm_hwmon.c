#include "sources/drm_hwmon.h"

#include <dirent.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "sources/drm_sysfs.h"

/* Units from sysfs-interface.rst: temperatures in millidegrees Celsius,
 * power in microwatts, pwm 0..255. */
static bool hwmon_u64(const char *card, const char *hw, const char *file, uint64_t *v)
{
	return drm_sysfs_u64(v, "/sys/class/drm/%s/device/hwmon/%s/%s", card, hw, file);
}

static bool find_hwmon(const char *card, char *out, size_t cap)
{
	DIR *dir = sysroot_opendir("/sys/class/drm/%s/device/hwmon", card);
	struct dirent *e;
	bool found = false;

	if (!dir)
		return false;
	while (!found && (e = readdir(dir)))
		if (str_starts(e->d_name, "hwmon") && strlen(e->d_name) < cap) {
			str_copy(out, e->d_name, cap);
			found = true;
		}
	closedir(dir);
	return found;
}

bool drm_hwmon_present(const char *card)
{
	char hw[64];
	return find_hwmon(card, hw, sizeof hw);
}

bool drm_runtime_suspended(const char *card)
{
	char st[32];
	return drm_sysfs_str(st, sizeof st, "/sys/class/drm/%s/device/power/runtime_status", card) &&
	       (strcmp(st, "suspended") == 0 || strcmp(st, "suspending") == 0);
}

static void read_fan(const char *card, const char *hw, struct gtm_device *d)
{
	uint64_t v, max;
	if (hwmon_u64(card, hw, "pwm1", &v) && v <= 255)
		d->fan_pct = gtm_f64_of(100.0 * (double)v / 255.0, GTM_MEASURED);
	else if (hwmon_u64(card, hw, "fan1_input", &v) && hwmon_u64(card, hw, "fan1_max", &max) && max > 0 &&
		 v <= max)
		d->fan_pct = gtm_f64_of(100.0 * (double)v / (double)max, GTM_MEASURED);
}

bool drm_hwmon_read(const char *card, struct gtm_device *d)
{
	char hw[64];
	uint64_t v;

	if (!find_hwmon(card, hw, sizeof hw))
		return false;
	/* temp1 is amdgpu's "edge" sensor */
	if (hwmon_u64(card, hw, "temp1_input", &v) && v < 300000)
		d->temp_c = gtm_f64_of((double)v / 1000.0, GTM_MEASURED);
	if (hwmon_u64(card, hw, "power1_average", &v) || hwmon_u64(card, hw, "power1_input", &v))
		d->power_w = gtm_f64_of((double)v / 1e6, GTM_MEASURED);
	/* amdgpu: power1_cap; i915/xe: power1_max (the sustained limit) */
	if ((hwmon_u64(card, hw, "power1_cap", &v) || hwmon_u64(card, hw, "power1_max", &v)) && v > 0)
		d->power_limit_w = gtm_f64_of((double)v / 1e6, GTM_MEASURED);
	read_fan(card, hw, d);
	return true;
}
