/* The breakdown: what the runtime reported, per device; what remains of the
 * measured VRAM (runtime overhead/unknown, never an exact CUDA context); and
 * the estimate beside them. Reported and estimated bytes are never added into
 * measured totals: the remainder is the only figure derived from a measured one. */
#include "explain/breakdown.h"

#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/util.h"
#include "identify/ident.h"
#include "llm/estimate.h"

bool breakdown_disagree(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a, big = a > b ? a : b;
	return d > MIB && d * 50 > big;
}

static const enum ex_seg seg_of_log[LLOG_SEG_COUNT] = {
	[LLOG_WEIGHTS] = EX_SEG_WEIGHTS, [LLOG_KV] = EX_SEG_KV, [LLOG_RS] = EX_SEG_RS,
	[LLOG_COMPUTE] = EX_SEG_COMPUTE, [LLOG_OUTPUT] = EX_SEG_OUTPUT,
};

static int single_gpu(const struct gtm_process *p)
{
	int g = -1;
	for (int i = 0; i < p->n_uses; i++) {
		if (g >= 0 && p->uses[i].dev_index != g)
			return -1;
		g = p->uses[i].dev_index;
	}
	return g;
}

static void log_segments(struct gtm_explain *e, const struct bd_input *in)
{
	const struct llog_load *l = in->load;
	for (int i = 0; i < l->n_buffers; i++) {
		const struct llog_buffer *b = &l->buffers[i];
		struct ex_segment *s = ex_add_seg(e, seg_of_log[b->seg], EX_SRC_LOG, b->device);
		if (!s)
			return;
		s->host = llog_device_is_host(b->device);
		s->gpu = s->host ? -1 : breakdown_join_device(in->snap, in->p, l, b->device, &s->join);
		s->bytes = gtm_u64_of(b->bytes, GTM_REPORTED);
		s->approx = b->approx;
		if (l->runtime_estimate)
			str_copy(s->note, "Ollama's own estimate before loading", sizeof s->note);
		else if (!strcmp(b->device, "CPU_Mapped"))
			str_copy(s->note, "file span mapped from disk (mmap), not a copy", sizeof s->note);
	}
}

/* Without buffer lines, the memory-breakdown table's device rows (whole MiB;
 * the fitting table is llama.cpp's projection from a dry run). "context" is
 * the llama_context's memory: KV cache, output and recurrent state together. */
static void table_segments(struct gtm_explain *e, const struct bd_input *in)
{
	const struct llog_bd_table *t = in->load->bd_final.n_rows ? &in->load->bd_final : &in->load->bd_fit;
	static const struct { enum ex_seg seg; const char *note; } parts[3] = {
		{EX_SEG_WEIGHTS, "memory-breakdown table, whole MiB"},
		{EX_SEG_KV, "memory-breakdown table \"context\": KV + output + recurrent state, whole MiB"},
		{EX_SEG_COMPUTE, "memory-breakdown table, whole MiB"},
	};
	for (int i = 0; i < t->n_rows; i++) {
		const struct llog_bd_row *r = &t->rows[i];
		int64_t v[3] = {r->model, r->context, r->compute};
		bool host = llog_device_is_host(r->device) || r->total < 0;
		for (int k = 0; k < 3; k++) {
			struct ex_segment *s;
			if (v[k] <= 0 || !(s = ex_add_seg(e, parts[k].seg, EX_SRC_LOG, r->device)))
				continue;
			s->host = host;
			s->gpu = host ? -1 : breakdown_join_device(in->snap, in->p, in->load, r->device, &s->join);
			s->bytes = gtm_u64_of((uint64_t)v[k] << 20, GTM_REPORTED);
			s->approx = true;
			snprintf(s->note, sizeof s->note, "%s%s", t == &in->load->bd_fit ? "projected while fitting; " : "",
				 parts[k].note);
		}
	}
}

static void api_segments(struct gtm_explain *e, const struct bd_input *in)
{
	const struct ex_server_model *m = in->api;
	if (!gtm_u64_ok(m->size_vram) && !gtm_u64_ok(m->size))
		return;
	if (gtm_u64_ok(m->size_vram)) {
		struct ex_segment *s = ex_add_seg(e, EX_SEG_RUNTIME_TOTAL, EX_SRC_API, "GPU");
		if (s) {
			s->gpu = single_gpu(in->p);
			s->join = s->gpu >= 0 ? EX_JOIN_ONLY : EX_JOIN_NONE;
			s->bytes = m->size_vram;
			snprintf(s->note, sizeof s->note, "%.40s: weights + KV + compute on the GPU (size_vram)", m->name);
		}
	}
	if (gtm_u64_ok(m->size) && gtm_u64_ok(m->size_vram) && m->size.v >= m->size_vram.v) {
		struct ex_segment *s = ex_add_seg(e, EX_SEG_RUNTIME_TOTAL, EX_SRC_API, "Host");
		if (s) {
			s->host = true;
			s->gpu = -1;
			s->bytes = gtm_u64_of(m->size.v - m->size_vram.v, GTM_REPORTED);
			snprintf(s->note, sizeof s->note, "%.40s: size - size_vram", m->name);
		}
	}
}

