/* The breakdown per GPU: for each GPU the process uses, what the runtime
 * reported there (weights, KV, compute, the rest of its buffers), the layers
 * the log placed there, and the rest of the driver's measurement, each from
 * the segments breakdown_build made (so their provenance stays theirs). */
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/util.h"
#include "explain/breakdown.h"

static struct ex_device *dev_of(struct gtm_explain *e, int gpu)
{
	for (int i = 0; i < e->n_devs; i++)
		if (e->devs[i].gpu == gpu)
			return &e->devs[i];
	if (e->n_devs == EX_MAX_DEVS)
		return NULL;
	struct ex_device *d = &e->devs[e->n_devs++];
	memset(d, 0, sizeof *d);
	d->gpu = gpu;
	d->layers = d->first_layer = d->last_layer = -1;
	d->measured = d->rest = GTM_U64_NA;
	return d;
}

static void add_reported(struct ex_device *d, const struct ex_segment *s)
{
	uint64_t *slot = s->seg == EX_SEG_WEIGHTS ? &d->weights : s->seg == EX_SEG_KV ? &d->kv
						      : s->seg == EX_SEG_COMPUTE ? &d->compute : &d->other;
	*slot += s->bytes.v;
	d->reported = true;
	d->api |= s->src == EX_SRC_API;
	if (!d->runtime_dev[0] && s->src == EX_SRC_LOG)
		str_copy(d->runtime_dev, s->device, sizeof d->runtime_dev);
	if (s->join > d->join)
		d->join = s->join;
}

/* The layers -lv 4 placed on the runtime device of d, else the layers
 * Ollama's load request gave d's UUID. */
static void layers_of(struct ex_device *d, const struct llog_load *l)
{
	for (int i = 0; l && d->uuid[0] && i < l->n_gpu_req; i++)
		if (!strcmp(l->gpu_req[i].id, d->uuid) && l->gpu_req[i].layers >= 0) {
			d->layers = l->gpu_req[i].layers;
			d->first_layer = l->gpu_req[i].first;
			d->last_layer = l->gpu_req[i].last;
		}
	for (int i = 0; l && d->runtime_dev[0] && i < l->n_layer_devs; i++)
		if (!strcmp(l->layer_devs[i].device, d->runtime_dev)) {
			d->layers = (int32_t)l->layer_devs[i].n_layers;
			d->first_layer = l->layer_devs[i].first;
			d->last_layer = l->layer_devs[i].last;
		}
}

/* One note for the joins that are not exact: which name went where, and why. */
static void join_note(struct gtm_explain *e)
{
	char named[96] = "", guessed[96] = "";
	int order[EX_MAX_DEVS];
	for (int i = 0; i < e->n_devs; i++) { /* by runtime name: CUDA0, CUDA1, ... */
		int k = i;
		while (k > 0 && strcmp(e->devs[order[k - 1]].runtime_dev, e->devs[i].runtime_dev) > 0) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	for (int i = 0; i < e->n_devs; i++) {
		const struct ex_device *d = &e->devs[order[i]];
		char *buf = d->join == EX_JOIN_NAME ? named : d->join == EX_JOIN_GUESS ? guessed : NULL;
		if (!buf || !d->runtime_dev[0])
			continue;
		size_t len = strlen(buf);
		snprintf(buf + len, 96 - len, "%s%.32s -> GPU %d%s", len ? ", " : "", d->runtime_dev, d->gpu,
			 ex_join_mark(d->join));
	}
	if (named[0])
		ex_add_note(e, "%s: joined by device name (and free memory at load): the log prints no PCI bus id", named);
	if (guessed[0])
		ex_add_note(e, "%s: a guess by order (no PCI bus id in the log, the name not unique); CUDA numbers "
			       "follow CUDA_VISIBLE_DEVICES, not the driver's order", guessed);
}

void breakdown_devices(struct gtm_explain *e, const struct bd_input *in)
{
	e->n_devs = 0;
	for (int u = 0; u < in->p->n_uses; u++)
		if (dev_of(e, in->p->uses[u].dev_index) == NULL)
			break;
	for (int i = 0; i < e->n_segs; i++) {
		const struct ex_segment *s = &e->segs[i];
		struct ex_device *d;
		if (s->host || s->gpu < 0 || !gtm_u64_ok(s->bytes))
			continue;
		if (s->src == EX_SRC_LOG || s->src == EX_SRC_API) {
			if ((d = dev_of(e, s->gpu)))
				add_reported(d, s);
		} else if (s->src == EX_SRC_REMAINDER && (d = dev_of(e, s->gpu))) {
			d->rest = s->bytes;
			if (s->join > d->join)
				d->join = s->join;
		}
	}
	int api_multi = 0;
	for (int i = 0; i < e->n_devs; i++) {
		e->devs[i].measured = breakdown_measured_on(in->p, e->devs[i].gpu);
		for (int d = 0; d < in->snap->n_devices; d++)
			if (in->snap->devices[d].index == e->devs[i].gpu)
				str_copy(e->devs[i].uuid, in->snap->devices[d].uuid, sizeof e->devs[i].uuid);
		layers_of(&e->devs[i], in->load);
	}
	for (int i = 0; i < e->n_segs; i++)
		api_multi += e->segs[i].src == EX_SRC_API && !e->segs[i].host && e->segs[i].gpu < 0;
	join_note(e);
	uint32_t host_layers = 0;
	for (int i = 0; in->load && i < in->load->n_layer_devs; i++)
		if (llog_device_is_host(in->load->layer_devs[i].device))
			host_layers += in->load->layer_devs[i].n_layers;
	if (host_layers)
		ex_add_note(e, "%u layer%s on the CPU (the log's layer placement; the input layer always is)", host_layers,
			    host_layers == 1 ? "" : "s");
	for (int i = 0; i < e->n_segs; i++)
		if (e->segs[i].src == EX_SRC_LOG && strstr(e->segs[i].device, "_Split")) {
			ex_add_note(e, "%.32s: a row split (-sm row) over the GPUs; its part on each GPU is not logged, so "
				       "each GPU's rest includes it",
				    e->segs[i].device);
			break;
		}
	if (api_multi && e->n_devs > 1)
		ex_add_note(e, "the API gives one VRAM figure for the model across %d GPUs: its split per GPU is not "
			       "reported",
			    e->n_devs);
}
