/* inspect for safetensors models: the text and JSON views. Sizes in the
 * text are MiB/GiB with two decimals; JSON has exact bytes and null for what
 * config.json or the headers do not say. Every string from a file is escaped. */
#include <stdio.h>
#include <string.h>

#include "app/cmd_inspect_st.h"
#include "core/format.h"
#include "core/util.h"
#include "views/json_util.h"

#define SAFE_N 1024

static const char *mib(char *buf, size_t n, uint64_t b)
{
	return fmt_mib(buf, n, b);
}

/* "8.03 B", "20.97 M", "4096" */
static const char *count(char *buf, size_t n, uint64_t v)
{
	if (v >= 1000000000ull)
		snprintf(buf, n, "%.2f B", (double)v / 1e9);
	else if (v >= 1000000ull)
		snprintf(buf, n, "%.2f M", (double)v / 1e6);
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
	return buf;
}

static void print_weights(FILE *out, const struct inspect_st *s)
{
	const struct st_model *m = &s->m;
	char a[32], c[32], t[SAFE_N];
	fprintf(out, "  weights       %s in %zu file%s (%s; from the headers' tensor sizes)\n",
		mib(a, sizeof a, m->weight_bytes), m->n_files, m->n_files == 1 ? "" : "s", m->source);
	fprintf(out, "  parameters    %s:", count(c, sizeof c, m->n_params));
	for (int d = 0, k = 0; d < ST_DTYPE_COUNT; d++)
		if (m->by_dtype[d].n_tensors)
			fprintf(out, "%s %s %s (%s)", k++ ? "," : "", st_dtype_name((enum st_dtype)d),
				count(c, sizeof c, m->by_dtype[d].n_params), mib(a, sizeof a, m->by_dtype[d].bytes));
	fputc('\n', out);
	for (size_t i = 0; i < m->n_files; i++) {
		const struct st_model_file *f = &m->files[i];
		if (f->error)
			fprintf(out, "  unreadable    %s: %s\n", fmt_safe(t, sizeof t, f->name), fmt_safe(a, sizeof a, f->error));
		else if (f->h->missing_bytes)
			fprintf(out, "  incomplete    %s: %s of tensor data missing (a partial download; the safetensors reader refuses it)\n",
				fmt_safe(t, sizeof t, f->name), mib(a, sizeof a, f->h->missing_bytes));
		else if (f->h->extra_bytes)
			fprintf(out, "  bad size      %s: %llu bytes after the tensor data (the safetensors reader refuses it)\n",
				fmt_safe(t, sizeof t, f->name), (unsigned long long)f->h->extra_bytes);
	}
}

static void print_config(FILE *out, const struct hf_config *c)
{
	char a[SAFE_N], b[SAFE_N];
	fprintf(out, "  architecture  %s (%s)%s\n", c->architecture[0] ? fmt_safe(a, sizeof a, c->architecture) : "N/A",
		c->model_type[0] ? fmt_safe(b, sizeof b, c->model_type) : "no model_type",
		c->from_text_config ? "; text_config read" : "");
	fprintf(out, "  layers        %llu: %llu full attention", (unsigned long long)c->n_layer,
		(unsigned long long)c->n_layers_kind[HF_LAYER_FULL]);
	if (c->n_layers_kind[HF_LAYER_SLIDING])
		fprintf(out, ", %llu sliding window%s", (unsigned long long)c->n_layers_kind[HF_LAYER_SLIDING],
			c->sliding_window ? "" : " (no window size: costed as full)");
	if (c->n_layers_kind[HF_LAYER_LINEAR])
		fprintf(out, ", %llu linear/Mamba (a constant state)", (unsigned long long)c->n_layers_kind[HF_LAYER_LINEAR]);
	if (c->n_layers_kind[HF_LAYER_UNKNOWN])
		fprintf(out, ", %llu of unknown type '%s' (costed as full)", (unsigned long long)c->n_layers_kind[HF_LAYER_UNKNOWN],
			fmt_safe(a, sizeof a, c->unknown_layer_type));
	fprintf(out, "\n  heads         %llu   KV heads %llu   head size %llu%s", (unsigned long long)c->n_head,
		(unsigned long long)c->n_kv_head, (unsigned long long)c->head_dim, c->head_dim_derived ? " (hidden/heads)" : "");
	if (c->sliding_window)
		fprintf(out, "   window %llu", (unsigned long long)c->sliding_window);
	fputc('\n', out);
	if (c->mla)
		fprintf(out, "  MLA           kv_lora_rank %llu + qk_rope_head_dim %llu: one latent per token per layer\n",
			(unsigned long long)c->kv_lora_rank, (unsigned long long)c->qk_rope_head_dim);
	if (c->n_experts)
		fprintf(out, "  experts       %llu (%llu used per token)\n", (unsigned long long)c->n_experts,
			(unsigned long long)c->n_experts_used);
	fprintf(out, "  context       %llu (max_position_embeddings)   dtype %s\n", (unsigned long long)c->max_pos,
		c->dtype[0] ? fmt_safe(a, sizeof a, c->dtype) : "N/A");
	if (c->have_quant)
		fprintf(out, "  quantization  %s%s%u%s%u\n", fmt_safe(a, sizeof a, c->quant_method[0] ? c->quant_method : "?"),
			c->quant_bits ? ", bits " : "", c->quant_bits, c->quant_group ? ", group " : "", c->quant_group);
	else
		fprintf(out, "  quantization  none declared\n");
}

