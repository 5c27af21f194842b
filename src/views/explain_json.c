#include "views/explain_json.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "views/explain_kv.h"
#include "views/json_util.h"

static json_t *int_or_null(int64_t v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

static json_t *time_or_null(int64_t unix_s)
{
	return unix_s > 0 ? json_of_time_ns((uint64_t)unix_s * 1000000000ull) : json_null();
}

static json_t *tristate(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

static json_t *segment_json(const struct ex_segment *s)
{
	json_t *j = json_object();
	json_put(j, "segment", json_string(ex_seg_name(s->seg)));
	json_put(j, "device", json_of_str(s->device));
	json_put(j, "gpu", s->gpu >= 0 ? json_integer(s->gpu) : json_null());
	json_put(j, "device_join", s->gpu >= 0 ? json_string(ex_join_name(s->join)) : json_null());
	json_put(j, "host_memory", json_boolean(s->host));
	json_put(j, "bytes", json_of_u64(s->bytes));
	json_put(j, "source", json_string(ex_src_name(s->src)));
	json_put(j, "provenance", json_string(gtm_prov_name(s->bytes.prov)));
	json_put(j, "approximate", json_boolean(s->approx));
	json_put(j, "planned_placement", json_boolean(s->planned));
	json_put(j, "superseded_by_log", json_boolean(s->superseded));
	json_put(j, "note", json_of_str(s->note));
	return j;
}

static json_t *bytes_if(bool any, uint64_t v)
{
	return any ? json_integer((json_int_t)v) : json_null();
}

/* One GPU of the process: reported bytes (null when the runtime reported
 * nothing there), the rest and the driver's measurement with provenance. */
static json_t *device_json(const struct ex_device *d)
{
	json_t *j = json_object();
	json_put(j, "gpu", json_integer(d->gpu));
	json_put(j, "uuid", json_of_str(d->uuid));
	json_put(j, "runtime_device", json_of_str(d->runtime_dev));
	json_put(j, "device_join", json_string(d->join ? ex_join_name(d->join) : "none"));
	json_put(j, "layers", d->layers >= 0 ? json_integer(d->layers) : json_null());
	json_put(j, "first_layer", d->layers >= 0 ? json_integer(d->first_layer) : json_null());
	json_put(j, "last_layer", d->layers >= 0 ? json_integer(d->last_layer) : json_null());
	json_put(j, "reported_source", d->reported ? json_string(d->api ? "api" : "log") : json_null());
	json_put(j, "weights_bytes", bytes_if(d->reported, d->weights));
	json_put(j, "kv_cache_bytes", bytes_if(d->reported, d->kv));
	json_put(j, "compute_bytes", bytes_if(d->reported, d->compute));
	json_put(j, "other_bytes", bytes_if(d->reported, d->other));
	json_put(j, "rest_bytes", json_of_u64(d->rest));
	json_put(j, "rest_provenance", gtm_u64_ok(d->rest) ? json_string(gtm_prov_name(d->rest.prov)) : json_null());
	json_put(j, "measured_bytes", json_of_u64(d->measured));
	json_put(j, "measured_provenance",
		 gtm_u64_ok(d->measured) ? json_string(gtm_prov_name(d->measured.prov)) : json_null());
	return j;
}

static json_t *kv_json(const struct ex_kv *k)
{
	json_t *j = json_object();
	json_put(j, "kind", json_string(k->swa < 0 ? "kv" : k->swa ? "kv_swa" : "kv_non_swa"));
	json_put(j, "bytes", json_integer((json_int_t)k->bytes));
	json_put(j, "source", json_string("log"));
	json_put(j, "cells", k->cells ? json_integer((json_int_t)k->cells) : json_null());
	json_put(j, "layers", k->layers ? json_integer(k->layers) : json_null());
	json_put(j, "seqs", k->seqs_max ? json_sprintf("%u/%u", k->seqs_used, k->seqs_max) : json_null());
	json_put(j, "type_k", json_of_str(k->type_k));
	json_put(j, "type_v", json_of_str(k->type_v));
	return j;
}

static json_t *bd_json(const struct ex_log *g)
{
	json_t *j = json_object(), *rows = json_array();
	json_put(j, "projection", json_boolean(g->bd_is_projection));
	for (int i = 0; i < g->n_bd; i++) {
		json_t *r = json_object();
		json_put(r, "device", json_of_str(g->bd[i].device));
		json_put(r, "total_mib", int_or_null(g->bd[i].total));
		json_put(r, "free_mib", int_or_null(g->bd[i].free));
		json_put(r, "self_mib", int_or_null(g->bd[i].self));
		json_put(r, "model_mib", int_or_null(g->bd[i].model));
		json_put(r, "context_mib", int_or_null(g->bd[i].context));
		json_put(r, "compute_mib", int_or_null(g->bd[i].compute));
		json_put(r, "unaccounted_mib", int_or_null(g->bd[i].unaccounted));
		json_array_append_new(rows, r);
	}
	json_put(j, "rows", rows);
	return j;
}

static json_t *history_json(const struct ex_log *g)
{
	json_t *a = json_array();
	for (int i = 0; i < g->n_history; i++) {
		const struct ex_log_history *h = &g->history[i];
		json_t *j = json_object();
		json_put(j, "model", json_of_str(h->model));
		json_put(j, "at", time_or_null(h->at_s));
		json_put(j, "seconds_after_start", h->rel_s >= 0 ? json_real(h->rel_s) : json_null());
		json_put(j, "reported_total_mib", json_integer((json_int_t)(h->total_bytes >> 20)));
		json_put(j, "earlier_process", json_boolean(h->other_run));
		json_array_append_new(a, j);
	}
	return a;
}

static json_t *log_json(const struct ex_log *g)
{
	json_t *j = json_object(), *kv = json_array();
	static const char *const fa[] = {"off", "on", "auto"};
	json_put(j, "kind", json_of_str(g->kind));
	json_put(j, "path", json_of_str(g->path));
	json_put(j, "state", json_of_str(g->state));
	json_put(j, "message", json_of_str(g->message));
	json_put(j, "read_via", json_string(!g->read_via_fd ? "path" : g->read_fd == 2 ? "stderr" : "fd"));
	json_put(j, "read_fd", g->read_via_fd ? json_integer(g->read_fd) : json_null());
	json_put(j, "verbosity", g->verbosity >= 0 ? json_integer(g->verbosity) : json_null());
	json_put(j, "has_buffer_lines", json_boolean(g->has_buffers));
	bool cur = !strcmp(g->state, "current");
	json_put(j, "model", cur ? json_of_str(g->model) : json_null());
	json_put(j, "loaded_at", cur ? time_or_null(g->loaded_at_s) : json_null());
	json_put(j, "n_ctx", cur ? int_or_null(g->n_ctx) : json_null());
	json_put(j, "n_seq_max", cur ? int_or_null(g->n_seq_max) : json_null());
	json_put(j, "n_slots", cur ? int_or_null(g->n_slots) : json_null());
	json_put(j, "n_ctx_per_slot", cur ? int_or_null(g->n_ctx_slot) : json_null());
	json_put(j, "kv_unified", cur ? tristate(g->kv_unified) : json_null());
	json_put(j, "flash_attn", cur && g->flash_attn >= 0 && g->flash_attn <= 2 ? json_string(fa[g->flash_attn]) : json_null());
	json_put(j, "layers_offloaded", cur ? int_or_null(g->layers_offloaded) : json_null());
	json_put(j, "layers_total", cur ? int_or_null(g->layers_total) : json_null());
	json_put(j, "runtime_estimate", json_boolean(g->runtime_estimate));
	for (int i = 0; cur && i < g->n_kv; i++)
		json_array_append_new(kv, kv_json(&g->kv[i]));
	json_put(j, "kv_caches", kv);
	json_put(j, "memory_breakdown", cur && g->has_bd ? bd_json(g) : json_null());
	json_put(j, "history", history_json(g));
	return j;
}

static json_t *server_model_json(const struct ex_server_model *m)
{
	json_t *j = json_object();
	json_put(j, "name", json_of_str(m->name));
	json_put(j, "path", json_of_str(m->path));
	json_put(j, "loaded", json_boolean(m->loaded));
	json_put(j, "state", json_of_str(m->state));
	json_put(j, "n_ctx", json_of_u64(m->n_ctx));
	json_put(j, "size_bytes", json_of_u64(m->size));
	json_put(j, "size_vram_bytes", json_of_u64(m->size_vram));
	json_put(j, "source", json_string("api"));
	return j;
}

/* <what>_tokens_per_s: the server's own speed; _avg: since it started;
 * wall_<what>_tokens_per_s: its counter over our wall clock. */
static void rate_json(json_t *j, const char *what, const struct ex_rate *r)
{
	char k[48];
	snprintf(k, sizeof k, "%s_tokens_per_s", what);
	json_put(j, k, json_of_f64(r->tps));
	snprintf(k, sizeof k, "%s_tokens_per_s_avg", what);
	json_put(j, k, json_of_f64(r->avg_tps));
	snprintf(k, sizeof k, "wall_%s_tokens_per_s", what);
	json_put(j, k, json_of_f64(r->wall_tps));
}

static json_t *server_json(const struct ex_server *s)
{
	json_t *j = json_object(), *eps = json_array(), *models = json_array();
	json_put(j, "port", json_integer(s->port));
	json_put(j, "kind", json_of_str(s->kind));
	json_put(j, "reachable", json_boolean(s->reachable));
	json_put(j, "health", json_of_str(s->health));
	json_put(j, "build", json_of_str(s->build));
	for (int i = 0; i < s->n_eps; i++) {
		json_t *e = json_object();
		json_put(e, "path", json_of_str(s->eps[i].path));
		json_put(e, "state", json_string(ex_ep_state_name(s->eps[i].state)));
		json_put(e, "http_status", s->eps[i].http_status ? json_integer(s->eps[i].http_status) : json_null());
		json_put(e, "ms", s->eps[i].state == EP_NOT_PROBED ? json_null() : json_integer(s->eps[i].ms));
		json_array_append_new(eps, e);
	}
	json_put(j, "endpoints", eps);
	for (int i = 0; i < s->n_models; i++)
		json_array_append_new(models, server_model_json(&s->models[i]));
	json_put(j, "models", models);
	json_put(j, "n_ctx_per_slot", json_of_u64(s->n_ctx_slot));
	json_put(j, "slots_total", json_of_u64(s->slots_total));
	json_put(j, "slots_busy", json_of_u64(s->slots_busy));
	rate_json(j, "generation", &s->gen);
	rate_json(j, "prompt", &s->prompt);
	/* llama-server: a running request is in none of the rates until it ends */
	json_put(j, "tokens_counted_at_request_end", json_boolean(s->counted_at_end));
	json_put(j, "kv_cache_usage", json_of_f64(s->kv_usage));
	json_put(j, "kv_cache_capacity_tokens", json_of_u64(s->kv_capacity_tokens));
	json_put(j, "kv_cache_used_tokens", json_of_u64(s->kv_used_tokens));
	json_put(j, "requests_running", json_of_u64(s->requests_running));
	json_put(j, "requests_waiting", json_of_u64(s->requests_waiting));
	json_put(j, "kv_cache_blocks", json_of_u64(s->kv_blocks));
	json_put(j, "kv_cache_block_size", json_of_u64(s->kv_block_size));
	json_put(j, "kv_cache_dtype", json_of_str(s->kv_cache_dtype));
	return j;
}

static json_t *app_json(const struct ex_app *a)
{
	json_t *j = json_object(), *ev = json_array();
	json_put(j, "app", json_of_str(a->app));
	json_put(j, "settings_path", json_of_str(a->settings_path));
	json_put(j, "selected_model", json_of_str(a->selected_model));
	json_put(j, "selected_model_note", json_string("a setting: not evidence that the model is loaded"));
	json_put(j, "log_path", json_of_str(a->log_path));
	for (int i = 0; i < a->n_events; i++) {
		json_t *e = json_object();
		json_put(e, "at", time_or_null(a->events[i].at_s));
		json_put(e, "event", json_of_str(a->events[i].kind));
		json_put(e, "detail", json_of_str(a->events[i].detail));
		json_array_append_new(ev, e);
	}
	json_put(j, "events", ev);
	json_put(j, "events_note", json_string("log events are history, not residency"));
	json_put(j, "message", json_of_str(a->message));
	return j;
}

json_t *explain_json(const struct gtm_explain *e)
{
	json_t *j = json_object(), *servers = json_array(), *segs = json_array(), *notes = json_array();
	json_put(j, "runtime", json_of_str(e->runtime));
	json_put(j, "note", json_string("log and API figures are what the runtime reported (allocated at load time), "
					"not proof of what is resident now; they and estimates are never added into measured totals"));
	json_put(j, "log", e->log.present ? log_json(&e->log) : json_null());
	for (int i = 0; i < e->n_servers; i++)
		json_array_append_new(servers, server_json(&e->servers[i]));
	json_put(j, "servers", servers);
	for (int i = 0; i < e->n_segs; i++)
		json_array_append_new(segs, segment_json(&e->segs[i]));
	json_put(j, "breakdown", segs);
	json_t *devs = json_array();
	for (int i = 0; i < e->n_devs; i++)
		json_array_append_new(devs, device_json(&e->devs[i]));
	json_put(j, "devices", devs);
	json_put(j, "estimate_disagrees", json_boolean(e->estimate_disagrees));
	explain_kv_json(j, e);
	for (int i = 0; i < e->n_notes; i++)
		json_array_append_new(notes, json_string(e->notes[i]));
	json_put(j, "notes", notes);
	json_put(j, "app", e->app.present ? app_json(&e->app) : json_null());
	return j;
}
