/* Running the DRM source over a fixture tree: root setup and look-ups. */
#ifndef GTM_TEST_DRM_CASE_H
#define GTM_TEST_DRM_CASE_H

#include <stdbool.h>

#include "core/snapshot.h"
#include "sources/source.h"

struct drm_case {
	char *root;
	void *priv;
	struct gtm_snapshot *snap;
	struct gtm_raw_uses uses;
	struct gtm_source_status st;
};

/* A fresh temp root set as GPUTASKMAN_ROOT. */
void dc_begin(struct drm_case *c);
/* Opens the source (once) and samples into a new snapshot; returns sample()'s rc. */
int dc_sample(struct drm_case *c, bool one_shot, uint64_t budget_ns);
void dc_end(struct drm_case *c);
/* The use of (pid, snapshot device index), or NULL. */
const struct gtm_raw_use *dc_use(const struct drm_case *c, uint32_t pid, int dev);
/* The snapshot index of the device at PCI slot, or -1. */
int dc_dev(const struct drm_case *c, const char *slot);
/* Whether a snapshot note contains text. */
bool dc_note(const struct drm_case *c, const char *text);
/* A copy of s with the first `from` replaced by `to` (tests build second samples). */
char *dc_replace(const char *s, const char *from, const char *to);

#endif