static void print_plan(FILE *out, const struct inspect_st *s)
{
	const struct vllm_kv *k = &s->kv;
	char a[32], b[32], t[SAFE_N];
	if (!s->plan_ok) {
		fprintf(out, "\nPlan          N/A (%s)\n", fmt_safe(t, sizeof t, s->plan_err));
		return;
	}
	fprintf(out, "\nPlan (estimated with vLLM's rules: --kv-cache-dtype %s, --tensor-parallel-size %u, --block-size %u)\n",
		s->opts.kv_cache_dtype ? fmt_safe(t, sizeof t, s->opts.kv_cache_dtype) : "auto", k->tp, k->block_size);
	if (k->mla)
		fprintf(out, "  KV per token  %.2f KiB per GPU (estimated; %llu layers x one %llu-wide latent, %s; the same on every rank)\n",
			(double)k->per_token / 1024.0, (unsigned long long)(k->n_full + k->n_sliding + k->n_unknown),
			(unsigned long long)k->head_size, k->dtype_name);
	else
		fprintf(out, "  KV per token  %.2f KiB per GPU (estimated; %llu layers x %llu KV heads x (%llu + %llu) x %u bytes, %s)\n",
			(double)k->per_token / 1024.0, (unsigned long long)(k->n_full + k->n_sliding + k->n_unknown),
			(unsigned long long)k->kv_heads_rank, (unsigned long long)k->head_size,
			(unsigned long long)k->head_size_v, k->dtype_bytes, k->dtype_name);
	fprintf(out, "  KV at %-7llu %s per GPU for one sequence (estimated, whole blocks", (unsigned long long)k->max_model_len,
		mib(a, sizeof a, k->seq_bytes));
	if (k->n_sliding)
		fprintf(out, "; sliding layers bounded by the window + %llu batched tokens; full-attention bound %s",
			(unsigned long long)k->max_num_batched_tokens, mib(b, sizeof b, k->seq_bytes_full_bound));
	fprintf(out, ")\n");
	if (k->n_linear)
		fprintf(out, "  state         %llu linear/Mamba layers: a constant state per sequence, not per token (not estimated)\n",
			(unsigned long long)k->n_linear);
	fprintf(out, "  weights/GPU   %s (estimated: weights / %u)\n", mib(a, sizeof a, s->weights_gpu), k->tp);
	fprintf(out, "  need/GPU      %s (estimated; activations and CUDA graphs not estimated: vLLM profiles them)\n",
		mib(a, sizeof a, s->need_gpu));
	fprintf(out, "  vLLM then fills --gpu-memory-utilization %.2f of the GPU with KV blocks: its pool is larger than one sequence\n",
		s->gpu_util);
}