/* Measured VRAM on one device: the sum of the process's uses there; N/A
 * when any of them is not measured (a part is not the whole). A size matched
 * to the process (WSL2's '*'/'?' contexts) keeps that provenance. */
gtm_u64 breakdown_measured_on(const struct gtm_process *p, int dev)
{
	uint64_t sum = 0;
	enum gtm_prov prov = GTM_MEASURED;
	for (int i = 0; i < p->n_uses; i++) {
		if (p->uses[i].dev_index != dev)
			continue;
		if (!gtm_u64_ok(p->uses[i].vram))
			return GTM_U64_NA;
		sum += p->uses[i].vram.v;
		if (p->uses[i].vram.prov == GTM_MATCHED || p->uses[i].vram.prov == GTM_GUESSED)
			prov = prov == GTM_GUESSED ? prov : p->uses[i].vram.prov;
	}
	return gtm_u64_of(sum, prov);
}

/* What the runtime reported on one device (log and API segments). */
static uint64_t reported_on(const struct gtm_explain *e, int n_segs, int dev, bool *any)
{
	uint64_t rep = 0;
	*any = false;
	for (int i = 0; i < n_segs; i++) {
		const struct ex_segment *s = &e->segs[i];
		if (s->gpu == dev && !s->host && (s->src == EX_SRC_LOG || s->src == EX_SRC_API)) {
			rep += s->bytes.v;
			*any = true;
		}
	}
	return rep;
}

/* The remainder's bytes, provenance and note, which say the same thing: with
 * nothing reported on the GPU it is the measurement itself (its provenance);
 * measured minus reported is a derived figure, estimated. */
static void remainder_of(struct ex_segment *s, gtm_u64 vram, uint64_t rep, bool any)
{
	static const char *const what[] = {[GTM_MEASURED] = "measured", [GTM_MATCHED] = "matched (WSL context *)",
					   [GTM_GUESSED] = "guessed (WSL context ?)"};
	const char *w = (size_t)vram.prov < ARRAY_LEN(what) && what[vram.prov] ? what[vram.prov] : "measured";

	s->bytes = any ? gtm_u64_of(vram.v - rep, GTM_ESTIMATED) : vram;
	if (any)
		snprintf(s->note, sizeof s->note, "estimated: %s minus reported, runtime overhead/unknown%s", w,
			 vram.prov == GTM_MEASURED ? ", not an exact CUDA context" : "");
	else
		snprintf(s->note, sizeof s->note, "%s, nothing reported on this GPU: context + runtime overhead/unknown", w);
}

/* For every GPU the process uses, one "runtime overhead/unknown" line: its
 * measured VRAM minus what the runtime reported there (all of it when the
 * runtime reported nothing there); N/A when the VRAM is not measured, or
 * when the reports exceed it. */
static void remainder_segments(struct gtm_explain *e, const struct bd_input *in)
{
	int n_reported = e->n_segs;
	for (int u = 0; u < in->p->n_uses; u++) {
		int dev = in->p->uses[u].dev_index;
		bool seen = false, any;
		for (int k = 0; k < u; k++)
			seen |= in->p->uses[k].dev_index == dev;
		if (seen)
			continue;
		gtm_u64 vram = breakdown_measured_on(in->p, dev);
		uint64_t rep = reported_on(e, n_reported, dev, &any);
		char name[32];
		snprintf(name, sizeof name, "GPU%d", dev);
		struct ex_segment *s = ex_add_seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, name);
		if (!s)
			return;
		s->gpu = dev;
		s->bytes = GTM_U64_NA;
		for (int i = 0; i < n_reported; i++) /* as sure as the weakest join of what it subtracts */
			if (e->segs[i].gpu == dev && e->segs[i].join > s->join)
				s->join = e->segs[i].join;
		if (!gtm_u64_ok(vram)) {
			str_copy(s->note, "runtime overhead/unknown: N/A, the VRAM on this GPU is not measured", sizeof s->note);
		} else if (vram.v < rep) {
			char a[32], b[32];
			str_copy(s->note, "runtime overhead/unknown: N/A, the reports exceed the measurement", sizeof s->note);
			ex_add_note(e, "GPU %d: reported %s exceeds the measured %s (load-time allocations vs now)", dev,
				    fmt_bytes_raw(a, sizeof a, rep), fmt_bytes_raw(b, sizeof b, vram.v));
		} else {
			remainder_of(s, vram, rep, any);
		}
	}
}

