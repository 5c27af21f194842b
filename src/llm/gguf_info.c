/* Display summary of a GGUF header: identity, quantization, shape, kind. */
#include "llm/gguf_info.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "llm/ggml_types.h"

/* Architectures whose header alone names the kind (llama-arch.cpp names;
 * diffusion LLMs per llama-model.cpp:2049-2065; stable-diffusion.cpp files). */
static const struct {
	const char *arch;
	enum gguf_kind kind;
} arch_kinds[] = {
	{"clip", GGUF_KIND_VISION_PROJECTOR},  {"mmproj", GGUF_KIND_VISION_PROJECTOR},
	{"dream", GGUF_KIND_DIFFUSION},        {"llada", GGUF_KIND_DIFFUSION},
	{"llada-moe", GGUF_KIND_DIFFUSION},    {"rnd1", GGUF_KIND_DIFFUSION},
	{"flux", GGUF_KIND_DIFFUSION},         {"sd1", GGUF_KIND_DIFFUSION},
	{"sdxl", GGUF_KIND_DIFFUSION},         {"sd3", GGUF_KIND_DIFFUSION},
	{"wan", GGUF_KIND_DIFFUSION},          {"bert", GGUF_KIND_EMBEDDING},
	{"nomic-bert", GGUF_KIND_EMBEDDING},   {"nomic-bert-moe", GGUF_KIND_EMBEDDING},
	{"jina-bert-v2", GGUF_KIND_EMBEDDING}, {"neo-bert", GGUF_KIND_EMBEDDING},
	{"gemma-embedding", GGUF_KIND_EMBEDDING}, {"modern-bert", GGUF_KIND_EMBEDDING},
	{"whisper", GGUF_KIND_SPEECH},
};

/* Key prefixes that name a kind whatever the architecture. */
static const struct {
	const char *prefix;
	enum gguf_kind kind;
} key_kinds[] = {
	{"decision.type", GGUF_KIND_DECISION},
	{"stt.", GGUF_KIND_SPEECH},
	{"clip.", GGUF_KIND_VISION_PROJECTOR},
};

/* Tensor-name prefixes of files without an LLM architecture: stable-diffusion.cpp
 * checkpoints (UNet/DiT, VAE, text encoders) and CLIP projectors. */
static const struct {
	const char *prefix;
	enum gguf_kind kind;
} tensor_kinds[] = {
	{"model.diffusion_model.", GGUF_KIND_DIFFUSION},
	{"first_stage_model.", GGUF_KIND_DIFFUSION},
	{"double_blocks.", GGUF_KIND_DIFFUSION}, /* FLUX transformer */
	{"mm.", GGUF_KIND_VISION_PROJECTOR},
	{"v.blk.", GGUF_KIND_VISION_PROJECTOR},
};

static const struct {
	const char *name, *text;
} kind_names[] = {
	[GGUF_KIND_UNKNOWN] = {"unknown", "unknown"},
	[GGUF_KIND_LLM] = {"llm", "LLM"},
	[GGUF_KIND_EMBEDDING] = {"embedding", "embedding model"},
	[GGUF_KIND_RERANKER] = {"reranker", "reranker"},
	[GGUF_KIND_SPEECH] = {"speech", "speech model"},
	[GGUF_KIND_DECISION] = {"decision", "decision model"},
	[GGUF_KIND_VISION_PROJECTOR] = {"vision-projector", "vision projector"},
	[GGUF_KIND_DIFFUSION] = {"diffusion", "diffusion model"},
	[GGUF_KIND_VOCAB_ONLY] = {"vocab-only", "vocabulary only"},
};

const char *gguf_kind_name(enum gguf_kind k)
{
	return (unsigned)k < ARRAY_LEN(kind_names) ? kind_names[k].name : "unknown";
}

const char *gguf_kind_text(enum gguf_kind k)
{
	return (unsigned)k < ARRAY_LEN(kind_names) ? kind_names[k].text : "unknown";
}

static enum gguf_kind kind_from_keys(const struct gguf_header *h)
{
	for (size_t p = 0; p < ARRAY_LEN(key_kinds); p++)
		for (uint64_t i = 0; i < h->n_kv; i++)
			if (str_starts(h->kv[i].key, key_kinds[p].prefix))
				return key_kinds[p].kind;
	const char *type = gguf_get_str(h, "general.type");
	if (type && strcmp(type, "mmproj") == 0)
		return GGUF_KIND_VISION_PROJECTOR;
	return GGUF_KIND_UNKNOWN;
}

