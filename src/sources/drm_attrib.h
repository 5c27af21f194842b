/* Strict attribution of DRM clients to processes (a pure function over what
 * the scan read). Shared buffers and passed fds make fdinfo double-count, so
 * a process is charged VRAM and spill only when each of its clients has one
 * visible holder, was opened through a render node, and reports zero bytes in
 * every drm-shared-* region; otherwise its VRAM is N/A with the reason and the
 * bytes go to the device's unattributed row (pid 0). Resident minus shared is
 * never computed. */
#ifndef GTM_DRM_ATTRIB_H
#define GTM_DRM_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/drm_classes.h"
#include "sources/drm_engines.h"
#include "sources/drm_fdinfo.h"
#include "sources/source.h"

/* One DRM fd of one process, as read. */
struct drm_obs {
	uint32_t pid;
	uint64_t start_time;
	int dev;              /* index into drm_attrib_in.devs */
	bool render;          /* opened through renderD<N>, not card<N> */
	bool read_ok;         /* fdinfo read whole and named a driver */
	bool kfd;             /* the process holds /dev/kfd (ROCm) */
	uint64_t read_ns;     /* monotonic time of the read */
	struct drm_fdinfo fi;
};

struct drm_dev_ctx {
	char driver[32];
	bool is_apu;          /* GTT is the GPU's normal memory, not spill */
	bool vcn_unified;
};

struct drm_class_load {
	bool ok;
	double pct;
};

/* Per device: engine load of all visible clients, by class. */
struct drm_dev_load {
	struct drm_class_load cls[DRM_ENG_N];
	int n_processes;      /* processes with a client on the device */
	int n_clients;
	int n_no_id_unattributed; /* clients without drm-client-id counted in the unattributed row */
};

struct drm_attrib_in {
	const struct drm_obs *obs;
	size_t n_obs;
	const struct drm_dev_ctx *devs;
	int n_devs;
	int dev_base;         /* snapshot index of devs[0] */
	bool partial;         /* the scan skipped processes: holders are not all known */
	struct drm_engine_state *engines; /* NULL: no engine load */
};

/* Reasons a process's VRAM is N/A (use.na_reason). */
#define DRM_NA_PARTIAL "partial scan"
#define DRM_NA_INCOMPLETE "incomplete read"
#define DRM_NA_UNPARSEABLE "unparseable value"
#define DRM_NA_NO_CLIENT_ID "no client id"
#define DRM_NA_NO_MEMORY "driver reports no memory"
#define DRM_NA_LEGACY "legacy kernel without shared keys"
#define DRM_NA_SHARED_CLIENT "shared client"
#define DRM_NA_PRIMARY "primary node"
#define DRM_NA_SHARED_BUFFERS "shared buffers"
/* On the unattributed row (its VRAM stays measured): why it may double-count. */
#define DRM_NA_UNATTRIB_NO_ID "includes clients without id: may double-count"

/* Appends one raw use per (process, device) and one unattributed use (pid 0)
 * per device with bytes no process could be charged with; fills loads[n_devs]
 * when not NULL. */
void drm_attribute(const struct drm_attrib_in *in, struct gtm_raw_uses *uses, struct drm_dev_load *loads);

#endif
