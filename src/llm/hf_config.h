/* A Hugging Face config.json, the parts that size a model's memory: its
 * architecture, layers, heads, KV heads and head size, which layers are full
 * attention, sliding-window, or linear/Mamba (a constant state, no per-token
 * cache), Multi-head Latent Attention (kv_lora_rank, qk_rope_head_dim), and
 * the quantization it declares (quantization_config, MLX's quantization).
 * Multimodal models keep the language model's fields in text_config, which
 * is read first. Pure over a bounded buffer. */
#ifndef GTM_HF_CONFIG_H
#define GTM_HF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HF_CONFIG_MAX_BYTES (4u << 20)
#define HF_MAX_LAYERS 4096u

enum hf_layer_kind {
	HF_LAYER_FULL = 0,   /* full attention: a cache entry per token */
	HF_LAYER_SLIDING,    /* sliding-window (or chunked local) attention: bounded by the window */
	HF_LAYER_LINEAR,     /* linear attention, Mamba, short conv: a constant state per sequence */
	HF_LAYER_UNKNOWN,    /* a layer type this program does not know: costed as full attention */
};

struct hf_config {
	char architecture[96];  /* architectures[0] */
	char model_type[64];
	bool from_text_config;  /* the text fields came from text_config */
	uint64_t n_layer, n_head, n_kv_head, head_dim, hidden, max_pos, vocab;
	bool head_dim_derived;  /* hidden / heads: config.json has no head_dim */
	char dtype[24];         /* torch_dtype or dtype: "bfloat16", "" */
	uint64_t sliding_window;/* 0: none */
	uint64_t n_layers_kind[4]; /* layers of each enum hf_layer_kind */
	char unknown_layer_type[32]; /* the first unknown layer type's name */
	uint8_t layer_kind[HF_MAX_LAYERS];
	bool mla;
	uint64_t kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim;
	uint64_t n_experts, n_experts_used;
	bool have_quant;
	char quant_method[32];  /* "gptq", "awq", "fp8", "mlx" ... */
	unsigned quant_bits, quant_group;
	char error[160];        /* why the layers could not be read, or "" */
};

/* false with err set when buf is not a JSON object or names more layers
 * than HF_MAX_LAYERS; missing fields stay 0. */
bool hf_config_parse(const char *buf, size_t n, struct hf_config *out, char *err, size_t errlen);
/* "full", "sliding", "linear", "unknown" */
const char *hf_layer_kind_name(enum hf_layer_kind k);

#endif
