/* Parser for the DRM client usage stats a driver prints in
 * /proc/PID/fdinfo/FD (kernel Documentation/gpu/drm-usage-stats.rst).
 * A pure function over a bounded buffer: no I/O, no allocation. */
#ifndef GTM_DRM_FDINFO_H
#define GTM_DRM_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRM_FDINFO_MAX_REGIONS 16
#define DRM_FDINFO_MAX_ENGINES 16
#define DRM_FDINFO_NAME 24

/* Which of a region's keys were present ("have" bits). */
enum drm_region_key {
	DRM_RK_TOTAL = 1 << 0,     /* drm-total-<r> */
	DRM_RK_SHARED = 1 << 1,    /* drm-shared-<r> */
	DRM_RK_RESIDENT = 1 << 2,  /* drm-resident-<r> */
	DRM_RK_PURGEABLE = 1 << 3, /* drm-purgeable-<r> */
	DRM_RK_ACTIVE = 1 << 4,    /* drm-active-<r> */
	DRM_RK_MEMORY = 1 << 5,    /* drm-memory-<r>: the older name of resident */
	DRM_RK_BAD = 1 << 6,       /* one of its keys had a value that did not parse */
};

struct drm_fdinfo_region {
	char name[DRM_FDINFO_NAME];  /* "vram", "gtt", "system0", "stolen-system0", "vram1" */
	uint64_t total, shared, resident, purgeable, active, memory; /* bytes */
	unsigned have;               /* enum drm_region_key bits */
};

enum drm_engine_key {
	DRM_EK_NS = 1 << 0,           /* drm-engine-<e>: busy time, ns */
	DRM_EK_CYCLES = 1 << 1,       /* drm-cycles-<e> */
	DRM_EK_TOTAL_CYCLES = 1 << 2, /* drm-total-cycles-<e> (xe) */
	DRM_EK_CAPACITY = 1 << 3,     /* drm-engine-capacity-<e> */
};

struct drm_fdinfo_engine {
	char name[DRM_FDINFO_NAME];  /* "gfx", "render", "rcs", "ccs", ... */
	uint64_t busy_ns, cycles, total_cycles;
	uint32_t capacity;           /* 1 when the key is absent (the spec's default) */
	unsigned have;               /* enum drm_engine_key bits */
};

struct drm_fdinfo {
	char driver[DRM_FDINFO_NAME]; /* drm-driver (mandatory) */
	char pdev[32];                /* drm-pdev, PCI slot "0000:03:00.0" */
	uint64_t client_id;           /* drm-client-id */
	bool has_driver, has_pdev, has_client_id;
	struct drm_fdinfo_region regions[DRM_FDINFO_MAX_REGIONS];
	int n_regions;
	struct drm_fdinfo_engine engines[DRM_FDINFO_MAX_ENGINES];
	int n_engines;
	bool overflow;                /* more regions or engines than fit: some dropped */
	int n_bad;                    /* drm- lines whose value did not parse (ignored) */
	int n_bad_memory;             /* of those, memory keys (the region is marked DRM_RK_BAD) */
};

/* Parses len bytes of fdinfo text (need not be NUL-terminated). Lines that are
 * not drm- keys are ignored (pos:, flags:, amd-*, ...). Returns 0 when the
 * text names a DRM driver (drm-driver), -1 otherwise; *out is filled either way. */
int drm_fdinfo_parse(const char *buf, size_t len, struct drm_fdinfo *out);

/* A region's resident bytes: drm-resident-<r>, else the legacy drm-memory-<r>.
 * Returns false when neither key was present. */
bool drm_region_resident(const struct drm_fdinfo_region *r, uint64_t *bytes);

/* Parses "<uint>[ unit]" where the allowed units depend on the key (NULL
 * list: no unit). Trailing text after whitespace is ignored. Exposed for tests. */
enum drm_value_kind { DRM_VAL_PLAIN, DRM_VAL_BYTES, DRM_VAL_NS };
bool drm_fdinfo_value(const char *s, size_t n, enum drm_value_kind kind, uint64_t *out);

#endif
