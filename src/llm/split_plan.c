/* The device plan: llama.cpp's layer-to-device rule (llama-model.cpp
 * load_tensors: split points, get_layer_buft_list; llama.cpp: -sm none keeps
 * the -mg device only) over the header's tensors, KV and state per layer. */
#include "llm/split_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "llm/arch.h"
#include "llm/estimate_internal.h"

static void note(struct split_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct split_plan *p, const char *fmt, ...)
{
	va_list ap;
	if (p->n_notes >= SPLIT_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->n_notes++], sizeof p->notes[0], fmt, ap);
	va_end(ap);
}

void split_points(const float *w, size_t n, float *cum)
{
	float sum = 0.0f;
	for (size_t i = 0; i < n; i++) {
		sum += w[i];
		cum[i] = sum;
	}
	for (size_t i = 0; i < n; i++) /* nothing to go by (all 0): equal shares */
		cum[i] = sum > 0.0f ? cum[i] / sum : (float)(i + 1) / (float)n;
}

int split_layer_device(const float *cum, size_t n, uint32_t n_layer, uint32_t ngl, uint32_t il)
{
	/* -ngl counts n_layer + 1 slots from the top: the output layer first */
	int64_t start = (int64_t)n_layer + 1 - ngl, act = n ? (ngl < n_layer + 1 ? ngl : n_layer + 1) : 0;
	if (start < 0)
		start = 0;
	if ((int64_t)il < start || (int64_t)il - start >= act)
		return -1;
	/* the first split point above the layer's position (upper_bound), in
	 * float as llama.cpp computes it so that boundaries fall alike */
	float x = (float)((int64_t)il - start) / (float)act;
	for (size_t k = 0; k < n; k++)
		if (cum[k] > x)
			return (int)k;
	return (int)n - 1;
}

/* Everything the tensor pass needs. */
struct pass {
	const struct llama_flags *f;
	struct split_plan *p;
	size_t used[SPLIT_MAX_DEVICES]; /* llama.cpp's device list: indexes into p->dev */
	size_t n_used;
	float cum[SPLIT_MAX_DEVICES];   /* layer split points over the used devices */
	float row_cum[SPLIT_MAX_DEVICES];
	uint32_t ngl;
	bool row_split, tensor_split;
};

/* The p->dev index of layer il's device, or -1 for the host. */
static int layer_dev(const struct pass *s, uint32_t il)
{
	int k = split_layer_device(s->cum, s->n_used, s->p->n_layer, s->ngl, il);
	return k < 0 ? -1 : (int)s->used[k];
}

/* n units (rows, bytes) over the used devices by cumulative shares cum:
 * device k gets [n*cum[k-1], n*cum[k]) rounded down. */
static void spread(const struct pass *s, const float *cum, uint64_t rows, uint64_t row_bytes, uint64_t *field_of_dev0,
		   size_t stride)
{
	uint64_t lo = 0;
	for (size_t k = 0; k < s->n_used; k++) {
		uint64_t hi = k + 1 == s->n_used ? rows : (uint64_t)((double)rows * (double)cum[k]);
		if (hi < lo)
			hi = lo;
		uint64_t *field = (uint64_t *)((char *)field_of_dev0 + stride * s->used[k]);
		*field = sat_add(*field, sat_mul(hi - lo, row_bytes));
		lo = hi;
	}
}

/* A tensor of a GPU layer onto its device, or its rows across devices. */
static void put_tensor(struct pass *s, const struct gguf_tensor *t, int d)
{
	struct split_plan *p = s->p;
	uint64_t rows = t->ne[1] * t->ne[2] * t->ne[3];
	/* -sm row: the split buffer takes matrix weights (MUL_MAT, 2-D); -sm
	 * tensor splits every weight */
	bool split = (s->row_split && t->n_dims == 2 && t->ne[1] > 1) || s->tensor_split;
	if (split && rows && t->nbytes % rows == 0) {
		spread(s, s->row_cum, rows, t->nbytes / rows, &p->dev[0].weights, sizeof p->dev[0]);
		return;
	}
	p->dev[d].weights = sat_add(p->dev[d].weights, t->nbytes);
}

