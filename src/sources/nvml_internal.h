/* Pieces of the NVML source shared between its files (not a public surface). */
#ifndef GTM_NVML_INTERNAL_H
#define GTM_NVML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/snapshot.h"
#include "sources/nvml_lib.h"
#include "sources/source.h"

/* The first error of a refresh that is not "unsupported": the call that
 * failed and its code. Later calls on the same device are skipped. */
struct nvml_fault {
	nvmlReturn_t code;
	const char *call;
};

/* Records r in f when it is a real error; returns true when r is success. */
bool nvml_check(struct nvml_fault *f, nvmlReturn_t r, const char *call);

/* Normalises an NVML bus id ("00000000:01:00.0") to "0000:01:00.0".
 * Returns false (out empty) when in is not domain:bus:device.function. */
bool nvml_normalise_bus_id(const char *in, char *out, size_t n);

/* An NVIDIA device with every reading unavailable. */
void nvml_device_blank(struct gtm_device *d);
/* Fills d's readings from the driver; readings it does not offer stay N/A. */
void nvml_read_device(const struct nvml_lib *lib, nvmlDevice_t h, struct gtm_device *d, struct nvml_fault *f);

/* Per-device process state kept between refreshes. */
struct nvml_proc_state {
	unsigned long long last_seen_us; /* previous refresh's timestamp, 0 before the first */
	int compute_ver, graphics_ver;   /* newest working list entry point (NVML_PROCS_*) */
};

/* Scratch buffers reused across refreshes. */
struct nvml_scratch {
	void *buf;
	size_t buf_len;
	struct nvml_proc_rec *recs;
	size_t n_recs, cap_recs;
	unsigned *counts;
	size_t cap_counts;
};
void nvml_scratch_free(struct nvml_scratch *s);

/* Appends the device's processes to uses (compute and graphics lists merged
 * per PID) with their SM/encoder/decoder load since the previous refresh.
 * Returns how many distinct processes the device lists, or -1 when the
 * driver answers neither list (per-process use is unavailable, not none). */
int nvml_read_processes(const struct nvml_lib *lib, nvmlDevice_t h, int dev_index, struct nvml_proc_state *ps,
			struct nvml_scratch *sc, struct gtm_raw_uses *uses, struct nvml_fault *f);

#endif
