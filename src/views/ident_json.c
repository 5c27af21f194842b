#include "views/ident_json.h"

#include "llm/ggml_types.h"
#include "views/json_util.h"

/* A header count: 0 means the key is absent from the header (gguf_info.h). */
static json_t *json_count(uint64_t v)
{
	return v ? json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v) : json_null();
}

/* Straight through the writer: every GPU row with a runtime has one, and a
 * jansson tree of three members, dumped and re-indented, cost 15,000
 * instructions a row. */
static void jw_runtime(struct jw *w, const struct ident_runtime *r)
{
	jw_begin_object(w, NULL);
	jw_str(w, "id", r->id);
	jw_str(w, "name", r->name);
	jw_begin_array(w, "evidence");
	for (int k = 0; k < r->n_evidence; k++)
		jw_str(w, NULL, r->evidence[k]);
	jw_end_array(w);
	jw_end_object(w);
}

json_t *ident_json_gguf_info(const struct gguf_model_info *m)
{
	json_t *j = json_object(), *mix = json_array();
	json_put(j, "arch", json_of_str(m->arch));
	json_put(j, "name", json_of_str(m->name));
	json_put(j, "kind", json_string(gguf_kind_name(m->kind)));
	json_put(j, "kind_hint", json_of_str(m->kind_hint));
	json_put(j, "kind_label", json_of_str(m->kind_label));
	json_put(j, "params", json_count(m->n_params));
	json_put(j, "quant", json_of_str(m->quant));
	json_put(j, "file_type", m->has_ftype ? json_integer(m->ftype) : json_null());
	for (size_t i = 0; i < m->n_mix; i++) {
		json_t *t = json_object();
		json_put(t, "type", json_string(ggml_type_name(m->mix[i].type)));
		json_put(t, "bytes", json_count(m->mix[i].bytes));
		json_array_append_new(mix, t);
	}
	json_put(j, "tensor_types", mix);
	json_put(j, "tensor_bytes", json_count(m->tensor_bytes));
	json_put(j, "layers", json_count(m->n_layer));
	json_put(j, "context_train", json_count(m->n_ctx_train));
	json_put(j, "embedding", json_count(m->n_embd));
	json_put(j, "heads", json_count(m->n_head));
	json_put(j, "heads_kv", json_count(m->n_head_kv));
	json_put(j, "experts", json_count(m->n_expert));
	json_put(j, "experts_used", json_count(m->n_expert_used));
	/* a partial download (gguf_missing_bytes): null when the file's length is unknown */
	json_put(j, "incomplete", json_boolean(m->incomplete));
	json_put(j, "missing_bytes", m->file_size ? json_integer((json_int_t)(m->missing_bytes > INT64_MAX ? INT64_MAX : m->missing_bytes)) : json_null());
	json_put(j, "expected_size_bytes", json_count(m->data_end));
	return j;
}

static const char *model_status(const struct ident_model *m)
{
	if (ident_model_confirmed(m))
		return "confirmed";
	return ident_model_unproven(m) ? "not proven loaded" : "single source";
}

/* "format", "hf" (the Hugging Face cache entry) and "safetensors" (the
 * header's summary), null where unknown. */
static void ident_json_hf_st(json_t *j, const struct ident_model *m)
{
	json_put(j, "format", json_string(m->format == MODEL_FORMAT_SAFETENSORS ? "safetensors" : "gguf"));
	json_t *hf = json_null(), *st = json_null();
	if (m->hf_label[0]) {
		hf = json_object();
		json_put(hf, "repo_revision", json_of_str(m->hf_label));
		json_put(hf, "file", json_of_str(m->hf_file));
		json_put(hf, "shard", m->hf_shards ? json_integer(m->hf_shard) : json_null());
		json_put(hf, "shards", m->hf_shards ? json_integer(m->hf_shards) : json_null());
	}
	if (m->have_st) {
		st = json_object();
		json_put(st, "params", json_of_u64(gtm_u64_of(m->st_params, GTM_MEASURED)));
		json_put(st, "tensor_bytes", json_of_u64(gtm_u64_of(m->st_tensor_bytes, GTM_MEASURED)));
		json_put(st, "main_dtype", json_of_str(m->st_dtype[0] ? m->st_dtype : NULL));
		json_put(st, "incomplete", json_boolean(m->st_incomplete));
	}
	json_put(j, "hf", hf);
	json_put(j, "safetensors", st);
}

/* --trace-opens' open of this file: when, how often, the VRAM around it. */
static json_t *ident_json_opened(const struct ident_model *m)
{
	if (!(m->evidence & (1u << MODEL_EV_OPENED)))
		return json_null();
	json_t *o = json_object();
	json_put(o, "at", m->opened_unix_ns > 0 ? json_of_time_ns((uint64_t)m->opened_unix_ns) : json_null());
	json_put(o, "opens", json_integer(m->opened_count));
	json_put(o, "vram_before_bytes", json_of_u64(m->opened_vram_before));
	json_put(o, "vram_after_bytes", json_of_u64(m->opened_vram_after));
	return o;
}

