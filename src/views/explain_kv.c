#include "views/explain_kv.h"

#include <string.h>

#include "core/format.h"
#include "core/util.h"
#include "views/json_util.h"

static json_t *used_json(const struct ex_kv_used *k)
{
	json_t *j = json_object();
	json_put(j, "kind", json_of_str(k->kind));
	json_put(j, "port", json_integer(k->port));
	json_put(j, "server_pid", json_integer(k->server_pid));
	json_put(j, "usage", json_of_f64(k->usage));
	json_put(j, "used_bytes", json_of_u64(k->used_bytes));
	json_put(j, "pool_bytes", json_of_u64(k->pool_bytes));
	json_put(j, "used_tokens", json_of_u64(k->used_tokens));
	json_put(j, "capacity_tokens", json_of_u64(k->capacity_tokens));
	json_put(j, "used_blocks", json_of_u64(k->used_blocks));
	json_put(j, "blocks", json_of_u64(k->blocks));
	json_put(j, "block_size", json_of_u64(k->block_size));
	json_put(j, "bytes_per_token", json_of_u64(k->bytes_per_token));
	json_put(j, "bytes_per_token_provenance",
		 gtm_u64_ok(k->bytes_per_token) ? json_string(gtm_prov_name(k->bytes_per_token.prov)) : json_null());
	json_put(j, "requests_running", json_of_u64(k->requests_running));
	json_put(j, "requests_waiting", json_of_u64(k->requests_waiting));
	json_put(j, "provenance", json_string(gtm_prov_name(GTM_REPORTED)));
	json_put(j, "basis", json_of_str(k->basis));
	json_put(j, "config", json_of_str(k->config));
	return j;
}

static json_t *estimate_json(const struct ex_kv_estimate *x)
{
	json_t *j = json_object();
	json_put(j, "bytes_per_1k_tokens", json_of_u64(x->bytes_per_1k_tokens));
	json_put(j, "provenance", json_string(gtm_prov_name(GTM_ESTIMATED)));
	json_put(j, "dtype", json_of_str(x->dtype));
	json_put(j, "full_attention_layers", json_integer((json_int_t)x->n_full));
	json_put(j, "sliding_window_layers", json_integer((json_int_t)x->n_sliding));
	json_put(j, "linear_layers", json_integer((json_int_t)x->n_linear));
	json_put(j, "sliding_window", x->window ? json_integer((json_int_t)x->window) : json_null());
	json_put(j, "config", json_of_str(x->config));
	json_put(j, "note", json_of_str(x->note));
	return j;
}

void explain_kv_json(json_t *j, const struct gtm_explain *e)
{
	json_put(j, "kv_cache_in_use", e->kv_used.present ? used_json(&e->kv_used) : json_null());
	json_put(j, "kv_cache_estimate", e->kv_est.present ? estimate_json(&e->kv_est) : json_null());
}

void explain_kv_text(FILE *out, const struct gtm_explain *e, const char *in)
{
	char a[32], b[32], u[32], s[1024];
	const struct ex_kv_used *k = &e->kv_used;
	if (k->present) {
		fprintf(out, "%sKV cache in use: %s of %s (%s), reported by %s /metrics :%u (pid %u); %s\n", in,
			fmt_bytes(a, sizeof a, k->used_bytes), fmt_bytes(b, sizeof b, k->pool_bytes),
			gtm_f64_ok(k->usage) ? fmt_f64(u, sizeof u, gtm_f64_of(k->usage.v * 100, GTM_REPORTED), 1, "%")
					     : gtm_u64_ok(k->used_tokens) ? fmt_f64(u, sizeof u, gtm_f64_of((double)k->used_tokens.v, GTM_REPORTED), 0, " tokens")
									  : "N/A",
			k->kind[0] == 's' ? "SGLang" : "vLLM", k->port, k->server_pid, fmt_safe(s, sizeof s, k->basis));
	}
	const struct ex_kv_estimate *x = &e->kv_est;
	if (x->present)
		fprintf(out, "%sKV cache estimate: %s per 1k tokens of context (estimated from %s; %s)\n", in,
			fmt_bytes(a, sizeof a, x->bytes_per_1k_tokens), fmt_safe(s, sizeof s, x->config),
			fmt_safe(b, sizeof b, x->note));
}
