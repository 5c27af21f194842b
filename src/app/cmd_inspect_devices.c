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

size_t cmd_inspect_collector_devices(struct split_device_in *out, size_t max)
{
	struct collector_opts o = {.one_shot = true, .gpu_filter = -1, .no_probe = true, .devices_only = true};
	struct collector *c = collector_new(&o);
	struct gtm_snapshot *s = collector_refresh(c);
	struct live_dev d[SPLIT_MAX_DEVICES * 4];
	size_t n = 0;
	for (int i = 0; i < s->n_devices && n < ARRAY_LEN(d); i++) {
		const struct gtm_device *g = &s->devices[i];
		/* only a driver's own figure plans a split, never an estimate */
		if (g->mem_free.prov != GTM_MEASURED)
			continue;
		memset(&d[n], 0, sizeof d[n]);
		snprintf(d[n].in.name, sizeof d[n].in.name, "GPU %d %s", g->index, g->name);
		d[n].in.free_bytes = g->mem_free.v;
		d[n].in.total_bytes = g->mem_total.prov == GTM_MEASURED ? g->mem_total.v : 0;
		d[n].nvidia = g->vendor == GTM_VENDOR_NVIDIA;
		snprintf(d[n].uuid, sizeof d[n].uuid, "%s", g->uuid);
		if (!pci_address_key(g->pci_bus_id, &d[n].pci_key))
			d[n].pci_key = UINT64_MAX;
		n++;
	}
	snapshot_free(s);
	collector_free(c);
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
