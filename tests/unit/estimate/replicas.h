/* Header-only sparse replicas of published GGUF models, written with the
 * test GGUF writer from their real tensor lists and shapes. */
#ifndef GTM_TEST_REPLICAS_H
#define GTM_TEST_REPLICAS_H

#include <stdbool.h>
#include <stdint.h>

struct replica_spec {
	const char *arch, *name;
	uint32_t n_layer, n_embd, n_ff, n_head, n_head_kv, head_dim;
	uint64_t vocab, n_ctx_train;
	uint32_t wtype;        /* ggml type of the 2-D weights */
	uint32_t ftype;        /* general.file_type */
	bool tied;             /* no output.weight */
	bool qk_norm;          /* attn_q_norm / attn_k_norm (qwen3, gemma3) */
	bool post_norms;       /* post_attention_norm / post_ffw_norm (gemma2/3) */
	uint32_t window;       /* attention.sliding_window; 0 = key absent */
	uint32_t n_expert, n_expert_used, expert_ff; /* MoE when n_expert > 0 */
};

/* Qwen/Qwen3-0.6B-GGUF Qwen3-0.6B-Q8_0.gguf */
extern const struct replica_spec replica_qwen3_0_6b_q8_0;
/* ggml-org/gemma-3-270m-GGUF gemma-3-270m-Q8_0.gguf */
extern const struct replica_spec replica_gemma3_270m_q8_0;
/* Qwen/Qwen3-30B-A3B (MoE), all 2-D weights Q8_0 */
extern const struct replica_spec replica_qwen3_30b_a3b_q8_0;

/* Writes the replica to path (sparse); 0 on success. */
int replica_write(const struct replica_spec *s, const char *path);
/* Bytes of one tensor of the replica's weight type (ne0 x ne1 x ne2). */
uint64_t replica_bytes(uint32_t type, uint64_t ne0, uint64_t ne1, uint64_t ne2);

#endif
