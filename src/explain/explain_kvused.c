/* The KV cache a vLLM or SGLang engine has in use now, from its /metrics,
 * joined to each of its processes. The API server listens; its GPU workers
 * (one per tensor-parallel rank) do not, so a worker takes the answer of its
 * nearest ancestor of the same runtime (vLLM: API server -> engine core ->
 * workers; SGLang: launch_server -> schedulers). The bytes are this GPU's
 * share: vLLM's usage fraction x its blocks x the bytes per block that
 * config.json gives by vLLM's own rules (full-attention and MLA models only:
 * sliding-window and linear layers are paged otherwise), else the usage x
 * the worker's KV pool from its log; SGLang's used tokens x the bytes per
 * token of the rank's pool (its log), else of config.json. Reported, never
 * added to measured totals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "portable.h"
#include "explain/explain_internal.h"
#include "identify/ident.h"
#include "identify/stores.h"
#include "llm/hf_config.h"
#include "llm/vllm_kv.h"

#define KVU_MAX_HOPS 3

static const struct gtm_process *find_pid(const struct gtm_snapshot *snap, uint32_t pid)
{
	for (int i = 0; snap && pid && i < snap->n_processes; i++)
		if (snap->processes[i].pid == pid)
			return &snap->processes[i];
	return NULL;
}

/* The value after a flag ("--model X" or "--model=X"), or NULL. */
static const char *flag_value(const struct gtm_process *q, const char *const *flags)
{
	const struct gtm_proc_detail *d = q->detail;
	for (int i = 1; d && i < d->argc; i++) {
		const char *a = d->argv[i];
		for (int f = 0; a && flags[f]; f++) {
			size_t n = strlen(flags[f]);
			if (!strncmp(a, flags[f], n) && a[n] == '=')
				return a + n + 1;
			if (!strcmp(a, flags[f]) && i + 1 < d->argc && d->argv[i + 1])
				return d->argv[i + 1];
		}
	}
	return NULL;
}

/* `vllm serve MODEL`, else --model / --model-path. */
static const char *model_spec(const struct gtm_process *q)
{
	static const char *const flags[] = {"--model", "--model-path", NULL};
	const struct gtm_proc_detail *d = q->detail;
	for (int i = 1; d && i + 1 < d->argc; i++)
		if (d->argv[i] && !strcmp(d->argv[i], "serve") && d->argv[i + 1] && d->argv[i + 1][0] != '-')
			return d->argv[i + 1];
	return flag_value(q, flags);
}

static unsigned tp_of(const struct gtm_process *q)
{
	static const char *const flags[] = {"--tensor-parallel-size", "-tp", "--tp-size", "--tp", NULL};
	const char *v = flag_value(q, flags);
	long n = v ? strtol(v, NULL, 10) : 1;
	return n > 0 && n <= 1024 ? (unsigned)n : 1;
}

static bool is_file(const char *path)
{
	struct stat st;
	return sysroot_stat(&st, "%s", path) == 0 && S_ISREG(st.st_mode);
}

/* The config.json of the model the process serves: a folder (absolute or
 * against its cwd), else an org/name in the Hugging Face cache its
 * environment names. */
static bool config_path(const struct gtm_process *q, char *out, size_t n)
{
	const char *spec = model_spec(q);
	if (!spec || !spec[0] || strlen(spec) > 400)
		return false;
	if (spec[0] == '/' && (size_t)snprintf(out, n, "%s/config.json", spec) < n && is_file(out))
		return true;
	if (spec[0] != '/' && q->detail->cwd && q->detail->cwd[0] == '/' &&
	    (size_t)snprintf(out, n, "%s/%s/config.json", q->detail->cwd, spec) < n && is_file(out))
		return true;
	return spec[0] != '/' && spec[0] != '.' && stores_hf_resolve(q->detail, spec, "config.json", false, out, n);
}

/* The process whose /metrics speaks for p, and that server; NULL when none. */
static const struct ex_server *metrics_for(struct explain_ctx *c, const struct gtm_snapshot *snap,
					   const struct gtm_process *p, const struct gtm_explain *e,
					   const struct gtm_process **owner)
{
	for (int i = 0; i < e->n_servers; i++)
		for (int k = 0; k < e->servers[i].n_eps; k++)
			if (!strcmp(e->servers[i].eps[k].path, "/metrics") && e->servers[i].eps[k].state == EP_OK) {
				*owner = p;
				return &e->servers[i];
			}
	/* it serves HTTP itself: its own answers (and their notes) are the ones;
	 * other loopback ports (ZMQ, torch.distributed's store) are no API */
	for (int i = 0; i < e->n_servers; i++)
		if (e->servers[i].reachable)
			return NULL;
	const struct gtm_process *q = p;
	for (int hop = 0; hop < KVU_MAX_HOPS && q->ppid > 1; hop++) {
		q = find_pid(snap, q->ppid);
		if (!q || !q->ident || !q->detail)
			return NULL;
		if (!ident_find_runtime(q->ident, e->runtime))
			continue;
		const struct ex_server *s = ex_probe_metrics_of(c, snap, q);
		if (s) {
			*owner = q;
			return s;
		}
	}
	return NULL;
}

