/* The NVML source: opens libnvidia-ml, and per refresh appends each NVIDIA
 * device with its readings and the raw per-process uses (host PIDs as NVML
 * reports them; owner attribution happens in collect/attribute.c). */
#include "sources/nvml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "sources/nvml_internal.h"

#define MAX_DEVICES 256u /* bound on a count read from the driver */

struct nvml_state {
	struct nvml_lib lib;
	char driver[48];
	char cuda[16];
	struct nvml_proc_state *devs; /* by NVML index */
	size_t n_devs;
	struct nvml_scratch scratch;
};

static void *nvml_open(const struct gtm_source_opts *o, struct gtm_source_status *st)
{
	struct nvml_state *s = xcalloc(1, sizeof *s);

	(void)o;
	str_copy(st->name, "nvml", sizeof st->name);
	int r = nvml_lib_open(&s->lib, st->message, sizeof st->message);
	if (r < 0) {
		st->available = false;
		st->failed = r == -2;
		free(s);
		return NULL;
	}
	nvml_lib_versions(&s->lib, s->driver, sizeof s->driver, s->cuda, sizeof s->cuda);
	st->available = true;
	snprintf(st->message, sizeof st->message, "driver %s, CUDA %s", s->driver[0] ? s->driver : "N/A",
		 s->cuda[0] ? s->cuda : "N/A");
	return s;
}

static void set_fault_message(struct gtm_source_status *st, int index, const struct nvml_fault *f)
{
	if (index < 0)
		snprintf(st->message, sizeof st->message, "NVML error: %s: %s", f->call, nvml_error_name(f->code));
	else
		snprintf(st->message, sizeof st->message, "NVML error on NVML device %d: %s: %s", index, f->call,
			 nvml_error_name(f->code));
}

static unsigned device_count(struct nvml_state *s, struct nvml_fault *f)
{
	unsigned n = 0;
	nvml_count_fn fn = s->lib.count_v2 ? s->lib.count_v2 : s->lib.count;

	if (!nvml_check(f, fn(&n), "nvmlDeviceGetCount") || f->code != NVML_SUCCESS)
		return 0;
	if (n > MAX_DEVICES)
		n = MAX_DEVICES;
	if (n > s->n_devs) {
		s->devs = xrealloc(s->devs, n * sizeof *s->devs);
		memset(s->devs + s->n_devs, 0, (n - s->n_devs) * sizeof *s->devs);
		s->n_devs = n;
	}
	return n;
}

/* One device: handle, readings, processes. Returns its fault (SUCCESS if none). */
static struct nvml_fault sample_device(struct nvml_state *s, unsigned i, struct gtm_snapshot *snap,
				       struct gtm_raw_uses *uses)
{
	struct nvml_fault f = {NVML_SUCCESS, NULL};
	nvmlDevice_t h = NULL;
	nvml_handle_fn fn = s->lib.handle_v2 ? s->lib.handle_v2 : s->lib.handle;

	/* A device that fails keeps its place, all N/A: "GPU 1" stays the same card. */
	struct gtm_device *d = snapshot_add_device(snap);
	nvml_device_blank(d);
	d->driver_index = (int)i;
	str_copy(d->driver_version, s->driver, sizeof d->driver_version);
	str_copy(d->cuda_version, s->cuda, sizeof d->cuda_version);
	if (!nvml_check(&f, fn(i, &h), "nvmlDeviceGetHandleByIndex")) {
		/* the row stays, every reading N/A, named so it is not taken for a card */
		snprintf(d->name, sizeof d->name, "NVML device %d: %s", i, nvml_error_name(f.code));
		d->name_unread = true;
	} else {
		nvml_read_device(&s->lib, h, d, &f);
		if (f.code == NVML_SUCCESS)
			d->n_processes_seen = nvml_read_processes(&s->lib, h, d->index, &s->devs[i], &s->scratch, uses, &f);
	}
	if (f.code != NVML_SUCCESS) {
		/* the device's own fault, beside the source's message (the exporter's gpu_up) */
		str_copy(d->fault_call, f.call ? f.call : "", sizeof d->fault_call);
		str_copy(d->fault_reason, nvml_error_name(f.code), sizeof d->fault_reason);
	}
	return f;
}

static int nvml_sample(void *priv, struct gtm_snapshot *snap, struct gtm_raw_uses *uses, struct gtm_source_status *st)
{
	struct nvml_state *s = priv;
	struct nvml_fault first = {NVML_SUCCESS, NULL};
	int first_index = -1;
	unsigned n = device_count(s, &first);

	if (first.code != NVML_SUCCESS) {
		set_fault_message(st, -1, &first);
		return -1;
	}
	/* A device that fails does not hide the others. */
	for (unsigned i = 0; i < n; i++) {
		struct nvml_fault f = sample_device(s, i, snap, uses);
		if (f.code != NVML_SUCCESS && first.code == NVML_SUCCESS) {
			first = f;
			first_index = (int)i;
		}
	}
	if (first.code != NVML_SUCCESS) {
		set_fault_message(st, first_index, &first);
		return -1;
	}
	snprintf(st->message, sizeof st->message, "driver %s, CUDA %s", s->driver[0] ? s->driver : "N/A",
		 s->cuda[0] ? s->cuda : "N/A");
	return 0;
}

static void nvml_close(void *priv)
{
	struct nvml_state *s = priv;

	if (!s)
		return;
	nvml_lib_close(&s->lib);
	nvml_scratch_free(&s->scratch);
	free(s->devs);
	free(s);
}

const struct gtm_source_ops nvml_source_ops = {
	.name = "nvml",
	.open = nvml_open,
	.sample = nvml_sample,
	.close = nvml_close,
};
