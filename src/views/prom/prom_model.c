/* Per-model families: the models a kept process holds, the breakdown's
 * segments on each GPU with one source per (process, GPU), and the context
 * size its log reports. */
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "llm/gguf_info.h"
#include "views/prom/prom_internal.h"

static const struct prom_family f_info = {"gputaskman_model_info", "gauge",
	"A model a process holds (value 1): name, file base name, role, kind and quantization from the GGUF header, "
	"the evidence that ties it to the process, and whether two sources confirm it."};
static const struct prom_family f_mem = {"gputaskman_model_memory_bytes", "gauge",
	"GPU memory of a process's model by segment (weights, kv_cache, compute, output, other), from one source per "
	"process and GPU: the runtime's log, else its API, else the estimate from the GGUF header and flags."};
static const struct prom_family f_ctx = {"gputaskman_model_context_tokens", "gauge",
	"Context size (KV cells) of a process's current load, as its log reports it."};

/* The process's main model: the first proven one with the model role, else
 * the first proven one. */
static const struct ident_model *main_model(const struct gtm_process *p)
{
	const struct ident_model *any = NULL;
	for (int i = 0; p->ident && i < p->ident->n_models; i++) {
		const struct ident_model *m = &p->ident->models[i];
		if (ident_model_unproven(m))
			continue;
		if (m->role == MODEL_ROLE_MODEL)
			return m;
		if (!any)
			any = m;
	}
	return any;
}

static const char *model_name(const struct ident_model *m)
{
	if (!m)
		return NULL;
	if (m->name && m->name[0])
		return m->name;
	return m->path ? path_base(m->path) : NULL;
}

static void write_info(const struct prom_selection *sel, struct prom_out *o)
{
	prom_family(o, &f_info);
	for (int i = 0; i < sel->kept; i++) {
		const struct prom_proc *pp = &sel->procs[i];
		for (int k = 0; pp->p->ident && k < pp->p->ident->n_models; k++) {
			const struct ident_model *m = &pp->p->ident->models[k];
			char ev[96] = "";
			if (ident_model_unproven(m))
				continue; /* installed in a store: proves nothing about loading */
			for (int e = 0; e < MODEL_EV_COUNT; e++) {
				size_t len = strlen(ev);
				if (m->evidence & (1u << e))
					snprintf(ev + len, sizeof ev - len, "%s%s", len ? "," : "",
						 model_evidence_name((enum model_evidence)e));
			}
			prom_add_label(o, "pid", pp->pid);
			prom_add_label(o, "model", model_name(m));
			prom_add_label(o, "file", m->path ? path_base(m->path) : NULL);
			prom_add_label(o, "role", model_role_name(m->role));
			prom_add_label(o, "runtime", pp->runtime);
			if (m->have_info) {
				prom_add_label(o, "kind", gguf_kind_name(m->info.kind));
				prom_add_label(o, "quant", m->info.quant);
			}
			prom_add_label(o, "evidence", ev);
			prom_add_label(o, "confirmed", ident_model_confirmed(m) ? "true" : "false");
			prom_write(o, 1);
		}
	}
}

/* The exported segment of a breakdown segment; NULL for the remainder, which
 * is the process's measured VRAM minus the reports, not the model's. */
static const char *segment_name(enum ex_seg s)
{
	switch (s) {
	case EX_SEG_WEIGHTS: return "weights";
	case EX_SEG_KV: return "kv_cache";
	case EX_SEG_COMPUTE: return "compute";
	case EX_SEG_OUTPUT: return "output";
	case EX_SEG_RS:            /* recurrent state */
	case EX_SEG_RUNTIME_TOTAL: /* a runtime's one figure (Ollama's size_vram) */
		return "other";
	default: return NULL;
	}
}

static const char *const segments[] = {"weights", "kv_cache", "compute", "output", "other"};

/* A segment that may be exported: on a known GPU (not one guessed by order:
 * a series must not put a model's bytes on the wrong GPU), with bytes, from
 * the log, the API or an estimate of what is resident. */
static bool usable(const struct ex_segment *s)
{
	return !s->host && s->gpu >= 0 && s->join != EX_JOIN_GUESS && gtm_u64_ok(s->bytes) && !s->planned &&
	       !s->superseded && s->src != EX_SRC_REMAINDER && segment_name(s->seg);
}

static void write_segments(const struct prom_proc *pp, struct prom_out *o)
{
	const struct gtm_explain *e = pp->p->explain;
	const char *model = model_name(main_model(pp->p));
	for (int k = 0; k < pp->n_uses; k++) {
		int gpu = pp->uses[k].gpu;
		enum ex_src best = EX_SRC_REMAINDER;
		for (int i = 0; i < e->n_segs; i++)
			if (usable(&e->segs[i]) && e->segs[i].gpu == gpu && e->segs[i].src < best)
				best = e->segs[i].src;
		if (best == EX_SRC_REMAINDER)
			continue;
		for (size_t n = 0; n < ARRAY_LEN(segments); n++) {
			uint64_t sum = 0;
			bool any = false;
			for (int i = 0; i < e->n_segs; i++) {
				const struct ex_segment *s = &e->segs[i];
				if (usable(s) && s->gpu == gpu && s->src == best && !strcmp(segment_name(s->seg), segments[n])) {
					sum += s->bytes.v;
					any = true;
				}
			}
			if (!any)
				continue;
			const struct prom_use *u = &pp->uses[k];
			prom_add_label_int(o, "gpu", u->dev ? prom_gpu_number(u->dev) : gpu);
			prom_add_label(o, "pid", pp->pid);
			prom_add_label(o, "model", model);
			prom_add_label(o, "segment", segments[n]);
			prom_add_label(o, "source", ex_src_name(best));
			prom_use_identity(o, u);
			prom_write_u64(o, sum);
		}
	}
}

void prom_render_models(const struct prom_selection *sel, struct prom_out *o)
{
	write_info(sel, o);
	prom_family(o, &f_mem);
	for (int i = 0; i < sel->kept; i++)
		if (sel->procs[i].p->explain)
			write_segments(&sel->procs[i], o);
	prom_family(o, &f_ctx);
	for (int i = 0; i < sel->kept; i++) {
		const struct prom_proc *pp = &sel->procs[i];
		const struct gtm_explain *e = pp->p->explain;
		if (!e || !e->log.present || strcmp(e->log.state, "current") != 0 || e->log.n_ctx <= 0)
			continue;
		prom_add_label(o, "pid", pp->pid);
		prom_add_label(o, "model", model_name(main_model(pp->p)));
		prom_add_label(o, "source", "log");
		prom_write(o, (double)e->log.n_ctx);
	}
}
