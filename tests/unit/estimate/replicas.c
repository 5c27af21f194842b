#include "replicas.h"

#include <stdio.h>

#include "gguf_writer.h"
#include "llm/ggml_types.h"

/* config.json of Qwen/Qwen3-0.6B: 28 layers, hidden 1024, 16 heads, 8 KV
 * heads, head_dim 128, intermediate 3072, vocab 151936, tied embeddings. */
const struct replica_spec replica_qwen3_0_6b_q8_0 = {
	.arch = "qwen3", .name = "Qwen3 0.6B", .n_layer = 28, .n_embd = 1024, .n_ff = 3072,
	.n_head = 16, .n_head_kv = 8, .head_dim = 128, .vocab = 151936, .n_ctx_train = 40960,
	.wtype = GGML_T_Q8_0, .ftype = 7, .tied = true, .qk_norm = true,
};

/* google/gemma-3-270m: 18 layers, hidden 640, 4 heads, 1 KV head, head_dim
 * 256, intermediate 2048, vocab 262144, window 512, tied; the GGUF metadata and
 * tensor shapes as ollama.com lists them for gemma3:270m (token_embd [640,
 * 262144], q/k norms [256], post-attention/post-ffw norms). */
const struct replica_spec replica_gemma3_270m_q8_0 = {
	.arch = "gemma3", .name = "Gemma 3 270m", .n_layer = 18, .n_embd = 640, .n_ff = 2048,
	.n_head = 4, .n_head_kv = 1, .head_dim = 256, .vocab = 262144, .n_ctx_train = 32768,
	.wtype = GGML_T_Q8_0, .ftype = 7, .tied = true, .qk_norm = true, .post_norms = true, .window = 512,
};

/* config.json of Qwen/Qwen3-30B-A3B: 48 layers, hidden 2048, 32 heads, 4 KV
 * heads, head_dim 128, 128 experts (8 used) of 768, vocab 151936, untied. */
const struct replica_spec replica_qwen3_30b_a3b_q8_0 = {
	.arch = "qwen3moe", .name = "Qwen3 30B A3B", .n_layer = 48, .n_embd = 2048, .n_ff = 6144,
	.n_head = 32, .n_head_kv = 4, .head_dim = 128, .vocab = 151936, .n_ctx_train = 40960,
	.wtype = GGML_T_Q8_0, .ftype = 7, .tied = false, .qk_norm = true,
	.n_expert = 128, .n_expert_used = 8, .expert_ff = 768,
};

uint64_t replica_bytes(uint32_t type, uint64_t ne0, uint64_t ne1, uint64_t ne2)
{
	uint64_t row = 0;
	ggml_row_bytes(type, ne0, &row);
	return row * ne1 * ne2;
}

static void kv_keys(struct gw *w, const struct replica_spec *s)
{
	char k[128];
#define AK(suffix) (snprintf(k, sizeof k, "%s." suffix, s->arch), k)
	gw_str(w, "general.architecture", s->arch);
	gw_str(w, "general.name", s->name);
	gw_u32(w, AK("block_count"), s->n_layer);
	gw_u32(w, AK("context_length"), (uint32_t)s->n_ctx_train);
	gw_u32(w, AK("embedding_length"), s->n_embd);
	gw_u32(w, AK("feed_forward_length"), s->n_ff);
	gw_u32(w, AK("attention.head_count"), s->n_head);
	gw_u32(w, AK("attention.head_count_kv"), s->n_head_kv);
	gw_u32(w, AK("attention.key_length"), s->head_dim);
	gw_u32(w, AK("attention.value_length"), s->head_dim);
	if (s->window)
		gw_u32(w, AK("attention.sliding_window"), s->window);
	if (s->n_expert) {
		gw_u32(w, AK("expert_count"), s->n_expert);
		gw_u32(w, AK("expert_used_count"), s->n_expert_used);
		gw_u32(w, AK("expert_feed_forward_length"), s->expert_ff);
	}
	gw_u32(w, "general.file_type", s->ftype);
	gw_u32(w, "general.quantization_version", 2);
	gw_str(w, "tokenizer.ggml.model", "gpt2");
	gw_arr_vocab(w, "tokenizer.ggml.tokens", s->vocab); /* as many tokens as the real vocabulary */
#undef AK
}

static void layer(struct gw *w, const struct replica_spec *s, uint32_t il)
{
	char n[64];
	uint64_t q = (uint64_t)s->n_head * s->head_dim, kv = (uint64_t)s->n_head_kv * s->head_dim;
	uint32_t t = s->wtype;
#define T(name, type, a, b) (snprintf(n, sizeof n, "blk.%u." name ".weight", il), gw_tensor2(w, n, type, a, b))
	T("attn_norm", GGML_T_F32, s->n_embd, 1);
	T("attn_q", t, s->n_embd, q);
	T("attn_k", t, s->n_embd, kv);
	T("attn_v", t, s->n_embd, kv);
	T("attn_output", t, q, s->n_embd);
	if (s->qk_norm) {
		T("attn_q_norm", GGML_T_F32, s->head_dim, 1);
		T("attn_k_norm", GGML_T_F32, s->head_dim, 1);
	}
	if (s->post_norms)
		T("post_attention_norm", GGML_T_F32, s->n_embd, 1);
	T("ffn_norm", GGML_T_F32, s->n_embd, 1);
	if (s->post_norms)
		T("post_ffw_norm", GGML_T_F32, s->n_embd, 1);
	if (!s->n_expert) {
		T("ffn_gate", t, s->n_embd, s->n_ff);
		T("ffn_up", t, s->n_embd, s->n_ff);
		T("ffn_down", t, s->n_ff, s->n_embd);
		return;
	}
	T("ffn_gate_inp", GGML_T_F32, s->n_embd, s->n_expert);
#undef T
	const char *exps[] = {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"};
	for (int e = 0; e < 3; e++) {
		uint64_t ne[3] = {e == 2 ? s->expert_ff : s->n_embd, e == 2 ? s->n_embd : s->expert_ff, s->n_expert};
		snprintf(n, sizeof n, "blk.%u.%s.weight", il, exps[e]);
		gw_tensor(w, n, t, 3, ne);
	}
}

int replica_write(const struct replica_spec *s, const char *path)
{
	struct gw *w = gw_new();
	kv_keys(w, s);
	gw_tensor2(w, "token_embd.weight", s->wtype, s->n_embd, s->vocab);
	for (uint32_t il = 0; il < s->n_layer; il++)
		layer(w, s, il);
	gw_tensor2(w, "output_norm.weight", GGML_T_F32, s->n_embd, 1);
	if (!s->tied)
		gw_tensor2(w, "output.weight", s->wtype, s->n_embd, s->vocab);
	int rc = gw_write_file(w, path);
	gw_free(w);
	return rc;
}
