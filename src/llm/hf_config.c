/* config.json → the shape that sizes a KV cache. Field names are
 * transformers' (PretrainedConfig and the model configs), with the aliases
 * older or remote-code configs use; which layers cache what follows vLLM's
 * per-layer specs (vllm/v1/kv_cache_interface.py): full attention, sliding
 * window, MLA, Mamba/linear state. */
#include "llm/hf_config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "core/util.h"

static const char *const k_layers[] = {"num_hidden_layers", "n_layer", "n_layers", "num_layers"};
static const char *const k_heads[] = {"num_attention_heads", "n_head", "n_heads"};
static const char *const k_kv_heads[] = {"num_key_value_heads", "num_kv_heads", "n_kv_heads", "multi_query_group_num"};
static const char *const k_hidden[] = {"hidden_size", "n_embd", "d_model"};
static const char *const k_head_dim[] = {"head_dim", "kv_channels", "attention_head_dim"};
static const char *const k_max_pos[] = {"max_position_embeddings", "n_positions", "seq_length"};
static const char *const k_experts[] = {"num_experts", "num_local_experts", "n_routed_experts"};
static const char *const k_experts_used[] = {"num_experts_per_tok", "num_experts_per_token", "moe_topk"};
static const char *const k_dtype[] = {"torch_dtype", "dtype"};
static const char *const k_bits[] = {"bits", "weight_bits", "w_bit", "num_bits"};
static const char *const k_group[] = {"group_size", "q_group_size"};

/* Layer type names of layer_types / layers_block_type (transformers' and
 * remote-code configs) and what each caches. */
static const struct {
	const char *name;
	enum hf_layer_kind kind;
} layer_names[] = {
	{"full_attention", HF_LAYER_FULL},        {"attention", HF_LAYER_FULL},
	{"global_attention", HF_LAYER_FULL},      {"global", HF_LAYER_FULL},
	{"full", HF_LAYER_FULL},                  {"sliding_attention", HF_LAYER_SLIDING},
	{"sliding_window", HF_LAYER_SLIDING},     {"local_attention", HF_LAYER_SLIDING},
	{"local", HF_LAYER_SLIDING},              {"chunked_attention", HF_LAYER_SLIDING},
	{"linear_attention", HF_LAYER_LINEAR},    {"mamba", HF_LAYER_LINEAR},
	{"mamba2", HF_LAYER_LINEAR},              {"conv", HF_LAYER_LINEAR},
	{"linear", HF_LAYER_LINEAR},              {"ssm", HF_LAYER_LINEAR},
	{"recurrent", HF_LAYER_LINEAR},           {"deltanet", HF_LAYER_LINEAR},
};

/* Models whose every layer is a state-space block. */
static const char *const ssm_model_types[] = {"mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv5", "rwkv6", "rwkv7"};

const char *hf_layer_kind_name(enum hf_layer_kind k)
{
	static const char *const names[] = {"full", "sliding", "linear", "unknown"};
	return (unsigned)k < ARRAY_LEN(names) ? names[k] : "unknown";
}

static uint64_t get_u64(const json_t *o, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_object_get(o, keys[i]);
		if (json_is_integer(v) && json_integer_value(v) > 0)
			return (uint64_t)json_integer_value(v);
	}
	return 0;
}
#define GET(o, keys) get_u64(o, keys, ARRAY_LEN(keys))

static void get_str(const json_t *o, const char *const *keys, size_t n, char *out, size_t cap)
{
	for (size_t i = 0; i < n && !out[0]; i++) {
		json_t *v = json_object_get(o, keys[i]);
		if (json_is_string(v))
			str_copy(out, json_string_value(v), cap);
	}
}

static enum hf_layer_kind kind_of(const char *s)
{
	for (size_t i = 0; i < ARRAY_LEN(layer_names); i++)
		if (!strcmp(s, layer_names[i].name))
			return layer_names[i].kind;
	return HF_LAYER_UNKNOWN;
}

/* layer_types or layers_block_type: one name per layer. */
static bool layers_from_names(struct hf_config *c, const json_t *arr)
{
	size_t i;
	json_t *v;
	if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > HF_MAX_LAYERS)
		return false;
	if (!c->n_layer || c->n_layer > json_array_size(arr))
		c->n_layer = json_array_size(arr);
	json_array_foreach(arr, i, v) {
		if (i >= c->n_layer)
			break;
		const char *s = json_is_string(v) ? json_string_value(v) : "";
		c->layer_kind[i] = (uint8_t)kind_of(s);
		if (c->layer_kind[i] == HF_LAYER_UNKNOWN && !c->unknown_layer_type[0])
			str_copy(c->unknown_layer_type, s[0] ? s : "(not a string)", sizeof c->unknown_layer_type);
	}
	return true;
}

static bool is_ssm_model(const char *model_type)
{
	for (size_t i = 0; i < ARRAY_LEN(ssm_model_types); i++)
		if (!strcmp(model_type, ssm_model_types[i]))
			return true;
	return false;
}

