/* Architecture rules as data (llm-memory.md §2 "Which layers are SWA",
 * "Recurrent and hybrid layers"; llama-model.cpp load_hparams per arch). */
#include "llm/arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const struct arch_rule arch_rules[] = {
	/* name, swa, period, dense_first, default window, kv layers, memory, state */
	{"gemma2", ARCH_SWA_STANDARD, 2, false, 4096, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"gemma3", ARCH_SWA_STANDARD, 6, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"gemma3n", ARCH_SWA_STANDARD, 5, false, 0, 20, ARCH_MEM_KV, ARCH_RS_NONE},
	{"gemma4", ARCH_SWA_STANDARD, 6, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"cohere2", ARCH_SWA_STANDARD, 4, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"exaone4", ARCH_SWA_STANDARD, 4, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"olmo2", ARCH_SWA_STANDARD, 4, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"afmoe", ARCH_SWA_STANDARD, 4, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"smallthinker", ARCH_SWA_STANDARD, 4, true, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"llama4", ARCH_SWA_CHUNKED, 4, false, 8192, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"gpt-oss", ARCH_SWA_STANDARD, 2, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"phi3", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE},
	{"lfm2", ARCH_SWA_STANDARD, 0, false, 0, 0, ARCH_MEM_HYBRID_KV0, ARCH_RS_LFM2},
	{"lfm2moe", ARCH_SWA_STANDARD, 0, false, 0, 0, ARCH_MEM_HYBRID_KV0, ARCH_RS_LFM2},
	{"gemma-embedding", ARCH_SWA_SYMMETRIC, 6, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"bert", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"modern-bert", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"nomic-bert", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"nomic-bert-moe", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"neo-bert", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"jina-bert-v2", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"dream", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"llada", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"llada-moe", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"rnd1", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_NONE, ARCH_RS_NONE},
	{"mamba", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_RECURRENT, ARCH_RS_MAMBA},
	{"mamba2", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_RECURRENT, ARCH_RS_MAMBA},
	{"rwkv6", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_RECURRENT, ARCH_RS_RWKV},
	{"rwkv6qwen2", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_RECURRENT, ARCH_RS_RWKV},
	{"rwkv7", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_RECURRENT, ARCH_RS_RWKV},
	{"arwkv7", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_RECURRENT, ARCH_RS_RWKV},
	{"jamba", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_KV0, ARCH_RS_MAMBA},
	{"granitehybrid", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_KV0, ARCH_RS_MAMBA},
	{"plamo2", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_KV0, ARCH_RS_MAMBA},
	{"nemotron_h", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_NEMOTRON, ARCH_RS_MAMBA},
	{"nemotron_h_moe", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_NEMOTRON, ARCH_RS_MAMBA},
	{"qwen3next", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_INTERVAL, ARCH_RS_MAMBA},
	{"qwen35", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_INTERVAL, ARCH_RS_MAMBA},
	{"qwen35moe", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_INTERVAL, ARCH_RS_MAMBA},
	{"falcon-h1", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_HYBRID_BOTH, ARCH_RS_MAMBA},
};

static const struct arch_rule plain_kv = {"", ARCH_SWA_NONE, 0, false, 0, 0, ARCH_MEM_KV, ARCH_RS_NONE};

const struct arch_rule *arch_rule_get(const char *arch)
{
	for (size_t i = 0; i < ARRAY_LEN(arch_rules); i++)
		if (arch && strcmp(arch, arch_rules[i].name) == 0)
			return &arch_rules[i];
	return &plain_kv;
}

static bool failf(char *err, size_t n, const char *what, const char *suffix)
{
	snprintf(err, n, "%s: %s", what, suffix);
	return false;
}

