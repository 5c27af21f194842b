/* The Linux platform: /proc and /sys under GPUTASKMAN_ROOT (proc.h says what
 * a scan reads), NVML and the DRM drivers as GPU sources. */
#ifndef GTM_PLATFORM_H
#define GTM_PLATFORM_H

#include "platform/platform_api.h"
#include "proc.h"

#endif