static void place_weights(struct pass *s, const struct gguf_header *h)
{
	struct split_plan *p = s->p;
	struct estimate scratch = {0}; /* override notes: the estimate already has them */
	struct est_rules *rules = est_rules_new(s->f, p->n_layer, &scratch);
	const struct gguf_tensor *embd = NULL;
	bool overridden = false;
	for (uint64_t i = 0; i < h->n_tensors; i++) {
		const struct gguf_tensor *t = &h->tensors[i];
		long home = est_tensor_home(t->name, p->n_layer);
		int to_host = est_rules_match(rules, t->name), d;
		if (strcmp(t->name, "token_embd.weight") == 0)
			embd = t;
		if (home == EST_HOME_INPUT || to_host == 1)
			continue; /* host: the estimate's CPU_Mapped / CPU figures */
		d = layer_dev(s, (uint32_t)home);
		if (d < 0 && to_host == 0 && s->n_used) {
			d = (int)s->used[0]; /* -ot to a GPU buffer: planned on the first device */
			overridden = true;
		}
		if (d >= 0)
			put_tensor(s, t, d);
	}
	/* tied output: token_embd again, as an output tensor on the output device */
	int od = layer_dev(s, p->n_layer);
	if (embd && od >= 0 && !gguf_find_tensor(h, "output.weight"))
		put_tensor(s, embd, od);
	if (overridden)
		note(p, "a tensor override sends CPU-layer tensors to a GPU buffer: planned on the first device");
	est_rules_free(rules);
}

/* KV and recurrent state follow their layer's device (llama-kv-cache.cpp
 * dev_layer); -nkvo keeps them on the host; -sm tensor splits them. */
static bool place_cache(struct pass *s, const struct gguf_header *h, const struct estimate *e, char *err, size_t n)
{
	struct split_plan *p = s->p;
	struct arch_model m;
	struct estimate scratch = *e;
	if (!arch_model_load(h, &m, err, n))
		return false;
	uint64_t *kv = xcalloc(m.n_layer ? m.n_layer : 1, sizeof *kv), *rs = xcalloc(m.n_layer ? m.n_layer : 1, sizeof *rs);
	estimate_kv_layers(&m, s->f, &scratch, kv, rs);
	for (uint32_t il = 0; il < m.n_layer && il < p->n_layer; il++) {
		int d = s->f->no_kv_offload ? -1 : layer_dev(s, il);
		if (d < 0) {
			p->host_kv = sat_add(p->host_kv, sat_add(kv[il], rs[il]));
		} else if (s->tensor_split) {
			spread(s, s->row_cum, kv[il], 1, &p->dev[0].kv, sizeof p->dev[0]);
			spread(s, s->row_cum, rs[il], 1, &p->dev[0].rs, sizeof p->dev[0]);
		} else {
			p->dev[d].kv = sat_add(p->dev[d].kv, kv[il]);
			p->dev[d].rs = sat_add(p->dev[d].rs, rs[il]);
		}
	}
	free(kv);
	free(rs);
	arch_model_free(&m);
	return true;
}

static uint64_t arch_u64_or(const struct gguf_header *h, const char *key, uint64_t dflt)
{
	uint64_t v = 0;
	return gguf_get_arch_u64(h, key, &v) && v ? v : dflt;
}

/* A compute buffer by a rough rule, since llama.cpp has none: it sizes the
 * buffer from the graph (sched_reserve). Per device, the largest of one
 * ubatch's attention (the mask, and without flash attention the scores of
 * every head), its feed-forward activations, and on the output device the
 * logits; x4 copies under pipeline parallelism. Errs high on small models
 * (Qwen3-0.6B at 40960 cells: 296.75 MiB here, 264.04 MiB measured). */
