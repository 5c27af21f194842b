/* Parsers of local inference servers' JSON answers (llm-memory.md §7):
 * llama-server /props, /slots, /v1/models, /health (tools/server/server-context.cpp),
 * Ollama /api/ps (api/types.go), LM Studio /api/v1/models and /api/v0/models
 * (lmstudio-ai/docs endpoints.mdx), vLLM / SGLang /v1/models. */
#include "explain/server.h"

#include <jansson.h>
#include <string.h>

#include "core/util.h"

const char *ex_ep_state_name(enum ex_ep_state s)
{
	static const char *const names[EP_STATE_COUNT] = {
		"not-probed", "ok", "absent", "disabled", "unauthorized", "loading", "http-error",
		"timeout", "refused", "garbage", "too-large", "redirect", "error",
	};
	return (unsigned)s < EP_STATE_COUNT ? names[s] : "error";
}

void ex_server_init(struct ex_server *s, uint16_t port)
{
	memset(s, 0, sizeof *s);
	s->port = port;
	s->n_ctx_slot = s->slots_total = s->slots_busy = GTM_U64_NA;
	s->gen.tps = s->gen.avg_tps = s->gen.wall_tps = GTM_F64_NA;
	s->prompt.tps = s->prompt.avg_tps = s->prompt.wall_tps = GTM_F64_NA;
	ex_server_clear_gauges(s);
}

void ex_server_clear_gauges(struct ex_server *s)
{
	s->kv_usage = GTM_F64_NA;
	s->kv_usage_engines = 0;
	s->kv_capacity_tokens = s->kv_used_tokens = s->kv_blocks = s->kv_block_size = GTM_U64_NA;
	s->kv_cache_dtype[0] = 0;
	s->requests_running = s->requests_waiting = GTM_U64_NA;
}

struct ex_server_model *ex_server_model_get(struct ex_server *s, const char *name)
{
	for (int i = 0; i < s->n_models; i++)
		if (strcmp(s->models[i].name, name) == 0)
			return &s->models[i];
	if (s->n_models == EX_MAX_SERVER_MODELS)
		return NULL;
	struct ex_server_model *m = &s->models[s->n_models++];
	memset(m, 0, sizeof *m);
	str_copy(m->name, name, sizeof m->name);
	m->size = m->size_vram = m->n_ctx = GTM_U64_NA;
	return m;
}

static json_t *load(const char *buf, size_t len)
{
	if (!buf || len == 0 || len > EX_MAX_BODY)
		return NULL;
	return json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
}

static const char *jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A non-negative integer field (JSON integer, or a real holding one). */
static gtm_u64 jcount(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		return gtm_u64_of((uint64_t)json_integer_value(v), GTM_REPORTED);
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 1.8e19)
		return gtm_u64_of((uint64_t)json_real_value(v), GTM_REPORTED);
	return GTM_U64_NA;
}

static void set_kind(struct ex_server *s, const char *kind)
{
	if (!s->kind[0])
		str_copy(s->kind, kind, sizeof s->kind);
}

bool server_parse_props(const char *buf, size_t len, struct ex_server *s)
{
	json_t *j = load(buf, len);
	if (!json_is_object(j)) {
		json_decref(j);
		return false;
	}
	const json_t *dgs = json_object_get(j, "default_generation_settings");
	const char *path = jstr(j, "model_path"), *alias = jstr(j, "model_alias");
	bool ok = json_is_object(dgs) || path;
	if (ok) {
		set_kind(s, "llama-server");
		if (json_is_object(dgs))
			s->n_ctx_slot = jcount(dgs, "n_ctx");
		gtm_u64 slots = jcount(j, "total_slots");
		if (gtm_u64_ok(slots))
			s->slots_total = slots;
		const char *b = jstr(j, "build_info");
		if (b)
			str_copy(s->build, b, sizeof s->build);
		struct ex_server_model *m = ex_server_model_get(s, alias && alias[0] ? alias : path ? path : "");
		if (m) {
			if (path)
				str_copy(m->path, path, sizeof m->path);
			m->n_ctx = s->n_ctx_slot;
			m->loaded = !json_is_true(json_object_get(j, "is_sleeping"));
		}
	}
	json_decref(j);
	return ok;
}

bool server_parse_slots(const char *buf, size_t len, struct ex_server *s)
{
	json_t *j = load(buf, len);
	size_t i;
	json_t *e;
	uint64_t busy = 0, n = 0;
	if (!json_is_array(j)) {
		json_decref(j);
		return false;
	}
	json_array_foreach(j, i, e) {
		if (!json_is_object(e))
			continue;
		n++;
		if (json_is_true(json_object_get(e, "is_processing")))
			busy++;
		if (i == 0 && !gtm_u64_ok(s->n_ctx_slot))
			s->n_ctx_slot = jcount(e, "n_ctx");
	}
	set_kind(s, "llama-server");
	s->slots_total = gtm_u64_of(n, GTM_REPORTED);
	s->slots_busy = gtm_u64_of(busy, GTM_REPORTED);
	json_decref(j);
	return true;
}

/* OpenAI-style list: llama-server (owned_by "llamacpp", meta{n_ctx,size}),
 * vLLM / SGLang (owned_by, max_model_len). */
