#include "sources/drm_classes.h"

#include <string.h>

#include "core/util.h"

/* Region names: amdgpu (amdgpu_fdinfo.c: vram, gtt, cpu), i915 (i915
 * drm-usage-stats: system0, local0.., stolen-*), xe (xe_drm_client.c: system,
 * gtt, vram0.., stolen). "*" rows apply to any driver; prefix rows match
 * "vram1", "local0". The first matching row wins. */
static const struct region_rule {
	const char *driver, *name;
	bool prefix;
	enum drm_mem_class cls;
} region_rules[] = {
	{"amdgpu", "vram", false, DRM_MEM_VRAM},
	{"amdgpu", "gtt", false, DRM_MEM_GTT},
	{"amdgpu", "cpu", false, DRM_MEM_IGNORE},
	{"i915", "local", true, DRM_MEM_VRAM},
	{"i915", "stolen-", true, DRM_MEM_VRAM},
	{"i915", "system", true, DRM_MEM_GTT},
	{"xe", "vram", true, DRM_MEM_VRAM},
	{"xe", "stolen", true, DRM_MEM_VRAM},
	{"xe", "gtt", false, DRM_MEM_GTT},
	{"xe", "system", false, DRM_MEM_IGNORE}, /* XE_PL_SYSTEM: not mapped for the GPU */
	{"*", "vram", true, DRM_MEM_VRAM},
	{"*", "local", true, DRM_MEM_VRAM},
	{"*", "stolen", true, DRM_MEM_VRAM},
	{"*", "gtt", false, DRM_MEM_GTT},
	{"*", "system", true, DRM_MEM_GTT},
	{"*", "memory", false, DRM_MEM_GTT},     /* SoC drivers' one pool (panthor, msm) */
};

static bool name_match(const char *pat, bool prefix, const char *s)
{
	return prefix ? str_starts(s, pat) : strcmp(s, pat) == 0;
}

enum drm_mem_class drm_region_class(const char *driver, const char *region)
{
	for (size_t i = 0; i < ARRAY_LEN(region_rules); i++) {
		const struct region_rule *r = &region_rules[i];
		if ((strcmp(r->driver, "*") == 0 || strcmp(r->driver, driver) == 0) &&
		    name_match(r->name, r->prefix, region))
			return r->cls;
	}
	return DRM_MEM_IGNORE;
}

/* Engine names: amdgpu_ip_name[] in amdgpu_fdinfo.c (gfx, compute, dma, dec,
 * enc, enc_1, jpeg, vpe), i915 (render, copy, video, video-enhance, compute),
 * xe (rcs, bcs, vcs, vecs, ccs, other). */
static const struct engine_rule {
	const char *driver, *name;
	enum drm_engine_class cls;
} engine_rules[] = {
	{"amdgpu", "gfx", DRM_ENG_GFX},
	{"amdgpu", "compute", DRM_ENG_COMPUTE},
	{"amdgpu", "dma", DRM_ENG_COPY},
	{"amdgpu", "dec", DRM_ENG_DEC},
	{"amdgpu", "enc", DRM_ENG_ENC},
	{"amdgpu", "enc_1", DRM_ENG_ENC},
	{"amdgpu", "jpeg", DRM_ENG_DEC},
	{"amdgpu", "vpe", DRM_ENG_VIDEO},
	{"i915", "render", DRM_ENG_GFX},
	{"i915", "compute", DRM_ENG_COMPUTE},
	{"i915", "copy", DRM_ENG_COPY},
	{"i915", "video", DRM_ENG_VIDEO},
	{"i915", "video-enhance", DRM_ENG_VIDEO},
	{"xe", "rcs", DRM_ENG_GFX},
	{"xe", "ccs", DRM_ENG_COMPUTE},
	{"xe", "bcs", DRM_ENG_COPY},
	{"xe", "vcs", DRM_ENG_VIDEO},
	{"xe", "vecs", DRM_ENG_VIDEO},
	{"*", "gfx", DRM_ENG_GFX},
	{"*", "render", DRM_ENG_GFX},
	{"*", "compute", DRM_ENG_COMPUTE},
	{"*", "copy", DRM_ENG_COPY},
	{"*", "video", DRM_ENG_VIDEO},
};

enum drm_engine_class drm_engine_class(const char *driver, const char *engine, bool vcn_unified)
{
	for (size_t i = 0; i < ARRAY_LEN(engine_rules); i++) {
		const struct engine_rule *r = &engine_rules[i];
		if ((strcmp(r->driver, "*") == 0 || strcmp(r->driver, driver) == 0) &&
		    strcmp(r->name, engine) == 0) {
			/* VCN 4+: decode jobs run on the unified ("enc") ring
			 * (amdgpu_drm.h, AMDGPU_HW_IP_VCN_ENC), so neither key
			 * means what its name says. */
			if (vcn_unified && strcmp(driver, "amdgpu") == 0 &&
			    (r->cls == DRM_ENG_ENC || r->cls == DRM_ENG_DEC))
				return DRM_ENG_VIDEO;
			return r->cls;
		}
	}
	return DRM_ENG_OTHER;
}

const char *drm_engine_class_name(enum drm_engine_class c)
{
	static const char *const names[DRM_ENG_N] = {"other", "gfx", "compute", "copy", "video", "enc", "dec"};
	return (unsigned)c < DRM_ENG_N ? names[c] : "other";
}

bool drm_driver_omits_idle_engines(const char *driver)
{
	return strcmp(driver, "amdgpu") == 0;
}
