/* inspect --json: exact bytes; null where the header says nothing. */
#include <string.h>

#include "app/cmd_inspect.h"
#include "core/util.h"
#include "llm/ggml_types.h"
#include "views/ident_json.h"
#include "views/json_util.h"

static json_t *bytes(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* The snapshot's models[].gguf object (same names), plus what inspect adds. */
static json_t *model_json(const struct inspect_model *m)
{
	json_t *j = ident_json_gguf_info(&m->info);
	json_object_set_new(j, "file_type_guessed", json_boolean(m->info.ftype_guessed));
	json_object_set_new(j, "file_size_bytes", m->h->file_size ? bytes(m->h->file_size) : json_null());
	json_object_set_new(j, "gguf_version", json_integer((json_int_t)m->h->version));
	json_object_set_new(j, "header_bytes", bytes(m->h->infos_end));
	return j;
}

/* A flag left at llama-server's "auto" (a negative count) is null, as in the
 * snapshot's llama_flags; `defaulted` lists the flags not given and
 * `defaults_assumed` names their defaults. */
static json_t *count_or_auto(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static json_t *flags_json(const struct inspect_model *m)
{
	const struct llama_flags *f = m->flags;
	static const char *const fa[] = {"auto", "on", "off"};
	static const struct { unsigned bit; const char *flag; } defs[] = {
		{LF_DEF_CTX, "-c"}, {LF_DEF_NGL, "-ngl"}, {LF_DEF_NP, "-np"}, {LF_DEF_CTK, "-ctk"},
		{LF_DEF_CTV, "-ctv"}, {LF_DEF_FA, "-fa"}, {LF_DEF_UBATCH, "-ub"}, {LF_DEF_BATCH, "-b"},
	};
	char assumed[256];
	json_t *d = json_array(), *ign = json_array();
	for (size_t i = 0; i < ARRAY_LEN(defs); i++)
		if (f->defaulted & defs[i].bit)
			json_array_append_new(d, json_string(defs[i].flag));
	for (size_t i = 0; i < f->n_ignored; i++)
		json_array_append_new(ign, json_pack("{s:o, s:o, s:s}", "flag", json_of_str(f->ignored[i].flag),
						     "value", json_of_str(f->ignored[i].value), "reason", f->ignored[i].why));
	llama_flags_describe_defaults(f, assumed, sizeof assumed);
	json_t *j = json_pack("{s:o, s:o, s:o, s:b, s:s, s:s, s:s, s:i, s:i, s:b, s:b, s:b, s:i, s:o, s:o, s:o, s:I}",
			 "ctx_size", f->n_ctx ? json_integer((json_int_t)f->n_ctx) : json_null(),
			 "n_gpu_layers", count_or_auto(f->n_gpu_layers), "parallel", count_or_auto(f->n_parallel),
			 "kv_unified", f->kv_unified, "cache_type_k", ggml_cache_type_name(f->type_k),
			 "cache_type_v", ggml_cache_type_name(f->type_v), "flash_attn", fa[f->flash_attn], "batch", f->n_batch,
			 "ubatch", f->n_ubatch, "swa_full", f->swa_full, "no_mmap", f->no_mmap, "cpu_moe", f->cpu_moe,
			 "n_cpu_moe", f->n_cpu_moe, "defaulted", d,
			 "defaults_assumed", assumed[0] ? json_string(assumed) : json_null(), "ignored", ign,
			 "ignored_more", (json_int_t)f->n_ignored_dropped);
	json_t *ts = json_array();
	for (size_t i = 0; i < f->n_tensor_split; i++)
		json_array_append_new(ts, json_real(f->tensor_split[i]));
	json_object_set_new(j, "split_mode", json_string(llama_split_mode_name(f->split_mode)));
	json_object_set_new(j, "main_gpu", json_integer(f->main_gpu));
	json_object_set_new(j, "tensor_split", f->n_tensor_split ? ts : (json_decref(ts), json_null()));
	return j;
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
	json_t *notes;
	/* no plan: every figure null (unavailable, never 0) */
	if (!m->plan_ok)
		return json_pack("{s:s, s:b, s:n, s:s, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:b, s:[]}", "provenance",
				 "unavailable", "from_incomplete_file", m->info.incomplete, "plan", "error", m->plan_err, "n_ctx", "weights_gpu_bytes",
				 "weights_host_bytes", "kv", "recurrent_bytes", "output_bytes", "gpu_total_bytes",
				 "host_total_bytes", "refused", false, "notes");
	notes = json_array();
	for (size_t i = 0; i < e->n_notes; i++)
		json_array_append_new(notes, json_string(e->notes[i]));
	return json_pack("{s:s, s:b, s:o, s:o, s:i, s:i, s:b, s:i, s:i, s:i, s:b, s:o, s:o, s:b, s:o, s:o, s:o, s:o, "
			 "s:i, s:o, s:o, s:o, s:o, s:n, s:b, s:o}",
			 "provenance", "estimated", "from_incomplete_file", e->missing_bytes > 0, "n_ctx", bytes(e->n_ctx),
			 "n_ctx_clamped_from", e->ctx_clamped_from ? bytes(e->ctx_clamped_from) : json_null(),
			 "n_seq", (int)e->n_seq,
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
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:o}", "path", m->path, "model", model_json(m),
			 "flags", flags_json(m), "estimate", estimate_json(m), "gpu", gpu_json(m),
			 "fit", m->have_gpu ? "checked" : m->fit_note ? m->fit_note : "no GPU visible: fit not checked",
			 "devices", inspect_split_json(m));
}