json_t *ident_json_model(const struct ident_model *m, const char *alias)
{
	json_t *j = json_object(), *ev = json_array(), *detail = json_object();
	json_put(j, "name", json_of_str(m->name));
	json_put(j, "alias", json_of_str(alias));
	json_put(j, "path", json_of_str(m->path));
	json_put(j, "store", m->store == MODEL_STORE_NONE ? json_null() : json_string(model_store_name(m->store)));
	json_put(j, "role", json_string(model_role_name(m->role)));
	for (int e = 0; e < MODEL_EV_COUNT; e++) {
		if (!(m->evidence & (1u << e)))
			continue;
		json_array_append_new(ev, json_string(model_evidence_name((enum model_evidence)e)));
		if (m->evidence_detail[e])
			json_put(detail, model_evidence_name((enum model_evidence)e), json_of_str(m->evidence_detail[e]));
	}
	json_put(j, "evidence", ev);
	json_put(j, "evidence_detail", detail);
	json_put(j, "opened", ident_json_opened(m));
	json_put(j, "confirmed", json_boolean(ident_model_confirmed(m)));
	json_put(j, "status", json_string(model_status(m)));
	json_put(j, "file_size_bytes", json_of_u64(m->file_size));
	json_put(j, "gguf", m->have_info ? ident_json_gguf_info(&m->info) : json_null());
	ident_json_hf_st(j, m);
	json_put(j, "error", json_of_str(m->error));
	return j;
}

json_t *ident_json_llama_flags(const struct llama_flags *f)
{
	json_t *j = json_object(), *ot = json_array();
	char defaults[256];

	json_put(j, "ctx_size", f->defaulted & LF_DEF_CTX ? json_null() : json_integer((json_int_t)f->n_ctx));
	json_put(j, "n_gpu_layers", f->defaulted & LF_DEF_NGL ? json_null() : json_integer(f->n_gpu_layers));
	json_put(j, "cache_type_k", json_string(ggml_cache_type_name(f->type_k)));
	json_put(j, "cache_type_v", json_string(ggml_cache_type_name(f->type_v)));
	json_put(j, "flash_attn", json_string(f->flash_attn == LLAMA_FA_ON ? "on" : f->flash_attn == LLAMA_FA_OFF ? "off" : "auto"));
	json_put(j, "parallel", f->n_parallel < 0 ? json_null() : json_integer(f->n_parallel));
	json_put(j, "kv_unified", json_boolean(f->kv_unified));
	json_put(j, "batch", json_integer(f->n_batch));
	json_put(j, "ubatch", json_integer(f->n_ubatch));
	json_put(j, "swa_full", json_boolean(f->swa_full));
	json_put(j, "no_mmap", json_boolean(f->no_mmap));
	json_put(j, "cpu_moe", json_boolean(f->cpu_moe));
	json_put(j, "n_cpu_moe", json_integer(f->n_cpu_moe));
	for (size_t i = 0; i < f->n_ot; i++) {
		json_t *o = json_object();
		json_put(o, "pattern", json_of_str(f->ot[i].pattern));
		json_put(o, "buffer_type", json_of_str(f->ot[i].buft));
		json_array_append_new(ot, o);
	}
	json_put(j, "override_tensor", ot);
	json_put(j, "port", f->port < 0 ? json_null() : json_integer(f->port));
	json_put(j, "alias", json_of_str(f->alias));
	llama_flags_describe_defaults(f, defaults, sizeof defaults);
	json_put(j, "defaults_assumed", json_of_str(defaults));
	json_put(j, "error", json_of_str(f->error));
	return j;
}

/* Through the writer: the snapshot writes one set per row, and most rows
 * (no runtime, no model) need no tree at all. */
void ident_jw_into(struct jw *w, const struct gtm_ident *id)
{
	jw_str(w, "category", ident_category_name(id->category));
	jw_str(w, "category_reason", id->category_reason);
	jw_begin_array(w, "runtimes");
	for (int i = 0; i < id->n_runtimes; i++)
		jw_runtime(w, &id->runtimes[i]);
	jw_end_array(w);
	jw_begin_array(w, "models");
	for (int i = 0; i < id->n_models; i++)
		jw_json(w, NULL, ident_json_model(&id->models[i], ident_model_alias(id, &id->models[i])));
	jw_end_array(w);
	jw_int(w, "installed_omitted", id->n_installed_omitted);
	jw_json(w, "llama_flags", id->flags ? ident_json_llama_flags(id->flags) : NULL);
}