static enum gguf_kind header_kind(const struct gguf_header *h)
{
	enum gguf_kind k = kind_from_keys(h);
	uint64_t pooling = 0, layers = 0, ctx = 0;
	bool causal = true;
	if (k != GGUF_KIND_UNKNOWN)
		return k;
	/* pooling_type: 0 none, 1 mean, 2 cls, 3 last, 4 rank (llama.h) */
	if (gguf_get_arch_u64(h, "pooling_type", &pooling) && pooling != 0)
		return pooling == 4 ? GGUF_KIND_RERANKER : GGUF_KIND_EMBEDDING;
	if (gguf_get_arch_bool(h, "attention.causal", &causal) && !causal)
		return GGUF_KIND_EMBEDDING;
	for (size_t i = 0; i < ARRAY_LEN(arch_kinds); i++)
		if (strcmp(h->arch, arch_kinds[i].arch) == 0)
			return arch_kinds[i].kind;
	if (!h->arch[0] && h->n_tensors)
		for (size_t i = 0; i < ARRAY_LEN(tensor_kinds); i++)
			if (str_starts(h->tensors[0].name, tensor_kinds[i].prefix))
				return tensor_kinds[i].kind;
	if (h->n_tensors == 0)
		return GGUF_KIND_VOCAB_ONLY;
	if (gguf_get_arch_u64(h, "block_count", &layers) && layers > 0 &&
	    gguf_get_arch_u64(h, "context_length", &ctx) && ctx > 0)
		return GGUF_KIND_LLM;
	return GGUF_KIND_UNKNOWN;
}

/* Largest element of a scalar-or-per-layer key; 0 when absent. */
static uint64_t arch_max(const struct gguf_header *h, const char *suffix)
{
	const struct gguf_kv *kv = gguf_find_arch(h, suffix);
	uint64_t best = 0, v;
	if (!kv)
		return 0;
	if (kv->type != GGUF_VT_ARRAY)
		return gguf_kv_elem_u64(kv, 0, &v) ? v : 0;
	for (uint64_t i = 0; i < kv->arr_n; i++)
		if (gguf_kv_elem_u64(kv, i, &v) && v > best)
			best = v;
	return best;
}

static int share_cmp(const void *a, const void *b)
{
	const struct gguf_type_share *x = a, *y = b;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : (int)x->type - (int)y->type;
}

static void type_mix(const struct gguf_header *h, struct gguf_model_info *m)
{
	struct gguf_type_share all[GGML_T_COUNT];
	size_t n = 0;
	for (uint32_t t = 0; t < GGML_T_COUNT; t++)
		all[t] = (struct gguf_type_share){t, 0};
	for (uint64_t i = 0; i < h->n_tensors; i++) {
		const struct gguf_tensor *t = &h->tensors[i];
		/* sizes are bounded by the parser; element counts of hostile files are not */
		all[t->type].bytes += t->nbytes;
		if (__builtin_add_overflow(m->n_params, t->n_elements, &m->n_params))
			m->n_params = UINT64_MAX;
		m->tensor_bytes += t->nbytes;
	}
	qsort(all, GGML_T_COUNT, sizeof all[0], share_cmp);
	for (size_t i = 0; i < GGML_T_COUNT && n < GGUF_INFO_MIX_MAX && all[i].bytes; i++)
		m->mix[n++] = all[i];
	m->n_mix = n;
}

static void quantization(const struct gguf_header *h, struct gguf_model_info *m)
{
	uint64_t ft;
	const char *name = NULL;
	if (gguf_get_u64(h, "general.file_type", &ft) && ft <= UINT32_MAX) {
		m->has_ftype = true;
		m->ftype = (uint32_t)ft;
		name = llama_ftype_name(m->ftype, &m->ftype_guessed);
	}
	if (name)
		snprintf(m->quant, sizeof m->quant, "%s", name);
	else if (m->has_ftype)
		snprintf(m->quant, sizeof m->quant, "file type %u", m->ftype);
	else if (m->n_mix)
		/* llama.cpp guesses from the dominant tensor type (model-loader:740-760) */
		snprintf(m->quant, sizeof m->quant, "%s", ggml_type_name(m->mix[0].type));
}

void gguf_model_info_get(const struct gguf_header *h, const char *path, const char *store_name,
			 struct gguf_model_info *m)
{
	const char *name = gguf_get_str(h, "general.name");
	memset(m, 0, sizeof *m);
	snprintf(m->arch, sizeof m->arch, "%s", h->arch);
	snprintf(m->name, sizeof m->name, "%s", name ? name : "");
	m->file_size = h->file_size;
	m->data_end = gguf_data_end(h);
	m->missing_bytes = gguf_missing_bytes(h);
	m->incomplete = m->missing_bytes > 0;
	type_mix(h, m);
	quantization(h, m);
	m->n_layer = arch_max(h, "block_count");
	m->n_ctx_train = arch_max(h, "context_length");
	m->n_embd = arch_max(h, "embedding_length");
	m->n_head = arch_max(h, "attention.head_count");
	m->n_head_kv = arch_max(h, "attention.head_count_kv");
	if (!m->n_head_kv)
		m->n_head_kv = m->n_head; /* default = n_head (llama-model.cpp:1149) */
	m->n_expert = arch_max(h, "expert_count");
	m->n_expert_used = arch_max(h, "expert_used_count");
	m->kind = header_kind(h);
	gguf_decision_hint(path, store_name, m->kind_hint, sizeof m->kind_hint);
	if (m->kind_hint[0])
		snprintf(m->kind_label, sizeof m->kind_label, "%s; %s", gguf_kind_text(m->kind), m->kind_hint);
	else
		snprintf(m->kind_label, sizeof m->kind_label, "%s", gguf_kind_text(m->kind));
}
