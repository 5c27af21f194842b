/* Helpers for the NVML tests: scenario files for the fake libnvidia-ml.so.1
 * (tests/fakes/nvml) and one-call sampling of the NVML source. */
#ifndef NVML_TEST_UTIL_H
#define NVML_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "sources/source.h"

/* Writes text as the scenario (atomically: temp file + rename, so the fake
 * sees a new file) and points GTM_FAKE_NVML_SCENARIO at it. */
void nt_write_scenario(const char *text);
/* Removes the scenario's folder. */
void nt_cleanup(void);

struct nt_sample {
	struct gtm_snapshot *snap;
	struct gtm_raw_uses uses;
	struct gtm_source_status st;
	int rc;
};

/* Opens the NVML source; NULL when it is unavailable (st says why). */
void *nt_open(struct gtm_source_status *st);
/* One refresh of the source into a fresh snapshot. */
void nt_sample(void *priv, struct nt_sample *s);
void nt_sample_free(struct nt_sample *s);
/* The raw use of pid on dev_index, or NULL. */
const struct gtm_raw_use *nt_find_use(const struct nt_sample *s, uint32_t pid, int dev_index);

#endif
