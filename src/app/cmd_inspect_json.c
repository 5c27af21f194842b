/* inspect --json: exact bytes; null where the header says nothing. */
#include <string.h>

#include "app/cmd_inspect.h"
#include "core/util.h"
#include "llm/ggml_types.h"

/* A header count where 0 means absent: null, never 0 (N/A rule). */
static json_t *count_or_null(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

static json_t *bytes(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *model_json(const struct inspect_model *m)
{
	const struct gguf_model_info *i = &m->info;
	json_t *mix = json_array();
	for (size_t k = 0; k < i->n_mix; k++)
		json_array_append_new(mix, json_pack("{s:s, s:o}", "type", ggml_type_name(i->mix[k].type), "bytes",
						     bytes(i->mix[k].bytes)));
	return json_pack("{s:o, s:o, s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
			 "s:o, s:o, s:i, s:o}",
			 "architecture", str_or_null(i->arch), "name", str_or_null(i->name),
			 "kind", gguf_kind_name(i->kind), "kind_hint", str_or_null(i->kind_hint),
			 "kind_label", i->kind_label, "parameters", count_or_null(i->n_params),
			 "file_type", i->has_ftype ? json_integer(i->ftype & 1023u) : json_null(),
			 "file_type_name", str_or_null(i->quant),
			 "quantization", str_or_null(i->quant), "file_type_guessed", i->ftype_guessed,
			 "tensor_types", mix, "layers", count_or_null(i->n_layer),
			 "context_length", count_or_null(i->n_ctx_train),
			 "embedding_length", count_or_null(i->n_embd), "head_count", count_or_null(i->n_head),
			 "head_count_kv", count_or_null(i->n_head_kv),
			 "expert_count", count_or_null(i->n_expert),
			 "expert_used_count", count_or_null(i->n_expert_used),
			 "file_size_bytes", m->h->file_size ? bytes(m->h->file_size) : json_null(),
			 "gguf_version", (int)m->h->version, "header_bytes", bytes(m->h->infos_end));
}

static json_t *flags_json(const struct inspect_model *m)
{
	const struct llama_flags *f = m->flags;
	static const char *const fa[] = {"auto", "on", "off"};
	static const struct { unsigned bit; const char *flag; } defs[] = {
		{LF_DEF_CTX, "-c"}, {LF_DEF_NGL, "-ngl"}, {LF_DEF_NP, "-np"}, {LF_DEF_CTK, "-ctk"},
		{LF_DEF_CTV, "-ctv"}, {LF_DEF_FA, "-fa"}, {LF_DEF_UBATCH, "-ub"}, {LF_DEF_BATCH, "-b"},
	};
	json_t *d = json_array();
	for (size_t i = 0; i < ARRAY_LEN(defs); i++)
		if (f->defaulted & defs[i].bit)
			json_array_append_new(d, json_string(defs[i].flag));
	return json_pack("{s:o, s:i, s:i, s:b, s:s, s:s, s:s, s:i, s:i, s:b, s:b, s:b, s:i, s:o}",
			 "ctx_size", f->n_ctx ? json_integer((json_int_t)f->n_ctx) : json_null(),
			 "n_gpu_layers", f->n_gpu_layers, "parallel", f->n_parallel, "kv_unified", f->kv_unified,
			 "cache_type_k", ggml_type_name(f->type_k), "cache_type_v", ggml_type_name(f->type_v),
			 "flash_attn", fa[f->flash_attn], "batch", f->n_batch, "ubatch", f->n_ubatch,
			 "swa_full", f->swa_full, "no_mmap", f->no_mmap, "cpu_moe", f->cpu_moe,
			 "n_cpu_moe", f->n_cpu_moe, "defaults_assumed", d);
}

static json_t *kv_json(const struct estimate *e)
{
	return json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:b}",
			 "present", e->has_kv, "bytes_per_token", bytes(e->kv_bytes_per_token),
			 "bytes", bytes(e->kv_bytes), "full_attention_bytes", bytes(e->kv_full_bytes),
			 "k_bytes", bytes(e->kv_k_bytes), "v_bytes", bytes(e->kv_v_bytes),
			 "gpu_bytes", bytes(e->kv_gpu), "host_bytes", bytes(e->kv_host),
			 "cells", bytes(e->kv_cells), "swa_cells", e->n_swa_layers ? bytes(e->swa_cells) : json_null(),
			 "layers", (int)e->n_kv_layers, "swa_layers", (int)e->n_swa_layers, "mla", e->mla);
}

static json_t *estimate_json(const struct inspect_model *m)
{
	const struct estimate *e = &m->est;
	json_t *notes = json_array();
	if (!m->plan_ok)
		return json_pack("{s:s, s:n, s:s}", "provenance", "unavailable", "plan", "error", m->plan_err);
	for (size_t i = 0; i < e->n_notes; i++)
		json_array_append_new(notes, json_string(e->notes[i]));
	return json_pack("{s:s, s:o, s:i, s:i, s:b, s:i, s:i, s:i, s:b, s:o, s:o, s:b, s:o, s:o, s:o, s:o, "
			 "s:i, s:o, s:o, s:o, s:o, s:n, s:b, s:o}",
			 "provenance", "estimated", "n_ctx", bytes(e->n_ctx), "n_seq", (int)e->n_seq,
			 "n_stream", (int)e->n_stream, "kv_unified", e->unified, "n_ubatch", (int)e->n_ubatch,
			 "n_layer", (int)e->n_layer, "gpu_layers", (int)e->gpu_layers, "output_on_gpu", e->output_on_gpu,
			 "weights_gpu_bytes", bytes(e->weights_gpu), "weights_host_bytes", bytes(e->weights_host),
			 "weights_host_mapped", e->host_mapped, "tied_copy_bytes", bytes(e->tied_copy),
			 "moved_to_host_bytes", bytes(e->moved_to_host), "kv", kv_json(e),
			 "recurrent_bytes", bytes(e->rs_bytes), "recurrent_layers", (int)e->n_rs_layers,
			 "recurrent_gpu_bytes", bytes(e->rs_gpu), "output_bytes", bytes(e->output_bytes),
			 "gpu_total_bytes", bytes(e->gpu_total),
			 "host_total_bytes", bytes(e->host_total), "compute_bytes", "refused", e->refused,
			 "notes", notes);
}

static json_t *gpu_json(const struct inspect_model *m)
{
	if (!m->have_gpu)
		return json_null();
	return json_pack("{s:s, s:o, s:o, s:o, s:o}", "name", m->gpu_name, "free_bytes", bytes(m->gpu_free),
			 "total_bytes", m->gpu_total ? bytes(m->gpu_total) : json_null(), "fits", m->plan_ok ? json_boolean(m->fits) : json_null(),
			 "max_ctx", m->plan_ok && m->max_ctx ? bytes(m->max_ctx) : json_null());
}

json_t *inspect_model_json(const struct inspect_model *m)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:s}", "path", m->path, "model", model_json(m),
			 "flags", flags_json(m), "estimate", estimate_json(m), "gpu", gpu_json(m),
			 "fit", m->have_gpu ? "checked" : m->fit_note ? m->fit_note : "no GPU visible: fit not checked");
}
