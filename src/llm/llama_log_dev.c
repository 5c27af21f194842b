/* llama.cpp's device lines: which devices a load used (with the PCI bus id
 * current builds print, the only exact way to the driver's device), the
 * startup device list of older builds, where each layer went (-lv 4), and
 * the 2023 single-figure `VRAM used` lines. Format strings and the builds
 * that print them: llama.cpp src/llama.cpp (`using device`), ggml-cuda.cu
 * (`Device N:`), src/llama-model.cpp (`layer %3d assigned to device %s`). */
#include <stdio.h>
#include <string.h>

#include "llm/llama_log_internal.h"

/* The load's entry for a device name, added when new; NULL when full. */
static struct llog_device *device_slot(struct llog_device *devs, int *n, const char *name, size_t nn)
{
	for (int i = 0; i < *n; i++)
		if (strlen(devs[i].name) == nn && memcmp(devs[i].name, name, nn) == 0)
			return &devs[i];
	if (*n == LLOG_MAX_DEVICES)
		return NULL;
	struct llog_device *d = &devs[(*n)++];
	memset(d, 0, sizeof *d);
	ls_copy(d->name, sizeof d->name, name, nn);
	d->free_mib = -1;
	return d;
}

/* `using device CUDA0 (NVIDIA GeForce RTX 4090) (0000:01:00.0) - 23000 MiB free`;
 * mid-2025 builds print no bus id, some print "(unknown id)". */
bool llog_parse_using_device(struct llama_log *lg, struct ls_line *ln)
{
	const char *u = ls_find(ln->msg, ln->end, "using device ");
	if (!u)
		return false;
	const char *p = u + strlen("using device "), *s = p;
	while (p < ln->end && *p != ' ')
		p++;
	if (p == s)
		return false;
	struct llog_load *l = llog_cur(lg, ln->t, ln->t_wall);
	struct llog_device *dv = device_slot(l->devices, &l->n_devices, s, (size_t)(p - s));
	if (!dv)
		return true;
	/* "(desc) (pci) - N MiB free": the desc may itself hold parentheses, so take
	 * the last "(...)" before " - " as the PCI id when it looks like one. */
	const char *dash = ls_find(p, ln->end, ") - ");
	const char *lim = dash ? dash + 1 : ln->end; /* just past the last ')' */
	struct ls_tok grp[4];
	int ng = ls_paren_groups(p, lim, grp, 4);
	dv->pci[0] = 0;
	if (ng >= 2 && ls_find(grp[ng - 1].p, grp[ng - 1].p + grp[ng - 1].n, ":"))
		ls_copy(dv->pci, sizeof dv->pci, grp[ng - 1].p, grp[ng - 1].n);
	if (ng >= 1)
		ls_copy(dv->desc, sizeof dv->desc, grp[0].p, grp[0].n);
	if (dash) {
		const char *q = dash + 4;
		dv->free_mib = (int64_t)ls_uint_after(&q, ln->end);
	}
	return true;
}

/* `ggml_cuda_init: found 2 CUDA devices:` (or `ROCm devices`), then per device
 * `  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes`:
 * names in CUDA ordinal order, without a bus id or free memory. */
bool llog_parse_device_list(struct llama_log *lg, struct ls_line *ln)
{
	const char *f = ls_find(ln->msg, ln->end, "ggml_cuda_init: found ");
	if (f) {
		const char *q = f + strlen("ggml_cuda_init: found ");
		(void)ls_uint_after(&q, ln->end);
		while (q < ln->end && *q == ' ')
			q++;
		const char *w = q;
		while (q < ln->end && *q != ' ')
			q++;
		if (q == w || !ls_find(q, ln->end, "devices"))
			return false;
		ls_copy(lg->run_dev_prefix, sizeof lg->run_dev_prefix, w, (size_t)(q - w));
		lg->n_run_devices = 0; /* a backend (re)initialised: its list follows */
		return true;
	}
	const char *p = ln->msg;
	while (p < ln->end && *p == ' ')
		p++;
	if (ln->end - p < 10 || memcmp(p, "Device ", 7) != 0)
		return false;
	const char *q = p + 7, *digits = q;
	uint64_t idx = ls_uint_after(&q, ln->end);
	if (q == digits || q + 2 > ln->end || q[0] != ':' || q[1] != ' ' || idx >= 100)
		return false;
	const char *name = q + 2, *comma = ls_find(name, ln->end, ",");
	bool cuda_cc = comma && ls_find(comma, ln->end, "compute capability");
	if (!comma || comma == name || (!lg->run_dev_prefix[0] && !cuda_cc))
		return false; /* a "Device 0:" line of something else */
	char dev[32];
	int dn = snprintf(dev, sizeof dev, "%s%u", lg->run_dev_prefix[0] ? lg->run_dev_prefix : "CUDA", (unsigned)idx);
	struct llog_device *d = device_slot(lg->run_devices, &lg->n_run_devices, dev, (size_t)dn);
	if (d)
		ls_copy(d->desc, sizeof d->desc, name, (size_t)(comma - name));
	/* a load already open in this run (the list came late) gets it too */
	struct llog_load *l = llama_log_last(lg);
	if (d && l && l->run == (lg->n_runs > 0 ? lg->n_runs - 1 : 0)) {
		struct llog_device *ld = device_slot(l->devices, &l->n_devices, dev, (size_t)dn);
		if (ld && !ld->desc[0])
			memcpy(ld->desc, d->desc, sizeof ld->desc);
	}
	return true;
}