/* How the estimate's segments are labelled for this process. */
struct est_label {
	int gpu;           /* the one GPU the process uses, else -1 */
	bool planned;      /* the driver lists the process on no GPU */
	bool draft;        /* a draft model shares the process and is not estimated */
};

static void est_seg(struct gtm_explain *e, enum ex_seg seg, bool host, uint64_t bytes, const struct est_label *l)
{
	if (!bytes)
		return;
	struct ex_segment *s = ex_add_seg(e, seg, EX_SRC_ESTIMATE, host ? "Host" : "GPU");
	if (!s)
		return;
	s->host = host;
	s->gpu = host ? -1 : l->gpu;
	s->bytes = gtm_u64_of(bytes, GTM_ESTIMATED);
	s->planned = !host && l->planned;
	snprintf(s->note, sizeof s->note, "%s%s%s", l->draft ? "main model only" : "",
		 l->draft && s->planned ? "; " : "", s->planned ? "planned placement from the flags (no GPU use observed)" : "");
}

/* The draft model (-md) the process holds, or NULL. llama-server loads it
 * into the same process under its own flags (-cd, -ngld, -ctkd, -ctvd),
 * which are not read: it is named, not estimated. */
static const struct ident_model *draft_model(const struct gtm_process *p)
{
	for (int i = 0; p->ident && i < p->ident->n_models; i++)
		if (p->ident->models[i].role == MODEL_ROLE_DRAFT && !ident_model_unproven(&p->ident->models[i]))
			return &p->ident->models[i];
	return NULL;
}

static uint64_t reported_sum(const struct gtm_explain *e, enum ex_seg seg, bool host)
{
	uint64_t sum = 0;
	for (int i = 0; i < e->n_segs; i++)
		if (e->segs[i].src == EX_SRC_LOG && e->segs[i].seg == seg && e->segs[i].host == host)
			sum += e->segs[i].bytes.v;
	return sum;
}

static void compare(struct gtm_explain *e, const char *what, enum ex_seg seg, bool host, uint64_t est)
{
	uint64_t rep = reported_sum(e, seg, host);
	if (!rep || !est || !breakdown_disagree(rep, est))
		return;
	char a[32], b[32];
	e->estimate_disagrees = true;
	ex_add_note(e, "%s: the log says %s, the estimate %s; both are shown", what,
		    fmt_bytes_raw(a, sizeof a, rep), fmt_bytes_raw(b, sizeof b, est));
}

/* Whether a library that lets ggml reach a GPU is mapped: a GPU backend, a
 * GPU compute library (CUDA, HIP, OpenCL, ...; a static build still maps the
 * driver's), or Vulkan (a static Vulkan build). */
static bool maps_gpu_backend(const struct gtm_ident *id)
{
	static const char *const gpu_backends[] = {
		"ggml-cuda", "ggml-hip", "ggml-vulkan", "ggml-sycl", "ggml-opencl", "ggml-musa", "ggml-cann", "ggml-metal",
		"vulkan",
	};
	if (ident_find_trait(id, RT_T_COMPUTE))
		return true;
	for (size_t i = 0; i < ARRAY_LEN(gpu_backends); i++)
		if (ident_find_runtime(id, gpu_backends[i]))
			return true;
	return false;
}

/* A process with the ggml CPU backend mapped and no GPU backend or GPU
 * compute library (CUDA, HIP, ...) mapped: a CPU-only build. */
static bool cpu_only_build(const struct gtm_ident *id)
{
	return id && ident_find_runtime(id, "ggml-cpu") && !maps_gpu_backend(id);
}

bool explain_cpu_only_build(const struct gtm_process *p)
{
	const struct gtm_ident *id = p->ident;
	return id && p->detail && p->detail->n_maps > 0 && p->n_uses == 0 &&
	       (ident_find_runtime(id, "llama.cpp") || ident_find_runtime(id, "ggml")) && !maps_gpu_backend(id);
}

static const char *why_on_host(const struct bd_input *in)
{
	if (in->load->layers_offloaded == 0)
		return "it says 0 layers were offloaded to the GPU";
	if (cpu_only_build(in->p->ident))
		return "no GPU backend library is mapped (a CPU-only build)";
	return "it is what was allocated (-ngl, the build or free VRAM decide)";
}

/* The log puts a kind of buffer only in host memory where the estimate puts
 * it on the GPU (a CPU-only build, -ngl 0 from the environment, which the
 * estimate does not read): the log is what the runtime allocated, so it wins
 * and the estimate's GPU segments of that kind say they are superseded. */
