/* inspect MODEL: the devices a split is planned on (live GPUs or --gpus). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cmd_inspect.h"
#include "collect/collector.h"
#include "collect/devices_order.h"
#include "core/util.h"

struct live_dev {
	struct split_device_in in;
	uint64_t pci_key;
	bool nvidia;
	char uuid[96];
};

static int by_vendor_then_bus(const void *a, const void *b)
{
	const struct live_dev *x = a, *y = b;
	if (x->nvidia != y->nvidia)
		return x->nvidia ? -1 : 1;
	return x->pci_key < y->pci_key ? -1 : x->pci_key > y->pci_key;
}

/* CUDA_VISIBLE_DEVICES reorders (and hides) NVIDIA devices for CUDA. */
static size_t apply_visible(struct live_dev *d, size_t n, struct split_device_in *out, size_t max)
{
	const char *env = getenv("CUDA_VISIBLE_DEVICES");
	const char *uuids[SPLIT_MAX_DEVICES * 4];
	size_t order[SPLIT_MAX_DEVICES], n_nv = 0, k = 0;
	while (n_nv < n && d[n_nv].nvidia)
		n_nv++;
	if (!env || !n_nv) {
		for (size_t i = 0; i < n && k < max; i++)
			out[k++] = d[i].in;
		return k;
	}
	for (size_t i = 0; i < n_nv; i++)
		uuids[i] = d[i].uuid;
	size_t m = split_cuda_visible(env, strlen(env), uuids, n_nv, order, max);
	for (size_t i = 0; i < m; i++)
		out[k++] = d[order[i]].in;
	return k;
}

/* One collector refresh per run serves both the one-GPU fit check and the
 * device plan: the devices in the collector's order. */
static struct {
	bool done;
	size_t n;
	struct live_dev d[SPLIT_MAX_DEVICES * 4];
	bool measured[SPLIT_MAX_DEVICES * 4];
	char first_name[96]; /* the first device, measured or not ("" when none) */
} live;

static void live_scan(void)
{
	struct collector_opts o = {.one_shot = true, .gpu_filter = -1, .no_probe = true, .devices_only = true};
	if (live.done)
		return;
	live.done = true;
	struct collector *c = collector_new(&o);
	struct gtm_snapshot *s = collector_refresh(c);
	if (s->n_devices > 0)
		snprintf(live.first_name, sizeof live.first_name, "GPU %d %s", s->devices[0].index, s->devices[0].name);
	for (int i = 0; i < s->n_devices && live.n < ARRAY_LEN(live.d); i++) {
		const struct gtm_device *g = &s->devices[i];
		struct live_dev *d = &live.d[live.n];
		memset(d, 0, sizeof *d);
		snprintf(d->in.name, sizeof d->in.name, "GPU %d %s", g->index, g->name);
		/* only a driver's own figure decides a fit or a split, never an estimate */
		live.measured[live.n] = g->mem_free.prov == GTM_MEASURED;
		d->in.free_bytes = live.measured[live.n] ? g->mem_free.v : 0;
		d->in.total_bytes = g->mem_total.prov == GTM_MEASURED ? g->mem_total.v : 0;
		d->nvidia = g->vendor == GTM_VENDOR_NVIDIA;
		snprintf(d->uuid, sizeof d->uuid, "%s", g->uuid);
		if (!pci_address_key(g->pci_bus_id, &d->pci_key))
			d->pci_key = UINT64_MAX;
		live.n++;
	}
	snapshot_free(s);
	collector_free(c);
}

int cmd_inspect_collector_gpu(uint64_t *free_bytes, uint64_t *total_bytes, char *name, size_t n)
{
	live_scan();
	if (!live.first_name[0])
		return -1;
	snprintf(name, n, "%s", live.first_name); /* 1: a GPU is there, its free memory is not known */
	for (size_t i = 0; i < live.n; i++) {
		if (!live.measured[i])
			continue;
		*free_bytes = live.d[i].in.free_bytes;
		*total_bytes = live.d[i].in.total_bytes;
		snprintf(name, n, "%s", live.d[i].in.name);
		return 0;
	}
	return 1;
}

size_t cmd_inspect_collector_devices(struct split_device_in *out, size_t max)
{
	struct live_dev d[ARRAY_LEN(live.d)];
	size_t n = 0;
	live_scan();
	for (size_t i = 0; i < live.n; i++)
		if (live.measured[i])
			d[n++] = live.d[i];
	/* CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID, which is NVML's */
	qsort(d, n, sizeof d[0], by_vendor_then_bus);
	return apply_visible(d, n, out, max);
}

static bool split_flags_given(const struct llama_flags *f)
{
	return f->n_tensor_split || f->split_mode != LLAMA_SM_LAYER || f->main_gpu != 0;
}

static bool gpus_from_arg(const char *gpus, struct split_device_in *d, size_t *n)
{
	uint64_t sizes[SPLIT_MAX_DEVICES];
	char err[160];
	*n = split_gpus_parse(gpus, strlen(gpus), sizes, SPLIT_MAX_DEVICES, err, sizeof err);
	if (!*n) {
		fprintf(stderr, "gputaskman inspect: --gpus %s: %s\n", gpus, err);
		return false;
	}
	for (size_t i = 0; i < *n; i++) {
		memset(&d[i], 0, sizeof d[i]);
		snprintf(d[i].name, sizeof d[i].name, "(--gpus)");
		d[i].free_bytes = sizes[i];
	}
	return true;
}

bool inspect_model_plan_devices(struct inspect_model *m, const char *gpus)
{
	struct split_device_in d[SPLIT_MAX_DEVICES];
	size_t n = 0;
	if (gpus) {
		if (!gpus_from_arg(gpus, d, &n))
			return false;
		m->split_source = "--gpus";
	} else {
		n = cmd_inspect_collector_devices(d, SPLIT_MAX_DEVICES);
		m->split_source = "measured";
		if (n < 2 && !split_flags_given(m->flags))
			return true;
	}
	m->split_wanted = true;
	if (!m->plan_ok) {
		snprintf(m->split_err, sizeof m->split_err, "no plan of the model");
		return true;
	}
	if (!n) {
		snprintf(m->split_err, sizeof m->split_err, "no GPU with measured free memory visible (give --gpus SIZE,SIZE)");
		return true;
	}
	m->split_ok = split_plan_make(m->h, m->flags, &m->est, d, n, &m->split, m->split_err, sizeof m->split_err);
	/* the single-GPU check weighs the whole model against one device: the
	 * plan per device replaces it */
	if (m->split_ok && m->have_gpu) {
		m->have_gpu = false;
		m->fit_note = "checked per device: see Devices";
	}
	return true;
}
