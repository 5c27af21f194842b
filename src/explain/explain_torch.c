/* A PyTorch / transformers job that maps (or holds) a safetensors model: its
 * KV cache per 1,000 tokens of context from the model's config.json
 * (llm/torch_kv.h). The context it runs at is not visible from outside, so
 * the figure is per 1k tokens, estimated, and never part of any total. */
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "explain/explain_internal.h"
#include "identify/hf_cache.h"
#include "identify/ident.h"
#include "llm/hf_config.h"
#include "llm/torch_kv.h"

/* Runtimes that size their own KV cache (vLLM, SGLang, llama.cpp ...): the
 * estimate is for the jobs that do not say. */
static bool sized_by_runtime(const struct gtm_explain *e)
{
	return e->runtime[0] != '\0';
}

/* config.json beside the model: in its Hugging Face snapshot for a cache
 * blob, else in the file's folder. */
static bool config_of(const struct ident_model *m, char *out, size_t n)
{
	struct hf_cache_file f;
	if (path_find(m->path, "/models--") && hf_cache_identify(m->path, &f))
		return (size_t)snprintf(out, n, "%s/config.json", f.snapshot) < n;
	const char *slash = strrchr(m->path, '/');
	return slash && (size_t)snprintf(out, n, "%.*s/config.json", (int)(slash - m->path), m->path) < n;
}

void ex_torch_explain(struct explain_ctx *c, const struct gtm_process *p, struct gtm_explain *e)
{
	if (sized_by_runtime(e) || !p->ident)
		return;
	for (int i = 0; i < p->ident->n_models; i++) {
		const struct ident_model *m = &p->ident->models[i];
		char path[1024];
		if (m->format != MODEL_FORMAT_SAFETENSORS || m->role != MODEL_ROLE_MODEL || !m->path || ident_model_unproven(m) ||
		    !config_of(m, path, sizeof path))
			continue;
		const struct hf_config *cfg = ex_config_get(c, path);
		struct torch_kv k;
		if (!cfg || !torch_kv_estimate(cfg, &k))
			continue;
		struct ex_kv_estimate *x = &e->kv_est;
		x->present = true;
		x->bytes_per_1k_tokens = gtm_u64_of(k.per_1k, GTM_ESTIMATED);
		str_copy(x->dtype, k.dtype_assumed ? "16-bit (assumed)" : cfg->dtype, sizeof x->dtype);
		x->n_full = k.n_full;
		x->n_sliding = k.n_sliding;
		x->n_linear = k.n_linear;
		x->window = k.window;
		str_copy(x->config, path, sizeof x->config);
		snprintf(x->note, sizeof x->note, "per sequence, at the config's dtype; %s%s",
			 cfg->mla ? "MLA cached decompressed (transformers), " : "",
			 k.n_linear ? "linear/Mamba layers' constant state not counted" : "context not known from outside");
		return;
	}
}
