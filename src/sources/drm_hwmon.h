/* A DRM device's hwmon readings (Documentation/hwmon/sysfs-interface.rst;
 * amdgpu: Documentation/gpu/amdgpu/thermal.rst; i915/xe hwmon on discrete
 * parts): temperature, power and its cap, fan. */
#ifndef GTM_DRM_HWMON_H
#define GTM_DRM_HWMON_H

#include <stdbool.h>

#include "core/snapshot.h"

/* Fills temp_c, power_w, power_limit_w, fan_pct from
 * /sys/class/drm/<card>/device/hwmon/hwmon*. Returns false when the device has
 * no hwmon folder. */
bool drm_hwmon_read(const char *card, struct gtm_device *d);
/* Whether the device has a hwmon folder (a listing only: wakes nothing). */
bool drm_hwmon_present(const char *card);
/* A PCI device in runtime suspend (device/power/runtime_status, which reads
 * without waking it). Its sensors, load and clock files would wake it: a
 * monitor must not keep a laptop's dGPU awake. */
bool drm_runtime_suspended(const char *card);

#endif