/* a x b, false when it does not fit in 64 bits */
static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
	if (b && a > UINT64_MAX / b)
		return false;
	*out = a * b;
	return true;
}

static void basis(struct ex_kv_used *k, const char *fmt, const char *what)
{
	snprintf(k->basis, sizeof k->basis, fmt, what);
}

/* Bytes per token on this GPU by config.json's rules: only when every layer
 * is full attention or MLA (vLLM pages sliding and linear layers otherwise). */
static bool config_bytes(struct explain_ctx *c, const struct gtm_process *owner, const char *dtype,
			 struct ex_kv_used *k, uint64_t *per_token)
{
	char path[1024];
	const struct hf_config *cfg = config_path(owner, path, sizeof path) ? ex_config_get(c, path) : NULL;
	if (!cfg)
		return false;
	str_copy(k->config, path, sizeof k->config);
	struct vllm_kv_opts o = {.kv_cache_dtype = dtype && dtype[0] && vllm_kv_dtype_known(dtype) ? dtype : NULL,
				 .tp = tp_of(owner), .block_size = gtm_u64_ok(k->block_size) ? (unsigned)k->block_size.v : 0};
	struct vllm_kv kv;
	char err[200];
	if (!vllm_kv_estimate(cfg, &o, &kv, err, sizeof err) || kv.n_sliding || kv.n_linear || kv.n_unknown ||
	    !kv.per_token)
		return false;
	*per_token = kv.per_token;
	return true;
}

static void vllm_bytes(struct explain_ctx *c, const struct gtm_process *owner, const struct ex_server *s,
		       const struct ex_pool *pool, struct ex_kv_used *k)
{
	uint64_t per_token;
	if (!gtm_f64_ok(k->usage))
		return;
	if (gtm_u64_ok(k->blocks) && gtm_u64_ok(k->block_size)) {
		k->used_blocks = gtm_u64_of((uint64_t)(k->usage.v * (double)k->blocks.v + 0.5), GTM_REPORTED);
		uint64_t block, pool_b, used_b;
		if (config_bytes(c, owner, s->kv_cache_dtype, k, &per_token) && mul_ok(per_token, k->block_size.v, &block) &&
		    mul_ok(k->blocks.v, block, &pool_b) && mul_ok(k->used_blocks.v, block, &used_b)) {
			k->bytes_per_token = gtm_u64_of(per_token, GTM_ESTIMATED);
			k->pool_bytes = gtm_u64_of(pool_b, GTM_REPORTED);
			k->used_bytes = gtm_u64_of(used_b, GTM_REPORTED);
			unsigned tp = tp_of(owner);
			char gpus[40] = "";
			if (tp > 1) /* the API server's own row shows one GPU's share too */
				snprintf(gpus, sizeof gpus, ", each of %u GPUs", tp);
			snprintf(k->basis, sizeof k->basis,
				 "used blocks x bytes per block (config.json by vLLM's page rule, KV dtype %s%s)",
				 s->kv_cache_dtype[0] ? s->kv_cache_dtype : "auto", gpus);
			return;
		}
	}
	if (pool && pool->have_bytes) {
		k->pool_bytes = gtm_u64_of(pool->bytes, GTM_REPORTED);
		k->used_bytes = gtm_u64_of((uint64_t)(k->usage.v * (double)pool->bytes), GTM_REPORTED);
		basis(k, "%s", "usage x this worker's KV pool (its log)");
		return;
	}
	basis(k, "%s", "usage only: no bytes per block (config.json not read, no KV pool in a log)");
}

static void sglang_bytes(struct explain_ctx *c, const struct gtm_process *owner, const struct ex_pool *pool,
			 struct ex_kv_used *k)
{
	uint64_t per_token = 0;
	if (pool && pool->have_bytes && pool->have_tokens && pool->tokens) {
		per_token = pool->bytes / pool->tokens;
		k->bytes_per_token = gtm_u64_of(per_token, GTM_REPORTED);
		basis(k, "%s", "used tokens x bytes per token of this rank's pool (its log)");
	} else if (config_bytes(c, owner, flag_value(owner, (const char *const[]){"--kv-cache-dtype", NULL}), k,
				&per_token)) {
		k->bytes_per_token = gtm_u64_of(per_token, GTM_ESTIMATED);
		basis(k, "%s", "used tokens x bytes per token (config.json, K+V or the MLA latent per layer)");
	}
	if (!per_token) {
		basis(k, "%s", gtm_f64_ok(k->usage) ? "usage only: no bytes per token" : "no KV figure");
		return;
	}
	uint64_t b;
	if (gtm_u64_ok(k->used_tokens) && mul_ok(k->used_tokens.v, per_token, &b))
		k->used_bytes = gtm_u64_of(b, GTM_REPORTED);
	if (gtm_u64_ok(k->capacity_tokens) && mul_ok(k->capacity_tokens.v, per_token, &b))
		k->pool_bytes = gtm_u64_of(b, GTM_REPORTED);
	else if (pool && pool->have_bytes)
		k->pool_bytes = gtm_u64_of(pool->bytes, GTM_REPORTED);
}

