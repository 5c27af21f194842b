/* inspect: the text view of a model and its estimated plan. */
#include <stdio.h>
#include <string.h>

#include "app/cmd_inspect.h"
#include "core/format.h"
#include "core/util.h"
#include "llm/ggml_types.h"
#include "views/ident_text.h"

#define MIB_BUF 32
/* Room for an escaped header string or path (see fmt_safe). */
#define SAFE_N 1024

static const char *mib(char *buf, uint64_t b)
{
	return fmt_mib(buf, MIB_BUF, b);
}

/* "N/A" for what the header does not hold (0 there means absent). */
static const char *num_or_na(char *buf, size_t n, uint64_t v)
{
	if (!v)
		snprintf(buf, n, "N/A");
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
	return buf;
}

static void print_quant(FILE *out, const struct gguf_model_info *i)
{
	char q[SAFE_N];
	fprintf(out, "  quantization  %s", i->quant[0] ? fmt_safe(q, sizeof q, i->quant) : "N/A");
	if (i->has_ftype)
		fprintf(out, " (file type %u%s)", i->ftype & 1023u, i->ftype_guessed ? ", guessed" : "");
	for (size_t k = 0; k < i->n_mix && i->tensor_bytes; k++)
		fprintf(out, "%s%s %.1f%%", k ? ", " : "; tensors ", ggml_type_name(i->mix[k].type),
			100.0 * (double)i->mix[k].bytes / (double)i->tensor_bytes);
	fputc('\n', out);
}

static void print_identity(FILE *out, const struct inspect_model *m)
{
	const struct gguf_model_info *i = &m->info;
	char a[32], b[32], c[32], d[32], e[32], f[MIB_BUF], s[SAFE_N];
	/* every string here comes from the file (or names it): escaped, so a
	 * hostile header cannot steer the terminal */
	fprintf(out, "Model %s\n", fmt_safe(s, sizeof s, m->path));
	fprintf(out, "  name          %s\n", i->name[0] ? fmt_safe(s, sizeof s, i->name) : "N/A");
	fprintf(out, "  architecture  %s\n", i->arch[0] ? fmt_safe(s, sizeof s, i->arch) : "N/A");
	fprintf(out, "  kind          %s\n", fmt_safe(s, sizeof s, i->kind_label));
	if (i->n_params)
		fprintf(out, "  parameters    %.2f M\n", (double)i->n_params / 1e6);
	else
		fprintf(out, "  parameters    N/A\n");
	print_quant(out, i);
	fprintf(out, "  layers        %s   trained context %s   embedding %s\n", num_or_na(a, sizeof a, i->n_layer),
		num_or_na(b, sizeof b, i->n_ctx_train), num_or_na(c, sizeof c, i->n_embd));
	fprintf(out, "  heads         %s   KV heads %s   experts %s", num_or_na(d, sizeof d, i->n_head),
		num_or_na(e, sizeof e, i->n_head_kv), i->n_expert ? "" : "none");
	if (i->n_expert)
		fprintf(out, "%llu (%llu used)", (unsigned long long)i->n_expert, (unsigned long long)i->n_expert_used);
	fprintf(out, "\n  file size     %s (GGUF v%u, header %s)\n", m->h->file_size ? mib(f, m->h->file_size) : "N/A",
		m->h->version, mib(a, m->h->infos_end));
	if (i->incomplete)
		fprintf(out, "  incomplete    yes: %s; llama.cpp refuses to load it\n",
			ident_text_incomplete(i, s, sizeof s));
}


/* "--metrics, --host 0.0.0.0 (does not change memory); -t 8 (not read by the
 * plan)": the flags the plan left out, grouped by why, in command-line order. */
static void print_ignored(FILE *out, const struct llama_flags *f)
{
	char a[SAFE_N], b[SAFE_N];
	bool done[LLAMA_FLAGS_MAX_IGNORED] = {false};
	if (!f->n_ignored)
		return;
	fprintf(out, "  ignored       ");
	for (size_t i = 0; i < f->n_ignored; i++) {
		if (done[i])
			continue;
		for (size_t k = i, n = 0; k < f->n_ignored; k++) {
			const struct llama_ignored *g = &f->ignored[k];
			if (done[k] || g->why != f->ignored[i].why)
				continue;
			done[k] = true;
			fprintf(out, "%s%s%s%s", n++ ? ", " : i ? "; " : "", fmt_safe(a, sizeof a, g->flag), g->value ? " " : "",
				g->value ? fmt_safe(b, sizeof b, g->value) : "");
		}
		fprintf(out, " (%s)", f->ignored[i].why);
	}
	if (f->n_ignored_dropped)
		fprintf(out, "; %zu more", f->n_ignored_dropped);
	fputc('\n', out);
}

