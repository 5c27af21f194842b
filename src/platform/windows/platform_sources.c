#include "platform.h"

#include "wddm_source.h"

/* Windows's GPU source: WDDM's PDH counters, with the adapters and their
 * vendor telemetry behind wddm_adapters.h. */
const struct gtm_source_ops *const platform_sources[PLATFORM_MAX_SOURCES + 1] = {
	&wddm_source_ops,
	NULL,
};