/* Element il of a scalar-or-per-layer key (llama-model-loader.cpp:446-484). */
static bool per_layer(const struct gguf_header *h, const char *suffix, uint32_t n_layer, uint32_t il,
		      uint64_t dflt, uint64_t *out)
{
	const struct gguf_kv *kv = gguf_find_arch(h, suffix);
	if (!kv) {
		*out = dflt;
		return true;
	}
	if (kv->type == GGUF_VT_ARRAY && kv->arr_n != n_layer)
		return false;
	return gguf_kv_elem_u64(kv, kv->type == GGUF_VT_ARRAY ? il : 0, out) && *out <= UINT32_MAX;
}

/* set_swa_pattern (llama-hparams.cpp:8-22) or a bool[] pattern (gemma4). */
static bool layer_is_swa(const struct gguf_header *h, const struct arch_rule *r, uint32_t window, uint32_t il)
{
	const struct gguf_kv *pat = gguf_find_arch(h, "attention.sliding_window_pattern");
	uint64_t p = r->swa_period, v;
	if (r->swa == ARCH_SWA_NONE || window == 0)
		return false;
	if (pat && pat->type == GGUF_VT_ARRAY)
		return gguf_kv_elem_u64(pat, il, &v) && v != 0;
	if (pat && gguf_kv_elem_u64(pat, 0, &v))
		p = v;
	if (p == 0)
		return true;
	return r->dense_first ? il % p != 0 : il % p < p - 1;
}

static bool layer_is_recurrent(const struct gguf_header *h, const struct arch_rule *r, uint32_t il,
			       uint64_t kvh, uint64_t ff)
{
	const struct gguf_kv *rl;
	uint64_t interval = 4, v;
	switch (r->memory) {
	case ARCH_MEM_RECURRENT:
	case ARCH_MEM_HYBRID_BOTH:
		return true;
	case ARCH_MEM_HYBRID_KV0:
		return kvh == 0;
	case ARCH_MEM_HYBRID_NEMOTRON:
		return kvh == 0 && ff == 0;
	case ARCH_MEM_HYBRID_INTERVAL:
		rl = gguf_find_arch(h, "attention.recurrent_layers");
		if (rl && gguf_kv_elem_u64(rl, il, &v))
			return v != 0;
		gguf_get_arch_u64(h, "full_attention_interval", &interval);
		return interval == 0 || (il + 1) % interval != 0;
	default:
		return false;
	}
}

/* Floats of recurrent state per layer and sequence (llama-hparams.cpp:183-220). */
/* A state dimension from the header; absurd values (hostile files) read as 0. */
static uint64_t dim(const struct gguf_header *h, const char *suffix, uint64_t dflt)
{
	uint64_t v = dflt;
	gguf_get_arch_u64(h, suffix, &v);
	return v <= (1u << 24) ? v : 0;
}

static void recurrent_sizes(const struct gguf_header *h, struct arch_model *m)
{
	uint64_t d_conv, d_inner, d_state, n_group, shift, wkv, l_cache;
	switch (m->rule->state) {
	case ARCH_RS_MAMBA:
		d_conv = dim(h, "ssm.conv_kernel", 0);
		d_inner = dim(h, "ssm.inner_size", 0);
		d_state = dim(h, "ssm.state_size", 0);
		n_group = dim(h, "ssm.group_count", 0);
		m->rs_r = (d_conv ? d_conv - 1 : 0) * (d_inner + 2 * n_group * d_state);
		m->rs_s = d_state * d_inner;
		break;
	case ARCH_RS_RWKV:
		shift = dim(h, "token_shift_count", 2);
		wkv = dim(h, "wkv.head_size", 0);
		m->rs_r = shift * m->n_embd;
		m->rs_s = m->n_embd * wkv;
		break;
	case ARCH_RS_LFM2:
		l_cache = dim(h, "shortconv.l_cache", 0);
		m->rs_r = m->n_embd * (l_cache ? l_cache - 1 : 0);
		break;
	default:
		break;
	}
}

/* n_swa: the sliding_window key, else the architecture's default. */
static uint32_t model_window(const struct gguf_header *h, const struct arch_rule *r)
{
	uint64_t w = r->default_window;
	if (r->swa == ARCH_SWA_NONE)
		return 0;
	gguf_get_arch_u64(h, "attention.sliding_window", &w);
	return w <= UINT32_MAX ? (uint32_t)w : 0;
}