static void compute_buffers(struct pass *s, const struct gguf_header *h, const struct estimate *e)
{
	struct split_plan *p = s->p;
	uint64_t tok = e->n_ubatch, cells = e->kv_cells, embd = arch_u64_or(h, "embedding_length", 0);
	uint64_t head = arch_u64_or(h, "attention.head_count", 1);
	uint64_t ff = arch_u64_or(h, "feed_forward_length", 4 * embd);
	uint64_t used = arch_u64_or(h, "expert_used_count", 0), eff = arch_u64_or(h, "expert_feed_forward_length", 0);
	if (used && eff)
		ff = used * eff > ff ? used * eff : ff;
	uint64_t mask = sat_mul(sat_mul(cells, tok), 4);
	uint64_t attn = e->flash_attn ? sat_add(mask, sat_mul(sat_mul(tok, embd), 16))
				      : sat_add(mask, sat_mul(sat_mul(sat_mul(cells, tok), head), 4));
	uint64_t ffn = sat_mul(sat_mul(tok, ff), 12);
	uint64_t layer = sat_add(attn > ffn ? attn : ffn, sat_mul(sat_mul(tok, embd), 8));
	uint64_t logits = sat_mul(sat_mul(e->n_vocab, tok), 4);
	for (size_t i = 0; i < p->n_dev; i++) {
		struct split_device *d = &p->dev[i];
		uint64_t c = d->n_layers || (d->weights && s->row_split) ? layer : 0;
		if (d->output && logits > c)
			c = logits;
		d->compute = p->pipeline ? sat_mul(c, SPLIT_PIPELINE_COPIES) : c;
	}
}

/* llama.cpp's device list and its split points (llama.cpp, llama-model.cpp). */
static bool choose_devices(struct pass *s, const struct split_device_in *devs, size_t n)
{
	struct split_plan *p = s->p;
	const struct llama_flags *f = s->f;
	float w[SPLIT_MAX_DEVICES] = {0}, rw[SPLIT_MAX_DEVICES] = {0};
	bool ts_given = false, totals = true;
	for (size_t i = 0; i < n; i++) {
		struct split_device *d = &p->dev[i];
		snprintf(d->name, sizeof d->name, "%s", devs[i].name);
		d->free_bytes = devs[i].free_bytes;
		d->total_bytes = devs[i].total_bytes;
		d->first_layer = d->last_layer = -1;
		d->overhead = SPLIT_CONTEXT_OVERHEAD; /* every visible device gets a context */
	}
	p->n_dev = n;
	if (f->split_mode == LLAMA_SM_NONE) {
		if (f->main_gpu >= (int32_t)n) {
			p->refused = true;
			note(p, "llama.cpp refuses -sm none -mg %d: only %u device%s", f->main_gpu, (unsigned)n, n == 1 ? "" : "s");
			return false;
		}
		if (f->main_gpu >= 0)
			s->used[s->n_used++] = (size_t)f->main_gpu;
	} else {
		for (size_t i = 0; i < n; i++)
			s->used[s->n_used++] = i;
	}
	for (size_t k = 0; k < s->n_used; k++) {
		size_t i = s->used[k];
		ts_given |= k < f->n_tensor_split && f->tensor_split[k] > 0.0f;
		totals &= p->dev[i].total_bytes > 0;
	}
	/* -ts when any entry is not 0, else each device's free memory */
	for (size_t k = 0; k < s->n_used; k++) {
		size_t i = s->used[k];
		w[k] = ts_given ? (k < f->n_tensor_split ? f->tensor_split[k] : 0.0f) : (float)p->dev[i].free_bytes;
		/* CUDA's row split without -ts goes by total memory (default_tensor_split) */
		rw[k] = ts_given ? w[k] : totals ? (float)p->dev[i].total_bytes : (float)p->dev[i].free_bytes;
	}
	p->layers_by = ts_given ? SPLIT_BY_TS : SPLIT_BY_FREE;
	p->rows_by = ts_given ? SPLIT_BY_TS : totals ? SPLIT_BY_TOTAL : SPLIT_BY_FREE;
	split_points(w, s->n_used, s->cum);
	split_points(rw, s->n_used, s->row_cum);
	for (size_t k = 0; k < s->n_used; k++)
		p->dev[s->used[k]].share = s->cum[k] - (k ? s->cum[k - 1] : 0.0f);
	if (f->n_tensor_split > n)
		note(p, "-ts gives %u proportions for %u devices: the extra ones are unused",
		     (unsigned)f->n_tensor_split, (unsigned)n);
	return true;
}