static void print_gpu(FILE *out, const struct inspect_st *s)
{
	char a[32], b[32], c[32], t[SAFE_N];
	if (!s->have_gpu) {
		fprintf(out, "  GPU           %s\n", s->fit_note[0] ? fmt_safe(t, sizeof t, s->fit_note) : "no GPU visible: fit not checked");
		return;
	}
	fprintf(out, "  GPU           %s: %s free of %s (measured); budget %s at %.2f\n", fmt_safe(t, sizeof t, s->gpu_name),
		mib(a, sizeof a, s->gpu_free), s->gpu_total ? mib(b, sizeof b, s->gpu_total) : "N/A", mib(c, sizeof c, s->budget),
		s->gpu_util);
	if (s->plan_ok)
		fprintf(out, "  fits          %s (estimated, per GPU of %u%s)\n", s->fits ? "yes" : s->gpu_free < s->budget ? "no: free memory is below the budget" : "no",
			s->kv.tp, s->kv.tp > 1 ? "; checked against this one GPU" : "");
}

void inspect_st_print(FILE *out, const struct inspect_st *s)
{
	char t[SAFE_N], d[SAFE_N];
	fprintf(out, "Model %s\n", fmt_safe(t, sizeof t, s->label));
	fprintf(out, "  folder        %s\n", fmt_safe(d, sizeof d, s->m.dir));
	print_weights(out, s);
	if (s->m.have_config)
		print_config(out, &s->m.config);
	else
		fprintf(out, "  config        N/A (%s)\n", fmt_safe(t, sizeof t, s->m.config_error));
	print_plan(out, s);
	print_gpu(out, s);
}

static json_t *bytes(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *nz(uint64_t v)
{
	return v ? bytes(v) : json_null();
}

static json_t *files_json(const struct st_model *m)
{
	json_t *a = json_array();
	for (size_t i = 0; i < m->n_files; i++) {
		const struct st_model_file *f = &m->files[i];
		const struct st_header *h = f->h;
		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name", json_of_str(f->name), "tensor_bytes",
						   h ? bytes(h->data_len) : json_null(), "params", h ? bytes(h->n_params) : json_null(),
						   "header_bytes", h ? bytes(8 + h->header_len) : json_null(), "missing_bytes",
						   h ? bytes(h->missing_bytes) : json_null(), "extra_bytes",
						   h ? bytes(h->extra_bytes) : json_null(), "error", json_of_str(f->error)));
	}
	return a;
}

static json_t *config_json(const struct hf_config *c)
{
	json_t *j = json_object(), *kinds = json_object();
	json_object_set_new(j, "architecture", json_of_str(c->architecture[0] ? c->architecture : NULL));
	json_object_set_new(j, "model_type", json_of_str(c->model_type[0] ? c->model_type : NULL));
	json_object_set_new(j, "from_text_config", json_boolean(c->from_text_config));
	json_object_set_new(j, "layers", nz(c->n_layer));
	for (int k = 0; k < 4; k++)
		json_object_set_new(kinds, hf_layer_kind_name((enum hf_layer_kind)k), bytes(c->n_layers_kind[k]));
	json_object_set_new(j, "layers_by_kind", kinds);
	json_object_set_new(j, "heads", nz(c->n_head));
	json_object_set_new(j, "kv_heads", nz(c->n_kv_head));
	json_object_set_new(j, "head_dim", nz(c->head_dim));
	json_object_set_new(j, "head_dim_derived", json_boolean(c->head_dim_derived));
	json_object_set_new(j, "hidden_size", nz(c->hidden));
	json_object_set_new(j, "max_position_embeddings", nz(c->max_pos));
	json_object_set_new(j, "sliding_window", nz(c->sliding_window));
	json_object_set_new(j, "dtype", json_of_str(c->dtype[0] ? c->dtype : NULL));
	json_object_set_new(j, "mla", c->mla ? json_pack("{s:o, s:o}", "kv_lora_rank", bytes(c->kv_lora_rank),
							  "qk_rope_head_dim", bytes(c->qk_rope_head_dim))
					     : json_null());
	json_object_set_new(j, "experts", nz(c->n_experts));
	json_object_set_new(j, "quantization", c->have_quant ? json_pack("{s:o, s:o, s:o}", "method",
									 json_of_str(c->quant_method[0] ? c->quant_method : NULL),
									 "bits", nz(c->quant_bits), "group_size", nz(c->quant_group))
							     : json_null());
	return j;
}