/* Which layers slide when config.json has no per-layer list. */
static enum hf_layer_kind sliding_rule(const struct hf_config *c, const json_t *t, uint64_t i)
{
	uint64_t pattern = get_u64(t, (const char *const[]){"sliding_window_pattern"}, 1);
	json_t *use = json_object_get(t, "use_sliding_window");
	json_t *mwl = json_object_get(t, "max_window_layers");
	if (!c->sliding_window || json_is_false(use))
		return HF_LAYER_FULL;
	if (pattern) /* Gemma 3: every pattern-th layer is global */
		return (i + 1) % pattern ? HF_LAYER_SLIDING : HF_LAYER_FULL;
	if (!strcmp(c->model_type, "gemma2")) /* alternating, local first */
		return i % 2 == 0 ? HF_LAYER_SLIDING : HF_LAYER_FULL;
	if (json_is_true(use) && json_is_integer(mwl)) /* Qwen2: layers from max_window_layers slide */
		return (json_int_t)i >= json_integer_value(mwl) ? HF_LAYER_SLIDING : HF_LAYER_FULL;
	return HF_LAYER_SLIDING; /* Mistral 7B v0.1: every layer */
}

static bool assign_layers(struct hf_config *c, const json_t *t, char *err, size_t en)
{
	json_t *period = json_object_get(t, "attn_layer_period");
	json_t *offset = json_object_get(t, "attn_layer_offset");

	if (layers_from_names(c, json_object_get(t, "layer_types")) ||
	    layers_from_names(c, json_object_get(t, "layers_block_type")))
		goto count;
	if (c->n_layer > HF_MAX_LAYERS) {
		snprintf(err, en, "more than %u layers", HF_MAX_LAYERS);
		return false;
	}
	for (uint64_t i = 0; i < c->n_layer; i++) {
		if (json_is_integer(period) && json_integer_value(period) > 0) /* Jamba */
			c->layer_kind[i] = (json_int_t)i % json_integer_value(period) ==
							   (json_is_integer(offset) ? json_integer_value(offset) : 0)
						   ? HF_LAYER_FULL
						   : HF_LAYER_LINEAR;
		else if (is_ssm_model(c->model_type))
			c->layer_kind[i] = HF_LAYER_LINEAR;
		else
			c->layer_kind[i] = (uint8_t)sliding_rule(c, t, i);
	}
count:
	for (uint64_t i = 0; i < c->n_layer; i++)
		c->n_layers_kind[c->layer_kind[i]]++;
	return true;
}

static void read_quant(struct hf_config *c, const json_t *q, const char *method)
{
	if (c->have_quant || !json_is_object(q))
		return;
	c->have_quant = true;
	json_t *m = json_object_get(q, "quant_method");
	str_copy(c->quant_method, json_is_string(m) ? json_string_value(m) : method, sizeof c->quant_method);
	c->quant_bits = (unsigned)GET(q, k_bits);
	c->quant_group = (unsigned)GET(q, k_group);
}

static void read_shape(struct hf_config *c, const json_t *t)
{
	c->n_layer = GET(t, k_layers);
	c->n_head = GET(t, k_heads);
	c->n_kv_head = GET(t, k_kv_heads);
	c->hidden = GET(t, k_hidden);
	c->head_dim = GET(t, k_head_dim);
	c->max_pos = GET(t, k_max_pos);
	c->vocab = get_u64(t, (const char *const[]){"vocab_size"}, 1);
	c->n_experts = GET(t, k_experts);
	c->n_experts_used = GET(t, k_experts_used);
	c->sliding_window = get_u64(t, (const char *const[]){"sliding_window"}, 1);
	if (!c->n_kv_head) /* transformers' default: multi-head attention */
		c->n_kv_head = c->n_head;
	if (!c->head_dim && c->n_head && c->hidden) {
		c->head_dim = c->hidden / c->n_head;
		c->head_dim_derived = true;
	}
	c->kv_lora_rank = get_u64(t, (const char *const[]){"kv_lora_rank"}, 1);
	c->qk_rope_head_dim = get_u64(t, (const char *const[]){"qk_rope_head_dim"}, 1);
	c->qk_nope_head_dim = get_u64(t, (const char *const[]){"qk_nope_head_dim"}, 1);
	c->v_head_dim = get_u64(t, (const char *const[]){"v_head_dim"}, 1);
	c->mla = c->kv_lora_rank > 0;
}

bool hf_config_parse(const char *buf, size_t n, struct hf_config *c, char *err, size_t en)
{
	json_error_t je;
	memset(c, 0, sizeof *c);
	if (n > HF_CONFIG_MAX_BYTES) {
		snprintf(err, en, "config.json larger than 4 MiB");
		return false;
	}
	json_t *root = json_loadb(buf, n, 0, &je);
	if (!json_is_object(root)) {
		snprintf(err, en, "config.json is not a JSON object: %.100s", root ? "" : je.text);
		json_decref(root);
		return false;
	}
	json_t *text = json_object_get(root, "text_config");
	const json_t *t = json_is_object(text) ? text : root;
	c->from_text_config = t != root;
	json_t *arch = json_array_get(json_object_get(root, "architectures"), 0);
	if (json_is_string(arch))
		str_copy(c->architecture, json_string_value(arch), sizeof c->architecture);
	get_str(t, (const char *const[]){"model_type"}, 1, c->model_type, sizeof c->model_type);
	get_str(root, (const char *const[]){"model_type"}, 1, c->model_type, sizeof c->model_type);
	get_str(t, k_dtype, ARRAY_LEN(k_dtype), c->dtype, sizeof c->dtype);
	get_str(root, k_dtype, ARRAY_LEN(k_dtype), c->dtype, sizeof c->dtype);
	read_shape(c, t);
	read_quant(c, json_object_get(root, "quantization_config"), "");
	read_quant(c, json_object_get(t, "quantization_config"), "");
	read_quant(c, json_object_get(root, "quantization"), "mlx"); /* mlx-lm: {group_size, bits} */
	bool ok = assign_layers(c, t, err, en);
	json_decref(root);
	return ok;
}
