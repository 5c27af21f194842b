#include "views/ident_text.h"

#include <string.h>

#include "core/format.h"
#include "llm/ggml_types.h"

/* Room for an escaped model name, path or header string (see fmt_safe). */
#define SAFE_N 1024

/* Appends to buf at *len, never past n; s is escaped (it may come from a
 * GGUF header, a path or a command line). */
static void cat(char *buf, size_t n, size_t *len, const char *fmt, const char *s)
{
	char e[SAFE_N];
	if (*len >= n)
		return;
	int w = snprintf(buf + *len, n - *len, fmt, fmt_safe(e, sizeof e, s));
	if (w > 0)
		*len = *len + (size_t)w < n ? *len + (size_t)w : n - 1;
}

char *ident_text_runtimes(const struct gtm_ident *id, char *buf, size_t n)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (int i = 0; i < id->n_runtimes; i++)
		cat(buf, n, &len, i ? ", %s" : "%s", id->runtimes[i].name);
	return buf;
}

char *ident_text_model(const struct gtm_ident *id, char *buf, size_t n)
{
	const char *name = "";
	for (int i = 0; i < id->n_models && !name[0]; i++)
		if (!ident_model_unproven(&id->models[i]) && id->models[i].name)
			name = id->models[i].name;
	char e[SAFE_N];
	snprintf(buf, n, "%s", fmt_safe(e, sizeof e, name));
	return buf;
}

char *ident_text_evidence(const struct ident_model *m, char *buf, size_t n)
{
	size_t len = 0;
	int k = 0;
	if (n)
		buf[0] = '\0';
	for (int e = 0; e < MODEL_EV_COUNT; e++)
		if (m->evidence & (1u << e))
			cat(buf, n, &len, k++ ? "+%s" : "%s", model_evidence_name((enum model_evidence)e));
	if (ident_model_confirmed(m))
		cat(buf, n, &len, "%s", ", confirmed");
	else if (ident_model_unproven(m))
		cat(buf, n, &len, "%s", ", not proven loaded");
	return buf;
}

static void fmt_params(char *buf, size_t n, uint64_t p)
{
	if (p >= 1000000000ull)
		snprintf(buf, n, "%.1fB", (double)p / 1e9);
	else if (p >= 1000000ull)
		snprintf(buf, n, "%.0fM", (double)p / 1e6);
	else
		snprintf(buf, n, "%.0fK", (double)p / 1e3);
}

char *ident_text_gguf_summary(const struct gguf_model_info *m, char *buf, size_t n)
{
	char params[32], num[32];
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	cat(buf, n, &len, "%s ", m->arch[0] ? m->arch : "unknown-arch");
	cat(buf, n, &len, "%s", m->kind_label[0] ? m->kind_label : gguf_kind_text(m->kind));
	if (m->n_params) {
		fmt_params(params, sizeof params, m->n_params);
		cat(buf, n, &len, ", %s params", params);
	}
	if (m->quant[0])
		cat(buf, n, &len, ", %s", m->quant);
	if (m->n_layer) {
		snprintf(num, sizeof num, "%llu", (unsigned long long)m->n_layer);
		cat(buf, n, &len, ", %s layers", num);
	}
	if (m->n_ctx_train) {
		snprintf(num, sizeof num, "%llu", (unsigned long long)m->n_ctx_train);
		cat(buf, n, &len, ", trained ctx %s", num);
	}
	if (m->incomplete) {
		char inc[160];
		cat(buf, n, &len, ", incomplete file: %s", ident_text_incomplete(m, inc, sizeof inc));
	}
	return buf;
}

char *ident_text_incomplete(const struct gguf_model_info *m, char *buf, size_t n)
{
	char miss[32], need[32], have[32];
	if (!m->incomplete) {
		if (n)
			buf[0] = '\0';
		return buf;
	}
	snprintf(buf, n, "%s of tensor data missing (the header needs %s, the file has %s)",
		 fmt_mib(miss, sizeof miss, m->missing_bytes), fmt_mib(need, sizeof need, m->data_end),
		 fmt_mib(have, sizeof have, m->file_size));
	return buf;
}

/* The Hugging Face cache entry and the safetensors summary of a model:
 * "  Qwen/Qwen3-8B@main model-00001-of-00005.safetensors (shard 1 of 5)
 * safetensors 1.99 G params BF16". */
static void ident_text_hf_st(FILE *out, const struct ident_model *m)
{
	char a[SAFE_N], b[SAFE_N];
	if (m->hf_label[0])
		fprintf(out, "  %s %s", fmt_safe(a, sizeof a, m->hf_label), fmt_safe(b, sizeof b, m->hf_file));
	if (m->hf_shards)
		fprintf(out, " (shard %u of %u)", m->hf_shard, m->hf_shards);
	if (m->have_st)
		fprintf(out, "  safetensors %.2f M params %s%s", (double)m->st_params / 1e6, fmt_safe(a, sizeof a, m->st_dtype),
			m->st_incomplete ? ", incomplete file" : "");
	else if (m->format == MODEL_FORMAT_SAFETENSORS)
		fprintf(out, "  safetensors");
}

