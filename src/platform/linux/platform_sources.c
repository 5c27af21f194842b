#include "platform.h"

#include "sources/drm.h"
#include "sources/nvml.h"

const struct gtm_source_ops *const platform_sources[PLATFORM_MAX_SOURCES + 1] = {
	&nvml_source_ops,
	&drm_source_ops,
	NULL,
};