/* A layer whose attention keeps K and V (not a recurrent-only layer). */
static bool layer_attends(const struct arch_model *m, const struct arch_layer *l)
{
	enum arch_memory mem = m->rule->memory;
	return mem != ARCH_MEM_NONE && mem != ARCH_MEM_RECURRENT && !(l->recurrent && mem != ARCH_MEM_HYBRID_BOTH);
}

/* Head counts llama.cpp cannot run with: grouped-query attention shares each
 * KV head among n_head / n_head_kv query heads, so n_head_kv must divide
 * n_head (ggml.c ggml_can_mul_mat: Q's heads a multiple of K's). A 0 from
 * a scalar head_count_kv leaves an attention layer without a cache; per-layer
 * arrays may hold 0 for attention-free layers (deci, jamba, lfm2). */
static bool heads_ok(const struct gguf_header *h, const struct arch_model *m, const struct arch_layer *l,
		     uint32_t il, uint64_t n_head, uint64_t kvh, char *err, size_t n)
{
	const struct gguf_kv *kv = gguf_find_arch(h, "attention.head_count_kv");
	bool kv_per_layer = kv && kv->type == GGUF_VT_ARRAY;
	if (!layer_attends(m, l))
		return true;
	if (kvh > n_head)
		snprintf(err, n, "attention.head_count_kv: %llu KV heads exceed the %llu attention heads (layer %u)",
			 (unsigned long long)kvh, (unsigned long long)n_head, il);
	else if (kvh && n_head % kvh)
		snprintf(err, n, "attention.head_count_kv: %llu KV heads do not divide the %llu attention heads (layer %u)",
			 (unsigned long long)kvh, (unsigned long long)n_head, il);
	else if (!kvh && n_head && !kv_per_layer && m->rule->memory != ARCH_MEM_HYBRID_KV0 &&
		 m->rule->memory != ARCH_MEM_HYBRID_NEMOTRON)
		snprintf(err, n, "attention.head_count_kv: 0 KV heads for an attention layer (layer %u)", il);
	else
		return true;
	return false;
}

static bool load_layer(const struct gguf_header *h, struct arch_model *m, uint32_t il, uint64_t n_head0,
		       uint32_t kv_from, char *err, size_t n)
{
	struct arch_layer *l = &m->layers[il];
	uint64_t n_head, kvh, ff, hk, hv, hk_swa, hv_swa;
	const char *bad = NULL;
	if (!per_layer(h, "attention.head_count", m->n_layer, il, 0, &n_head))
		bad = "attention.head_count";
	else if (!per_layer(h, "attention.head_count_kv", m->n_layer, il, n_head, &kvh))
		bad = "attention.head_count_kv";
	else if (!per_layer(h, "feed_forward_length", m->n_layer, il, 0, &ff))
		bad = "feed_forward_length";
	else if (!per_layer(h, "attention.key_length", m->n_layer, il, n_head0 ? m->n_embd / n_head0 : 0, &hk) ||
		 !per_layer(h, "attention.value_length", m->n_layer, il, hk, &hv))
		bad = "attention.key_length/value_length";
	else if (!per_layer(h, "attention.key_length_swa", m->n_layer, il, hk, &hk_swa) ||
		 !per_layer(h, "attention.value_length_swa", m->n_layer, il, hv, &hv_swa))
		bad = "attention.key_length_swa/value_length_swa";
	if (bad)
		return failf(err, n, bad, "invalid value or per-layer array of the wrong length");
	l->is_swa = layer_is_swa(h, m->rule, m->window, il);
	l->recurrent = m->rule->state != ARCH_RS_NONE && layer_is_recurrent(h, m->rule, il, kvh, ff);
	l->has_kv = m->rule->memory != ARCH_MEM_NONE && m->rule->memory != ARCH_MEM_RECURRENT && kvh > 0 &&
		    il < kv_from && !(l->recurrent && m->rule->memory != ARCH_MEM_HYBRID_BOTH);
	l->n_head_kv = (uint32_t)kvh;
	/* SWA layers use the _swa head sizes (llama-model.cpp:1207-1215) */
	l->head_k = (uint32_t)(l->is_swa ? hk_swa : hk);
	l->head_v = (uint32_t)(l->is_swa ? hv_swa : hv);
	if (m->mla) /* K holds key_length x kv heads; no V (llama-kv-cache.cpp:229) */
		l->head_v = 0;
	return heads_ok(h, m, l, il, n_head, kvh, err, n);
}