/* `load_tensors: layer  13 assigned to device CUDA1, is_swa = 1` (-lv 4). */
bool llog_parse_layer_assigned(struct llama_log *lg, struct ls_line *ln)
{
	const char *a = ls_find(ln->msg, ln->end, " assigned to device ");
	if (!a)
		return false;
	const char *lw = ls_rfind(ln->msg, a, "layer ");
	if (!lw)
		return false;
	const char *q = lw + 6, *digits;
	while (q < a && *q == ' ')
		q++;
	digits = q;
	uint64_t layer = ls_uint_after(&q, a);
	if (q != a || q == digits || layer > 100000)
		return false;
	const char *d = a + strlen(" assigned to device "), *e = d;
	while (e < ln->end && *e != ',' && *e != ' ')
		e++;
	if (e == d)
		return false;
	struct llog_load *l = llog_cur(lg, ln->t, ln->t_wall);
	struct llog_layer_dev *ld = NULL;
	for (int i = 0; i < l->n_layer_devs; i++)
		if (strlen(l->layer_devs[i].device) == (size_t)(e - d) && memcmp(l->layer_devs[i].device, d, (size_t)(e - d)) == 0)
			ld = &l->layer_devs[i];
	if (!ld) {
		if (l->n_layer_devs == LLOG_MAX_LAYER_DEVS)
			return true;
		ld = &l->layer_devs[l->n_layer_devs++];
		memset(ld, 0, sizeof *ld);
		ls_copy(ld->device, sizeof ld->device, d, (size_t)(e - d));
		ld->first = ld->last = (int32_t)layer;
	}
	ld->n_layers++;
	if ((int32_t)layer < ld->first)
		ld->first = (int32_t)layer;
	if ((int32_t)layer > ld->last)
		ld->last = (int32_t)layer;
	const char *sw = ls_find(e, ln->end, "is_swa = ");
	if (sw && sw + 9 < ln->end && sw[9] == '1')
		ld->n_swa++;
	return true;
}

/* 2023: `llm_load_tensors: VRAM used: 11061.02 MB`, `llama_kv_cache_init: VRAM kv self = 32.00 MB`:
 * one GPU figure without a device name ("MB" there is 2^20 bytes). */
bool llog_parse_vram_used(struct llama_log *lg, struct ls_line *ln)
{
	static const struct { const char *key; enum llog_seg seg; } forms[] = {
		{"VRAM used:", LLOG_WEIGHTS}, {"VRAM kv self =", LLOG_KV},
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		const char *k = ls_find(ln->msg, ln->end, forms[i].key);
		if (!k)
			continue;
		const char *q = k + strlen(forms[i].key);
		while (q < ln->end && *q == ' ')
			q++;
		double mib;
		uint64_t bytes;
		if (!ls_parse_decimal(&q, ln->end, &mib) || !ls_mib_to_bytes(mib, &bytes))
			return false;
		while (q < ln->end && *q == ' ')
			q++;
		if (!ls_find(q, ln->end, "MB") && !ls_find(q, ln->end, "MiB"))
			return false;
		llog_add_buffer(llog_cur(lg, ln->t, ln->t_wall), forms[i].seg, "GPU", 3, bytes, false);
		return true;
	}
	return false;
}