static void log_wins_on_host(struct gtm_explain *e, const struct bd_input *in, const struct estimate *x)
{
	static const struct { enum ex_seg seg; const char *name; } kinds[] = {
		{EX_SEG_WEIGHTS, "weights"}, {EX_SEG_KV, "KV cache"}, {EX_SEG_RS, "recurrent state"},
	};
	const uint64_t est_gpu[] = {x->weights_gpu, x->kv_gpu, x->rs_gpu};
	char what[64] = "";
	for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
		if (!est_gpu[k] || reported_sum(e, kinds[k].seg, false) || !reported_sum(e, kinds[k].seg, true))
			continue;
		size_t len = strlen(what);
		snprintf(what + len, sizeof what - len, "%s%s", len ? ", " : "", kinds[k].name);
		for (int i = 0; i < e->n_segs; i++) {
			struct ex_segment *s = &e->segs[i];
			if (s->src != EX_SRC_ESTIMATE || s->seg != kinds[k].seg || s->host)
				continue;
			s->superseded = true;
			size_t nl = strlen(s->note);
			snprintf(s->note + nl, sizeof s->note - nl, "%sthe log puts this in host memory", nl ? "; " : "");
		}
	}
	if (!what[0])
		return;
	e->estimate_disagrees = true;
	ex_add_note(e, "%s: the log puts them in host memory, the estimate on the GPU; the log wins: %s", what,
		    why_on_host(in));
}

static void estimate_segments(struct gtm_explain *e, const struct bd_input *in)
{
	const struct estimate *x = in->est;
	const struct ident_model *draft = draft_model(in->p);
	const struct est_label l = {single_gpu(in->p), in->p->n_uses == 0, draft != NULL};
	const struct { enum ex_seg seg; bool host; uint64_t bytes; } parts[] = {
		{EX_SEG_WEIGHTS, false, x->weights_gpu}, {EX_SEG_WEIGHTS, true, x->weights_host},
		{EX_SEG_KV, false, x->kv_gpu}, {EX_SEG_KV, true, x->kv_host},
		{EX_SEG_RS, false, x->rs_gpu}, {EX_SEG_RS, true, x->rs_host},
	};
	for (size_t i = 0; i < ARRAY_LEN(parts); i++)
		est_seg(e, parts[i].seg, parts[i].host, parts[i].bytes, &l);
	if (l.planned && (x->weights_gpu || x->kv_gpu || x->rs_gpu))
		ex_add_note(e, "no GPU use observed: the estimate's GPU segments are the flags' planned placement, "
			       "not what is resident");
	if (draft)
		ex_add_note(e, "draft model %.48s (-md): not estimated (its own -cd/-ngld/-ctkd flags are not read); "
			       "the estimate segments are the main model's",
			    draft->name ? draft->name : draft->path ? draft->path : "?");
	if (!in->load || in->load->runtime_estimate)
		return;
	log_wins_on_host(e, in, x);
	if (draft) {
		ex_add_note(e, "log and estimate not compared: the log's buffers include the draft model's");
		return;
	}
	compare(e, "weights on the GPU", EX_SEG_WEIGHTS, false, x->weights_gpu);
	compare(e, "weights in host memory", EX_SEG_WEIGHTS, true, x->weights_host);
	uint64_t kv_log = reported_sum(e, EX_SEG_KV, false) + reported_sum(e, EX_SEG_KV, true);
	if (kv_log && x->kv_bytes && breakdown_disagree(kv_log, x->kv_bytes)) {
		char a[32], b[32];
		e->estimate_disagrees = true;
		ex_add_note(e, "KV cache: the log says %s, the estimate %s; both are shown",
			    fmt_bytes_raw(a, sizeof a, kv_log), fmt_bytes_raw(b, sizeof b, x->kv_bytes));
	}
}

void breakdown_build(struct gtm_explain *e, const struct bd_input *in)
{
	if (in->load && in->load->n_buffers)
		log_segments(e, in);
	else if (in->load && (in->load->bd_final.n_rows || in->load->bd_fit.n_rows))
		table_segments(e, in);
	else if (in->api)
		api_segments(e, in);
	remainder_segments(e, in);
	breakdown_devices(e, in);
	if (in->est)
		estimate_segments(e, in);
	bool reported = false;
	for (int i = 0; i < e->n_segs; i++)
		reported |= e->segs[i].src == EX_SRC_LOG;
	if (reported)
		ex_add_note(e, "log sizes are what the runtime allocated at load time, not proof of what is resident now");
	if (e->n_models > 1)
		ex_add_note(e, "%d models in one process: per-model KV accounting inside one process is not known",
			    e->n_models);
}

int breakdown_single_gpu(const struct gtm_process *p)
{
	return single_gpu(p);
}
