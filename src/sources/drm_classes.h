/* What a driver's fdinfo region and engine names mean: tables, per driver,
 * from each driver's fdinfo documentation. */
#ifndef GTM_DRM_CLASSES_H
#define GTM_DRM_CLASSES_H

#include <stdbool.h>

enum drm_mem_class {
	DRM_MEM_IGNORE = 0, /* CPU-domain buffers, not GPU memory ("cpu", xe "system") */
	DRM_MEM_VRAM,       /* dedicated memory (or carve-out) */
	DRM_MEM_GTT,        /* GPU-accessible system RAM: spill on discrete, normal on APUs */
};

enum drm_engine_class {
	DRM_ENG_OTHER = 0,
	DRM_ENG_GFX,
	DRM_ENG_COMPUTE,
	DRM_ENG_COPY,
	DRM_ENG_VIDEO,      /* a video engine that both decodes and encodes */
	DRM_ENG_ENC,
	DRM_ENG_DEC,
	DRM_ENG_N,
};

enum drm_mem_class drm_region_class(const char *driver, const char *region);
/* vcn_unified: amdgpu VCN 4 and later, whose one ring both encodes and
 * decodes, so its "enc"/"dec" time is video, not one or the other. */
enum drm_engine_class drm_engine_class(const char *driver, const char *engine, bool vcn_unified);
/* "gfx", "compute", "copy", "video", "enc", "dec", "other". */
const char *drm_engine_class_name(enum drm_engine_class c);
/* amdgpu prints only engines that have run: a missing key is 0 ns there,
 * while for other drivers it means the engine is not reported. */
bool drm_driver_omits_idle_engines(const char *driver);

#endif