bool server_parse_v1_models(const char *buf, size_t len, struct ex_server *s)
{
	json_t *j = load(buf, len);
	const json_t *data = json_object_get(j, "data");
	size_t i;
	json_t *e;
	bool any = false;
	if (!json_is_array(data)) {
		json_decref(j);
		return false;
	}
	json_array_foreach(data, i, e) {
		const char *id = jstr(e, "id"), *owner = jstr(e, "owned_by");
		if (!id)
			continue;
		any = true;
		if (owner && strcmp(owner, "llamacpp") == 0)
			set_kind(s, "llama-server");
		else if (owner && (strcmp(owner, "vllm") == 0 || strcmp(owner, "sglang") == 0))
			set_kind(s, owner);
		struct ex_server_model *m = ex_server_model_get(s, id);
		if (!m)
			continue;
		m->loaded = true;
		const json_t *meta = json_object_get(e, "meta");
		if (json_is_object(meta)) {
			m->n_ctx = jcount(meta, "n_ctx");
			m->size = jcount(meta, "size");
		} else if (gtm_u64_ok(jcount(e, "max_model_len")))
			m->n_ctx = jcount(e, "max_model_len");
	}
	json_decref(j);
	return any || json_array_size(data) == 0;
}

bool server_parse_ollama_ps(const char *buf, size_t len, struct ex_server *s)
{
	json_t *j = load(buf, len);
	const json_t *models = json_object_get(j, "models");
	size_t i;
	json_t *e;
	if (!json_is_array(models)) {
		json_decref(j);
		return false;
	}
	set_kind(s, "ollama");
	json_array_foreach(models, i, e) {
		const char *name = jstr(e, "name");
		if (!name)
			name = jstr(e, "model");
		if (!name)
			continue;
		struct ex_server_model *m = ex_server_model_get(s, name);
		if (!m)
			continue;
		m->loaded = true;
		m->size = jcount(e, "size");
		m->size_vram = jcount(e, "size_vram");
		m->n_ctx = jcount(e, "context_length");
	}
	json_decref(j);
	return true;
}

/* LM Studio 0.4+: models[{key, loaded_instances[{id, config{context_length}}]}]. */
bool server_parse_lmstudio_v1(const char *buf, size_t len, struct ex_server *s)
{
	json_t *j = load(buf, len);
	const json_t *models = json_object_get(j, "models");
	size_t i, k;
	json_t *e, *inst;
	if (!json_is_array(models)) {
		json_decref(j);
		return false;
	}
	set_kind(s, "lmstudio");
	json_array_foreach(models, i, e) {
		const json_t *li = json_object_get(e, "loaded_instances");
		const char *key = jstr(e, "key");
		if (!key || !json_is_array(li) || json_array_size(li) == 0)
			continue; /* listed but not loaded: the store, not the process */
		json_array_foreach(li, k, inst) {
			const char *id = jstr(inst, "id");
			struct ex_server_model *m = ex_server_model_get(s, id ? id : key);
			if (!m)
				break;
			m->loaded = true;
			str_copy(m->state, "loaded", sizeof m->state);
			m->size = jcount(e, "size_bytes");
			const json_t *cfg = json_object_get(inst, "config");
			if (json_is_object(cfg))
				m->n_ctx = jcount(cfg, "context_length");
		}
	}
	json_decref(j);
	return true;
}

/* LM Studio /api/v0/models: data[{id, state, max_context_length, loaded_context_length?}]. */
bool server_parse_lmstudio_v0(const char *buf, size_t len, struct ex_server *s)
{
	json_t *j = load(buf, len);
	const json_t *data = json_object_get(j, "data");
	size_t i;
	json_t *e;
	if (!json_is_array(data)) {
		json_decref(j);
		return false;
	}
	json_array_foreach(data, i, e) {
		const char *id = jstr(e, "id"), *state = jstr(e, "state");
		if (!id || !state)
			continue;
		set_kind(s, "lmstudio");
		if (strcmp(state, "loaded") != 0)
			continue;
		struct ex_server_model *m = ex_server_model_get(s, id);
		if (!m)
			continue;
		m->loaded = true;
		str_copy(m->state, state, sizeof m->state);
		gtm_u64 c = jcount(e, "loaded_context_length"); /* undocumented (unverified) */
		m->n_ctx = gtm_u64_ok(c) ? c : m->n_ctx;
	}
	json_decref(j);
	return true;
}

bool server_parse_health(const char *buf, size_t len, int http_status, struct ex_server *s)
{
	json_t *j = load(buf, len);
	bool ok = false;
	const char *st = jstr(j, "status");
	size_t blank = 0;
	while (buf && blank < len && (buf[blank] == ' ' || buf[blank] == '\n' || buf[blank] == '\r' || buf[blank] == '\t'))
		blank++;
	if (http_status == 200 && st) {
		str_copy(s->health, strcmp(st, "ok") == 0 ? "ok" : st, sizeof s->health);
		ok = true;
	} else if (http_status == 200 && blank == len) {
		/* vLLM's and SGLang's /health: 200 and no body */
		str_copy(s->health, "ok", sizeof s->health);
		ok = true;
	} else if (http_status == 503) {
		str_copy(s->health, "loading", sizeof s->health);
		ok = true;
	}
	json_decref(j);
	return ok;
}

bool server_body_is_disabled(const char *buf, size_t len)
{
	json_t *j = load(buf, len);
	const json_t *err = json_object_get(j, "error");
	const char *type = jstr(err, "type");
	bool off = type && strcmp(type, "not_supported_error") == 0;
	json_decref(j);
	return off;
}
