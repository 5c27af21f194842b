/* Server facts of a kept process's local inference servers, as their APIs
 * report them (explain/server.h): slots, context, speed, KV-cache use. */
#include <stddef.h>
#include <string.h>

#include "core/util.h"
#include "explain/explain.h"
#include "views/prom/prom_internal.h"

static const struct prom_family f_info = {"gputaskman_server_info", "gauge",
	"A local inference server a process runs (value 1), by port and kind (llama-server, ollama, lmstudio, vllm, sglang)."};
static const struct prom_family f_slot_ctx = {"gputaskman_server_slot_context_tokens", "gauge",
	"Context size of one slot, as the server reports it."};
static const struct prom_family f_slots = {"gputaskman_server_slots", "gauge", "Slots the server has."};
static const struct prom_family f_busy = {"gputaskman_server_busy_slots", "gauge", "Slots processing a request."};
static const struct prom_family f_gen = {"gputaskman_server_generation_tokens_per_second", "gauge",
	"The server's own generation speed between the last two samples of its metrics."};
static const struct prom_family f_prompt = {"gputaskman_server_prompt_tokens_per_second", "gauge",
	"The server's own prompt-processing speed between the last two samples of its metrics."};
static const struct prom_family f_kv = {"gputaskman_server_kv_cache_usage_ratio", "gauge",
	"Share of the server's KV cache in use (0-1), from its metrics."};
static const struct prom_family f_kv_cap = {"gputaskman_server_kv_cache_capacity_tokens", "gauge",
	"Tokens the server's KV cache holds at most."};
static const struct prom_family f_kv_used = {"gputaskman_server_kv_cache_used_tokens", "gauge",
	"Tokens in the server's KV cache."};
static const struct prom_family f_requests = {"gputaskman_server_requests", "gauge",
	"Requests by state: running, or waiting for a slot."};

struct srv_row {
	const struct prom_family *fam;
	size_t off;      /* a gtm_u64 or gtm_f64 in struct ex_server */
	bool is_u64;
	const char *key, *value;
};

#define SU(f, field) {&f, offsetof(struct ex_server, field), true, NULL, NULL}
#define SF(f, field) {&f, offsetof(struct ex_server, field), false, NULL, NULL}

static const struct srv_row rows[] = {
	SU(f_slot_ctx, n_ctx_slot),
	SU(f_slots, slots_total),
	SU(f_busy, slots_busy),
	SF(f_gen, gen.tps),
	SF(f_prompt, prompt.tps),
	SF(f_kv, kv_usage),
	SU(f_kv_cap, kv_capacity_tokens),
	SU(f_kv_used, kv_used_tokens),
	{&f_requests, offsetof(struct ex_server, requests_running), true, "state", "running"},
	{&f_requests, offsetof(struct ex_server, requests_waiting), true, "state", "waiting"},
};

static void server_labels(struct prom_out *o, const struct prom_proc *pp, const struct ex_server *sv)
{
	prom_add_label(o, "pid", pp->pid);
	prom_add_label_int(o, "port", sv->port);
}

/* Calls fn for every reachable server of the kept processes. */
static void each_server(const struct prom_selection *sel, struct prom_out *o, const struct srv_row *r,
			void (*fn)(struct prom_out *, const struct prom_proc *, const struct ex_server *,
				   const struct srv_row *))
{
	for (int i = 0; i < sel->kept; i++) {
		const struct gtm_explain *e = sel->procs[i].p->explain;
		for (int k = 0; e && k < e->n_servers && k < EX_MAX_SERVERS; k++)
			if (e->servers[k].reachable)
				fn(o, &sel->procs[i], &e->servers[k], r);
	}
}

static void write_info(struct prom_out *o, const struct prom_proc *pp, const struct ex_server *sv,
		       const struct srv_row *r)
{
	(void)r;
	server_labels(o, pp, sv);
	prom_add_label(o, "kind", sv->kind);
	prom_write(o, 1);
}

static void write_row(struct prom_out *o, const struct prom_proc *pp, const struct ex_server *sv,
		      const struct srv_row *r)
{
	const char *field = (const char *)sv + r->off;
	gtm_u64 u;
	gtm_f64 f;
	if (r->is_u64) {
		memcpy(&u, field, sizeof u);
		if (!gtm_u64_ok(u))
			return;
		f = gtm_f64_of((double)u.v, u.prov);
	} else {
		memcpy(&f, field, sizeof f);
		if (!gtm_f64_ok(f))
			return;
	}
	server_labels(o, pp, sv);
	prom_add_label(o, r->key, r->value);
	if (r->is_u64)
		prom_write_u64(o, u.v);
	else
		prom_write(o, f.v);
}

void prom_render_servers(const struct prom_selection *sel, struct prom_out *o)
{
	prom_family(o, &f_info);
	each_server(sel, o, NULL, write_info);
	for (size_t i = 0; i < ARRAY_LEN(rows);) {
		size_t end = i;
		while (end < ARRAY_LEN(rows) && rows[end].fam == rows[i].fam)
			end++;
		prom_family(o, rows[i].fam);
		for (size_t r = i; r < end; r++)
			each_server(sel, o, &rows[r], write_row);
		i = end;
	}
}
