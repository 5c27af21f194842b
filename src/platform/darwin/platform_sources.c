#include "platform.h"

#include "iokit_source.h"

/* macOS's GPU source: the IOKit registry of the Apple GPU. */
const struct gtm_source_ops *const platform_sources[PLATFORM_MAX_SOURCES + 1] = {
	&iokit_source_ops,
	NULL,
};