static const struct ex_endpoint *metrics_ep(const struct ex_server *s)
{
	for (int i = 0; i < s->n_eps; i++)
		if (!strcmp(s->eps[i].path, "/metrics"))
			return &s->eps[i];
	return NULL;
}

/* Why a server's /metrics gave nothing: its own state, or when it was not
 * asked, the state of the endpoint that stopped the probe (a timeout). */
static const char *why_not(const struct ex_server *s, const struct ex_endpoint *ep)
{
	if (ep && ep->state != EP_NOT_PROBED)
		return ex_ep_state_name(ep->state);
	for (int i = 0; i < s->n_eps; i++)
		if (s->eps[i].state != EP_OK && s->eps[i].state != EP_NOT_PROBED)
			return ex_ep_state_name(s->eps[i].state);
	return "not probed";
}

void ex_kvused_explain(struct explain_ctx *c, const struct gtm_snapshot *snap, const struct gtm_process *p,
		       struct gtm_explain *e, const struct ex_pool *pool)
{
	bool vllm = !strcmp(e->runtime, "vllm");
	if ((!vllm && strcmp(e->runtime, "sglang") != 0) || !c->allow_probe)
		return;
	const struct gtm_process *owner = NULL;
	const struct ex_server *s = metrics_for(c, snap, p, e, &owner);
	if (!s)
		return;
	const struct ex_endpoint *ep = metrics_ep(s);
	struct ex_kv_used *k = &e->kv_used;
	if (!ep || ep->state != EP_OK) {
		ex_add_note(e, "%s /metrics on :%u (pid %u): %s, KV in use N/A", vllm ? "vLLM" : "SGLang", s->port,
			    owner->pid, why_not(s, ep));
		return;
	}
	memset(k, 0, sizeof *k);
	k->present = true;
	str_copy(k->kind, e->runtime, sizeof k->kind);
	k->port = s->port;
	k->server_pid = owner->pid;
	k->usage = s->kv_usage;
	k->used_tokens = s->kv_used_tokens;
	k->capacity_tokens = s->kv_capacity_tokens;
	k->blocks = s->kv_blocks;
	k->block_size = s->kv_block_size;
	k->used_blocks = k->bytes_per_token = k->used_bytes = k->pool_bytes = GTM_U64_NA;
	k->requests_running = s->requests_running;
	k->requests_waiting = s->requests_waiting;
	if (s->kv_usage_engines > 1)
		ex_add_note(e, "%s /metrics on :%u exports %u KV usage gauges (one per data-parallel engine): which "
			       "this process's pool is is not known, KV in use N/A", vllm ? "vLLM" : "SGLang", s->port,
			    s->kv_usage_engines);
	if (vllm)
		vllm_bytes(c, owner, s, pool, k);
	else
		sglang_bytes(c, owner, pool, k);
}

/* config.json files, parsed once per (path, dev, inode, size, mtime). */
const struct hf_config *ex_config_get(struct explain_ctx *c, const char *path)
{
	struct stat st;
	if (sysroot_stat(&st, "%s", path) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 || (uint64_t)st.st_size > HF_CONFIG_MAX_BYTES)
		return NULL;
	struct config_entry *lru = &c->configs[0];
	for (int i = 0; i < EXC_CONFIGS; i++) {
		struct config_entry *ce = &c->configs[i];
		if (ce->used && !strcmp(ce->path, path) && ce->dev == (uint64_t)st.st_dev && ce->ino == (uint64_t)st.st_ino &&
		    ce->size == (uint64_t)st.st_size && ce->mtime_ns == stat_mtime_ns(&st)) {
			ce->used = c->refresh + 1;
			return ce->cfg;
		}
		if (ce->used < lru->used)
			lru = ce;
	}
	free(lru->cfg);
	memset(lru, 0, sizeof *lru);
	c->configs_filled = true;
	str_copy(lru->path, path, sizeof lru->path);
	lru->dev = (uint64_t)st.st_dev;
	lru->ino = (uint64_t)st.st_ino;
	lru->size = (uint64_t)st.st_size;
	lru->mtime_ns = stat_mtime_ns(&st);
	lru->used = c->refresh + 1;
	char *buf = xmalloc((size_t)st.st_size + 1);
	ssize_t n = sysroot_read(buf, (size_t)st.st_size + 1, "%s", path);
	char err[160];
	lru->cfg = xmalloc(sizeof *lru->cfg);
	if (n <= 0 || !hf_config_parse(buf, (size_t)n, lru->cfg, err, sizeof err)) {
		free(lru->cfg);
		lru->cfg = NULL;
	}
	free(buf);
	return lru->cfg;
}

void ex_config_cache_free(struct explain_ctx *c)
{
	if (!c->configs_filled)
		return;
	for (int i = 0; i < EXC_CONFIGS; i++)
		free(c->configs[i].cfg);
	memset(c->configs, 0, sizeof c->configs);
}