/* Which layers each device holds, the output layer's device, CPU layers. */
static void assign_layers(struct pass *s)
{
	struct split_plan *p = s->p;
	for (uint32_t il = 0; il <= p->n_layer; il++) {
		int d = layer_dev(s, il);
		if (il == p->n_layer) {
			p->output_on_host = d < 0;
			if (d >= 0)
				p->dev[d].output = true;
		} else if (d < 0) {
			p->host_layers++;
		} else {
			struct split_device *x = &p->dev[d];
			if (x->first_layer < 0)
				x->first_layer = (int32_t)il;
			x->last_layer = (int32_t)il;
			x->n_layers++;
		}
	}
}

static void mode_notes(struct pass *s)
{
	struct split_plan *p = s->p;
	if (s->row_split)
		note(p, "-sm row approximated: each device's rows of a split matrix in exact proportion (ggml rounds "
			"them); norms, KV and state with the layer's device, as current llama.cpp builds place them");
	if (s->tensor_split)
		note(p, "-sm tensor (experimental) approximated: every weight, KV and state of GPU layers split in "
			"proportion across the devices");
	if (p->pipeline)
		note(p, "pipeline parallelism (several devices, every layer offloaded, -sm layer): compute buffers "
			"x%u copies", SPLIT_PIPELINE_COPIES);
	if (p->layers_by == SPLIT_BY_FREE && s->n_used > 1)
		note(p, "no -ts: llama.cpp splits by each device's free memory at load time; "
			"free memory then may differ from now");
}

bool split_plan_make(const struct gguf_header *h, const struct llama_flags *f, const struct estimate *e,
		     const struct split_device_in *devs, size_t n, struct split_plan *p, char *err, size_t errlen)
{
	struct pass s = {.f = f, .p = p};
	memset(p, 0, sizeof *p);
	if (n == 0 || n > SPLIT_MAX_DEVICES) {
		snprintf(err, errlen, n ? "more than %d devices" : "no device to plan on", SPLIT_MAX_DEVICES);
		return false;
	}
	p->mode = f->split_mode;
	p->main_gpu = f->main_gpu;
	p->n_layer = e->n_layer;
	p->host_weights = e->weights_host;
	s.ngl = e->gpu_layers + (e->output_on_gpu ? 1u : 0u);
	s.row_split = f->split_mode == LLAMA_SM_ROW;
	s.tensor_split = f->split_mode == LLAMA_SM_TENSOR;
	if (choose_devices(&s, devs, n)) {
		assign_layers(&s);
		place_weights(&s, h);
		if (!place_cache(&s, h, e, err, errlen))
			return false;
	}
	p->pipeline = s.n_used > 1 && f->split_mode == LLAMA_SM_LAYER && p->host_layers == 0 && !p->output_on_host &&
		      !f->no_kv_offload && f->n_ot == 0 && !f->cpu_moe && f->n_cpu_moe == 0;
	compute_buffers(&s, h, e);
	mode_notes(&s);
	p->refused |= e->refused; /* e.g. a quantized V cache without flash attention */
	p->all_fit = !p->refused;
	for (size_t i = 0; i < p->n_dev; i++) {
		struct split_device *d = &p->dev[i];
		d->used = false;
		for (size_t k = 0; k < s.n_used; k++)
			d->used |= s.used[k] == i;
		d->need = sat_add(sat_add(sat_add(sat_add(d->weights, d->kv), d->rs), d->compute), d->overhead);
		d->fits = d->need <= d->free_bytes;
		p->all_fit &= d->fits;
	}
	return true;
}