static void print_model_line(FILE *out, const struct gtm_ident *id, const struct ident_model *m, const char *indent)
{
	char ev[96], sum[256], size[32], nm[SAFE_N], al[SAFE_N];
	const char *alias = ident_model_alias(id, m);
	fprintf(out, "%smodel     %s%s%s%s%s%s  [%s]", indent, m->name ? fmt_safe(nm, sizeof nm, m->name) : "?",
		alias ? " (alias " : "", alias ? fmt_safe(al, sizeof al, alias) : "", alias ? ")" : "",
		m->role != MODEL_ROLE_MODEL ? " as " : "", m->role != MODEL_ROLE_MODEL ? model_role_name(m->role) : "",
		ident_text_evidence(m, ev, sizeof ev));
	if (m->have_info)
		fprintf(out, "  %s", ident_text_gguf_summary(&m->info, sum, sizeof sum));
	ident_text_hf_st(out, m);
	if (gtm_u64_ok(m->file_size))
		fprintf(out, "  %s", fmt_bytes(size, sizeof size, m->file_size));
	if (m->error)
		fprintf(out, "  (%s)", fmt_safe(nm, sizeof nm, m->error));
	fputc('\n', out);
}

void ident_text_print(FILE *out, const struct gtm_ident *id, const char *indent)
{
	char rts[256], why[SAFE_N];
	fprintf(out, "%s%-9s %s (%s)%s%s\n", indent, "category", ident_category_text(id->category),
		fmt_safe(why, sizeof why, id->category_reason), id->n_runtimes ? "  runtimes: " : "", ident_text_runtimes(id, rts, sizeof rts));
	for (int i = 0; i < id->n_models; i++)
		print_model_line(out, id, &id->models[i], indent);
	if (id->n_installed_omitted > 0)
		fprintf(out, "%s          (%d more installed, not listed)\n", indent, id->n_installed_omitted);
}

static void print_flags(FILE *out, const struct llama_flags *f, const char *indent)
{
	char defaults[256], err[SAFE_N];
	fprintf(out, "%sflags     ", indent);
	if (!(f->defaulted & LF_DEF_CTX))
		fprintf(out, "-c %llu ", (unsigned long long)f->n_ctx);
	if (!(f->defaulted & LF_DEF_NGL))
		fprintf(out, "-ngl %d ", f->n_gpu_layers);
	if (!(f->defaulted & LF_DEF_NP))
		fprintf(out, "-np %d ", f->n_parallel);
	fprintf(out, "-ctk %s -ctv %s -fa %s -ub %u\n", ggml_cache_type_name(f->type_k), ggml_cache_type_name(f->type_v),
		f->flash_attn == LLAMA_FA_ON ? "on" : f->flash_attn == LLAMA_FA_OFF ? "off" : "auto", f->n_ubatch);
	llama_flags_describe_defaults(f, defaults, sizeof defaults);
	if (defaults[0])
		fprintf(out, "%s          defaults assumed: %s\n", indent, fmt_safe(err, sizeof err, defaults));
	if (f->error[0])
		fprintf(out, "%s          flag error: %s\n", indent, fmt_safe(err, sizeof err, f->error));
}

/* One model's file, evidence details and header strings, each escaped. */
static void print_model_details(FILE *out, const struct ident_model *m, const char *indent)
{
	char a[SAFE_N];
	if (m->path)
		fprintf(out, "%s          file %s%s%s\n", indent, fmt_safe(a, sizeof a, m->path), m->store ? "  store " : "",
			m->store ? model_store_name(m->store) : "");
	for (int e = 0; e < MODEL_EV_COUNT; e++)
		if ((m->evidence & (1u << e)) && m->evidence_detail[e])
			fprintf(out, "%s          %s: %s\n", indent, model_evidence_name((enum model_evidence)e),
				fmt_safe(a, sizeof a, m->evidence_detail[e]));
	if (m->have_info && m->info.name[0])
		fprintf(out, "%s          header name \"%s\"\n", indent, fmt_safe(a, sizeof a, m->info.name));
	if (m->have_info && m->info.kind_hint[0])
		fprintf(out, "%s          hint: %s (a hint from the name, not the header)\n", indent,
			fmt_safe(a, sizeof a, m->info.kind_hint));
}

void ident_text_print_full(FILE *out, const struct gtm_ident *id, const char *indent)
{
	char a[SAFE_N];
	fprintf(out, "%scategory  %s (%s)\n", indent, ident_category_text(id->category),
		fmt_safe(a, sizeof a, id->category_reason));
	if (id->n_runtimes == 0)
		fprintf(out, "%sruntimes  none recognised\n", indent);
	for (int i = 0; i < id->n_runtimes; i++) {
		const struct ident_runtime *r = &id->runtimes[i];
		fprintf(out, "%s%-9s %s:", indent, i ? "" : "runtimes", fmt_safe(a, sizeof a, r->name));
		for (int k = 0; k < r->n_evidence; k++)
			fprintf(out, "%s %s", k ? "," : "", fmt_safe(a, sizeof a, r->evidence[k]));
		fputc('\n', out);
	}
	if (id->n_models == 0)
		fprintf(out, "%smodels    none found\n", indent);
	for (int i = 0; i < id->n_models; i++) {
		const struct ident_model *m = &id->models[i];
		print_model_line(out, id, m, indent);
		print_model_details(out, m, indent);
	}
	if (id->n_installed_omitted > 0)
		fprintf(out, "%s          (%d more installed, not listed)\n", indent, id->n_installed_omitted);
	if (id->flags)
		print_flags(out, id->flags, indent);
}