/* A causal attention model needs its head counts to size the KV cache:
 * without them the plan would show "no KV cache" and a GPU total without it.
 * head_count is the header's key (NULL: absent, checked before the layers load). */
static bool attention_present(const struct gguf_kv *head_count, const struct arch_model *m, char *err, size_t n)
{
	enum arch_memory mem = m->rule->memory;
	bool any_kv = false;
	if (mem == ARCH_MEM_NONE || mem == ARCH_MEM_RECURRENT)
		return true;
	if (!head_count)
		return failf(err, n, "attention.head_count", "missing: the KV cache cannot be sized");
	for (uint32_t il = 0; il < m->n_layer; il++)
		any_kv |= m->layers[il].has_kv;
	if (any_kv || mem == ARCH_MEM_HYBRID_KV0 || mem == ARCH_MEM_HYBRID_NEMOTRON)
		return true;
	return failf(err, n, "attention.head_count/head_count_kv", "no layer has attention heads with a KV cache");
}

bool arch_model_load(const struct gguf_header *h, struct arch_model *m, char *err, size_t n)
{
	uint64_t n_layer = 0, n_head0 = 0, shared = 0;
	memset(m, 0, sizeof *m);
	m->rule = arch_rule_get(h->arch);
	if (!h->arch[0])
		return failf(err, n, "general.architecture", "missing");
	if (!gguf_get_arch_u64(h, "block_count", &n_layer) || n_layer == 0 || n_layer > ARCH_MAX_LAYERS)
		return failf(err, n, "block_count", "missing or out of range");
	m->n_layer = (uint32_t)n_layer;
	gguf_get_arch_u64(h, "embedding_length", &m->n_embd);
	gguf_get_arch_u64(h, "context_length", &m->n_ctx_train);
	if (m->n_embd > (1u << 24))
		return failf(err, n, "embedding_length", "out of range");
	const struct gguf_kv *hc = gguf_find_arch(h, "attention.head_count");
	if (hc)
		gguf_kv_elem_u64(hc, 0, &n_head0);
	else if (m->rule->memory != ARCH_MEM_NONE && m->rule->memory != ARCH_MEM_RECURRENT)
		return attention_present(NULL, m, err, n);
	m->window = model_window(h, m->rule);
	m->mla = gguf_find_arch(h, "attention.key_length_mla") && gguf_find_arch(h, "attention.value_length_mla");
	uint32_t kv_from = m->rule->kv_layers ? m->rule->kv_layers : m->n_layer;
	/* gemma4: the last shared_kv_layers reuse earlier KV */
	if (gguf_get_arch_u64(h, "attention.shared_kv_layers", &shared) && shared < m->n_layer)
		kv_from = m->n_layer - (uint32_t)shared;
	recurrent_sizes(h, m);
	m->layers = xcalloc(m->n_layer, sizeof *m->layers);
	for (uint32_t il = 0; il < m->n_layer; il++)
		if (!load_layer(h, m, il, n_head0, kv_from, err, n)) {
			arch_model_free(m);
			return false;
		}
	if (!attention_present(hc, m, err, n)) {
		arch_model_free(m);
		return false;
	}
	return true;
}

void arch_model_free(struct arch_model *m)
{
	free(m->layers);
	m->layers = NULL;
}
