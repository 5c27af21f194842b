/* explain_process: logs → local APIs → estimate → breakdown → app adapters,
 * for one AI process of a snapshot. */
#include "explain/explain.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "explain/breakdown.h"
#include "explain/explain_internal.h"
#include "platform.h"
#include "identify/ident.h"
#include "llm/estimate.h"
#include "llm/gguf.h"

const char *ex_seg_name(enum ex_seg s)
{
	static const char *const names[EX_SEG_COUNT] = {
		"weights", "kv_cache", "recurrent_state", "compute", "output", "runtime_total", "overhead",
	};
	return (unsigned)s < EX_SEG_COUNT ? names[s] : "other";
}

const char *ex_src_name(enum ex_src s)
{
	static const char *const names[] = {"log", "api", "estimate", "remainder"};
	return (unsigned)s < ARRAY_LEN(names) ? names[s] : "unknown";
}

const char *ex_join_name(enum ex_join j)
{
	static const char *const names[] = {"", "pci", "uuid", "visible-devices", "single-gpu", "name", "guess"};
	return (unsigned)j < ARRAY_LEN(names) ? names[j] : "";
}

const char *ex_join_mark(enum ex_join j)
{
	return j == EX_JOIN_NAME ? "*" : j == EX_JOIN_GUESS ? "?" : "";
}

void explain_free(struct gtm_explain *e)
{
	free(e);
}

void ex_add_note(struct gtm_explain *e, const char *fmt, ...)
{
	if (e->n_notes == EX_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->notes[e->n_notes++], sizeof e->notes[0], fmt, ap);
	va_end(ap);
}

struct ex_segment *ex_add_seg(struct gtm_explain *e, enum ex_seg seg, enum ex_src src, const char *device)
{
	if (e->n_segs == EX_MAX_SEGS)
		return NULL;
	struct ex_segment *s = &e->segs[e->n_segs++];
	memset(s, 0, sizeof *s);
	s->seg = seg;
	s->src = src;
	s->gpu = -1;
	s->bytes = GTM_U64_NA;
	str_copy(s->device, device, sizeof s->device);
	return s;
}

void ex_model_key(const struct gtm_process *p, const char *in, char *out, size_t n)
{
	if (in[0] != '/' && strchr(in, '/') && p->detail && p->detail->cwd && p->detail->cwd[0] == '/')
		snprintf(out, n, "%s/%s", p->detail->cwd, in[0] == '.' && in[1] == '/' ? in + 2 : in);
	else
		str_copy(out, in, n);
}

static uint32_t env_ms(const char *name, uint32_t def)
{
	const char *v = getenv(name);
	long x = v ? strtol(v, NULL, 10) : 0;
	return x > 0 && x < 600000 ? (uint32_t)x : def;
}

void explain_ctx_no_probe_why(struct explain_ctx *c, const char *why)
{
	c->no_probe_why = why;
}

struct explain_ctx *explain_ctx_new(bool allow_probe)
{
	struct explain_ctx *c = xcalloc(1, sizeof *c);
	c->allow_probe = allow_probe;
	c->no_probe_why = "--no-probe";
	c->timeout_ms = env_ms("GTM_PROBE_TIMEOUT_MS", 250);
	c->budget_ms = env_ms("GTM_PROBE_BUDGET_MS", EXPLAIN_PROBE_BUDGET_MS);
	c->interval_ms = env_ms("GTM_PROBE_INTERVAL_MS", EXPLAIN_PROBE_INTERVAL_MS);
	return c;
}

void explain_ctx_free(struct explain_ctx *c)
{
	if (!c)
		return;
	ex_log_entries_free(c);
	ex_pyserve_cache_free(c);
	ex_config_cache_free(c);
	if (c->app_log_filled)
		tail_free(&c->app_log);
	free(c);
}

int64_t ex_process_start_s(struct explain_ctx *c, const struct gtm_process *p)
{
	long hz = sysconf(_SC_CLK_TCK);
	/* read when first needed: most snapshots hold no process with a log to date */
	if (!c->boot_time_read) {
		c->boot_time_s = proc_start_epoch_s();
		c->boot_time_read = true;
	}
	if (c->boot_time_s == INT64_MIN || hz <= 0 || !p->pid)
		return -1;
	return c->boot_time_s + (int64_t)(p->start_time / (uint64_t)hz);
}

static const char *runtime_of(const struct gtm_process *p)
{
	static const char *const order[] = {"ollama", "lmstudio", "vllm", "sglang", "stable-diffusion.cpp", "llama.cpp",
					    "whisper.cpp"};
	for (size_t i = 0; i < ARRAY_LEN(order); i++)
		if (ident_find_runtime(p->ident, order[i]))
			return order[i];
	return "";
}

static int count_models(const struct gtm_ident *id)
{
	int n = 0;
	for (int i = 0; i < id->n_models; i++)
		/* a draft (-md) is a second model in the same process */
		if ((id->models[i].role == MODEL_ROLE_MODEL || id->models[i].role == MODEL_ROLE_DRAFT) &&
		    !ident_model_unproven(&id->models[i]))
			n++;
	return n;
}