static json_t *plan_json(const struct inspect_st *s)
{
	const struct vllm_kv *k = &s->kv;
	json_t *kv = json_pack("{s:o, s:o, s:o, s:o, s:o}", "bytes_per_token", bytes(k->per_token), "bytes_per_token_layer",
			       bytes(k->layer_token_bytes), "kv_heads_per_gpu", bytes(k->kv_heads_rank), "bytes_max_model_len",
			       bytes(k->seq_bytes), "bytes_full_attention_bound", bytes(k->seq_bytes_full_bound));
	json_object_set_new(kv, "mla", json_boolean(k->mla));
	json_object_set_new(kv, "constant_state_layers", bytes(k->n_linear));
	json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:i, s:o, s:o, s:f}", "provenance", "estimated", "rules", "vllm",
			      "kv_cache_dtype", s->opts.kv_cache_dtype ? s->opts.kv_cache_dtype : "auto",
			      "tensor_parallel_size", (json_int_t)k->tp, "block_size", (json_int_t)k->block_size,
			      "max_num_batched_tokens", bytes(k->max_num_batched_tokens), "max_model_len",
			      bytes(k->max_model_len), "gpu_memory_utilization", s->gpu_util);
	json_object_set_new(j, "kv", kv);
	json_object_set_new(j, "weights_per_gpu_bytes", bytes(s->weights_gpu));
	json_object_set_new(j, "need_per_gpu_bytes", bytes(s->need_gpu));
	return j;
}

json_t *inspect_st_json(const struct inspect_st *s)
{
	const struct st_model *m = &s->m;
	json_t *j = json_object(), *dt = json_object();
	for (int d = 0; d < ST_DTYPE_COUNT; d++)
		if (m->by_dtype[d].n_tensors)
			json_object_set_new(dt, st_dtype_name((enum st_dtype)d),
					    json_pack("{s:o, s:o, s:o}", "tensors", bytes(m->by_dtype[d].n_tensors), "params",
						      bytes(m->by_dtype[d].n_params), "bytes", bytes(m->by_dtype[d].bytes)));
	json_object_set_new(j, "model", json_of_str(s->label));
	json_object_set_new(j, "format", json_string("safetensors"));
	json_object_set_new(j, "folder", json_of_str(m->dir));
	json_object_set_new(j, "weights_from", json_string(m->source));
	json_object_set_new(j, "files", files_json(m));
	json_object_set_new(j, "params", bytes(m->n_params));
	json_object_set_new(j, "params_by_dtype", dt);
	json_object_set_new(j, "weights_bytes", bytes(m->weight_bytes));
	json_object_set_new(j, "index_total_size", m->have_index && m->index_total_size ? bytes(m->index_total_size) : json_null());
	json_object_set_new(j, "incomplete_files", bytes(m->n_incomplete));
	json_object_set_new(j, "config", m->have_config ? config_json(&m->config) : json_null());
	json_object_set_new(j, "config_error", json_of_str(m->have_config ? NULL : m->config_error));
	json_object_set_new(j, "plan", s->plan_ok ? plan_json(s) : json_null());
	json_object_set_new(j, "plan_error", json_of_str(s->plan_ok ? NULL : s->plan_err));
	json_object_set_new(j, "gpu", s->have_gpu ? json_pack("{s:o, s:o, s:o, s:o, s:o}", "name", json_of_str(s->gpu_name), "free_bytes",
							     bytes(s->gpu_free), "total_bytes", nz(s->gpu_total),
							     "budget_bytes", bytes(s->budget), "fits",
							     s->plan_ok ? json_boolean(s->fits) : json_null())
						  : json_null());
	return j;
}
