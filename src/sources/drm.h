/* AMD, Intel and other GPUs on Linux through DRM: devices from sysfs, per
 * process usage from /proc/PID/fdinfo (kernel drm-usage-stats keys). */
#ifndef GTM_DRM_H
#define GTM_DRM_H

#include "sources/source.h"

extern const struct gtm_source_ops drm_source_ops;

#endif