/* The estimate for the process's main model at its launch flags; a CPU-only
 * build's with no layer on a GPU (-ngl has no GPU to offload to). */
static bool estimate_for(const struct gtm_process *p, struct estimate *est)
{
	const struct gtm_ident *id = p->ident;
	if (!id->flags || !ident_find_runtime(id, "llama.cpp"))
		return false;
	struct llama_flags flags = *id->flags;
	if (explain_cpu_only_build(p)) {
		flags.n_gpu_layers = 0;
		flags.defaulted &= ~(unsigned)LF_DEF_NGL;
	}
	for (int i = 0; i < id->n_models; i++) {
		const struct ident_model *m = &id->models[i];
		if (m->role != MODEL_ROLE_MODEL || !m->path || !m->have_info || m->info.kind != GGUF_KIND_LLM)
			continue;
		char err[160];
		struct gguf_header *h = gguf_cache_get_observed(m->path, err, sizeof err);
		if (!h)
			return false;
		bool ok = estimate_plan(h, &flags, est, err, sizeof err);
		gguf_header_unref(h);
		return ok;
	}
	return false;
}

/* Ollama's per-model figures for a runner: only when the API lists exactly one model. */
static const struct ex_server_model *api_model(const struct gtm_process *p, const struct gtm_explain *e)
{
	if (!ex_is_ollama_runner(p))
		return NULL;
	for (int i = 0; i < e->n_servers; i++)
		if (!strcmp(e->servers[i].kind, "ollama") && e->servers[i].n_models == 1)
			return &e->servers[i].models[0];
	return NULL;
}

bool explain_uses_environ(const struct gtm_process *p)
{
	return p->ident && p->detail && (ident_is_ai(p->ident) || ex_adapter_matches(p));
}

void explain_process(struct explain_ctx *c, struct gtm_snapshot *snap, struct gtm_process *p)
{
	gtm_explain_free_hook = explain_free;
	if (p->explain) {
		explain_free(p->explain);
		p->explain = NULL;
	}
	if (!p->ident || !p->detail)
		return;
	if (!ident_is_ai(p->ident)) {
		/* an app adapter's facts are still worth showing (a speech app between loads) */
		if (!ex_adapter_matches(p))
			return;
		struct gtm_explain *e = xcalloc(1, sizeof *e);
		ex_adapters_explain(c, p, e);
		p->explain = e;
		return;
	}
	if (snap->monotonic_ns != c->refresh_key || !c->refresh) {
		c->refresh_key = snap->monotonic_ns;
		c->refresh++;
		c->deadline_ns = now_monotonic_ns() + (uint64_t)c->budget_ms * 1000000u;
	}
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	str_copy(e->runtime, runtime_of(p), sizeof e->runtime);
	e->n_models = count_models(p->ident);
	ex_probes_explain(c, snap, p, e);
	const struct llog_load *load = NULL;
	if (strcmp(e->runtime, "stable-diffusion.cpp") != 0)
		load = ex_logs_explain(c, snap, p, e);
	struct ex_pool pool = {0};
	if (!load)
		ex_pyserve_explain(c, p, e, &pool);
	ex_kvused_explain(c, snap, p, e, &pool);
	ex_torch_explain(c, p, e);
	if (!strcmp(e->runtime, "stable-diffusion.cpp"))
		ex_add_note(e, "stable-diffusion.cpp: diffusion, text-encoder and VAE files from its flags; no LLM breakdown");
	struct estimate *est = xmalloc(sizeof *est);
	bool have_est = strcmp(e->runtime, "stable-diffusion.cpp") != 0 && estimate_for(p, est);
	struct bd_input in = {snap, p, load, api_model(p, e), have_est ? est : NULL};
	breakdown_build(e, &in);
	if (have_est && explain_cpu_only_build(p))
		ex_add_note(e, EXPLAIN_CPU_BUILD_WHY ": the estimate puts the weights and KV cache in host memory, "
			       "whatever -ngl says");
	free(est);
	if (!e->log.present && !strcmp(e->runtime, "llama.cpp"))
		ex_add_note(e, "no log file found: --log-file FILE -lv 4 lets gputaskman read the buffer sizes");
	if (e->log.present && !strcmp(e->log.state, "current") && !e->log.has_buffers && !strcmp(e->log.kind, "llama.cpp"))
		ex_add_note(e, "llama-server logs no buffer sizes at its default verbosity: -lv 4 adds them");
	ex_adapters_explain(c, p, e);
	p->explain = e;
}

bool explain_serves_via_parent(const struct gtm_process *p)
{
	/* vLLM's and SGLang's GPU workers: their /metrics is the API server's */
	return ex_is_ollama_runner(p) ||
	       (p->ident && (ident_find_runtime(p->ident, "vllm") || ident_find_runtime(p->ident, "sglang")));
}