static void print_launch(FILE *out, const struct inspect_model *m)
{
	const struct estimate *e = &m->est;
	const struct llama_flags *f = m->flags;
	char defaults[256];
	fprintf(out, "\nPlan (estimated from the header with llama.cpp's rules%s)\n",
		e->missing_bytes ? "; from an INCOMPLETE file" : "");
	fprintf(out, "  launch        -c %llu -ngl %u -np %u%s -ctk %s -ctv %s -fa %s -ub %u%s%s\n",
		(unsigned long long)e->n_ctx, (unsigned)(e->gpu_layers + e->output_on_gpu), e->n_seq,
		e->unified ? " (unified cache)" : " (one cache per slot)", ggml_cache_type_name(e->type_k),
		ggml_cache_type_name(e->type_v), f->flash_attn == LLAMA_FA_ON ? "on" : f->flash_attn == LLAMA_FA_OFF ? "off" : "auto",
		e->n_ubatch, f->swa_full ? " --swa-full" : "", f->no_mmap ? " --no-mmap" : "");
	if (e->kv_on_host)
		fprintf(out, "  KV offload    off (-nkvo): the KV cache stays on the host\n");
	llama_flags_describe_defaults(f, defaults, sizeof defaults);
	if (defaults[0])
		fprintf(out, "  defaults      assumed llama-server's: %s\n", defaults);
	print_ignored(out, f);
	/* common/fit.cpp:307-375: --fit is on by default */
	if (f->defaulted & (LF_DEF_CTX | LF_DEF_NGL))
		fprintf(out, "  --fit         llama-server's default --fit may lower an unset -c (to 4096 at least) "
			     "and choose -ngl to fit free memory\n");
	fprintf(out, "  offload       %u/%u layers on the GPU (output layer %s, %u of %u repeating)\n",
		e->gpu_layers + e->output_on_gpu, e->n_layer + 1, e->output_on_gpu ? "on GPU" : "on host", e->gpu_layers,
		e->n_layer);
}

static void print_kv(FILE *out, const struct estimate *e)
{
	char a[MIB_BUF], b[MIB_BUF], c[MIB_BUF];
	if (!e->has_kv) {
		fprintf(out, "  KV cache      none (estimated: %s)\n",
			e->n_rs_layers ? "recurrent layers only" : "no causal attention memory");
	} else {
		fprintf(out, "  KV per token  %.2f KiB (estimated, %u layers, K %s + V %s)\n",
			(double)e->kv_bytes_per_token / 1024.0, e->n_kv_layers, ggml_cache_type_name(e->type_k),
			ggml_cache_type_name(e->type_v));
		fprintf(out, "  KV cache      %s (estimated; %llu cells x %u stream%s; K %s, V %s)\n", mib(a, e->kv_bytes),
			(unsigned long long)e->kv_cells, e->n_stream, e->n_stream == 1 ? "" : "s", mib(b, e->kv_k_bytes),
			mib(c, e->kv_v_bytes));
		if (e->n_swa_layers)
			fprintf(out, "  sliding window %u layers at %llu cells; full-attention bound %s (estimated)\n",
				e->n_swa_layers, (unsigned long long)e->swa_cells, mib(a, e->kv_full_bytes));
		fprintf(out, "  KV placement  GPU %s, host %s (estimated)\n", mib(a, e->kv_gpu), mib(b, e->kv_host));
	}
	if (e->n_rs_layers)
		fprintf(out, "  recurrent     %s F32 state, %u layers (estimated; GPU %s)\n", mib(a, e->rs_bytes),
			e->n_rs_layers, mib(b, e->rs_gpu));
}

static void print_gpu(FILE *out, const struct inspect_model *m)
{
	char a[MIB_BUF], b[MIB_BUF], s[SAFE_N];
	if (!m->have_gpu) {
		fprintf(out, "  GPU           %s\n", m->fit_note ? fmt_safe(s, sizeof s, m->fit_note) : "no GPU visible: fit not checked");
		return;
	}
	fprintf(out, "  GPU           %s: %s free of %s (measured)\n", fmt_safe(s, sizeof s, m->gpu_name), mib(a, m->gpu_free),
		m->gpu_total ? mib(b, m->gpu_total) : "N/A");
	if (!m->plan_ok)
		return;
	fprintf(out, "  fits          %s (estimated, without the compute buffer)\n", m->fits ? "yes" : "no");
	if (m->est.refused)
		fprintf(out, "  largest -c    N/A (llama.cpp would refuse this configuration)\n");
	else if (m->max_ctx)
		fprintf(out, "  largest -c    %llu fits at this offload (estimated)\n", (unsigned long long)m->max_ctx);
	else
		fprintf(out, "  largest -c    none fits at this offload (estimated)\n");
}

void inspect_model_print(FILE *out, const struct inspect_model *m)
{
	const struct estimate *e = &m->est;
	char a[MIB_BUF], b[MIB_BUF], s[SAFE_N];
	print_identity(out, m);
	if (!m->plan_ok) {
		fprintf(out, "\nPlan          N/A (%s)\n", fmt_safe(s, sizeof s, m->plan_err));
		print_gpu(out, m);
		return;
	}
	print_launch(out, m);
	fprintf(out, "  weights GPU   %s (estimated", mib(a, e->weights_gpu));
	if (e->tied_copy)
		fprintf(out, "; includes a %s copy of the tied token_embd", mib(b, e->tied_copy));
	fprintf(out, ")\n  weights host  %s (estimated; %s)\n", mib(a, e->weights_host),
		e->host_mapped ? "CPU_Mapped file span" : "CPU copy, --no-mmap");
	if (e->moved_to_host)
		fprintf(out, "  overrides     %llu tensors, %s moved to host (estimated)\n",
			(unsigned long long)e->n_overridden, mib(a, e->moved_to_host));
	print_kv(out, e);
	fprintf(out, "  output buffer %s host (estimated; %llu-token vocabulary x %u slots)\n", mib(a, e->output_bytes),
		(unsigned long long)e->n_vocab, e->n_seq);
	fprintf(out, "  GPU total     %s (estimated; compute buffer not estimated: llama.cpp measures it)\n",
		mib(a, e->gpu_total));
	fprintf(out, "  host total    %s (estimated)\n", mib(a, e->host_total));
	for (size_t i = 0; i < e->n_notes; i++)
		fprintf(out, "  note          %s\n", fmt_safe(s, sizeof s, e->notes[i]));
	print_gpu(out, m);
	inspect_split_print(out, m);
}
