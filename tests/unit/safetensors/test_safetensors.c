/* safetensors: the reference reader's checks on written headers, hostile
 * inputs, the shard index, config.json shapes and vLLM's KV rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "llm/hf_config.h"
#include "llm/safetensors.h"
#include "llm/st_model.h"
#include "llm/torch_kv.h"
#include "llm/vllm_kv.h"
#include "st_writer.h"

#define D(...) sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (const uint64_t[]){__VA_ARGS__}

static enum st_status parse_w(struct stw *w, int64_t extra, struct st_header **h, char *err)
{
	size_t len;
	uint64_t data;
	uint8_t *b = stw_header(w, &len, &data);
	enum st_status st = st_header_parse(b, len, (uint64_t)((int64_t)(len + data) + extra), h, err, 256);
	free(b);
	return st;
}

/* A raw header: the 8-byte length of json, then json. */
static enum st_status parse_raw(const char *json, uint64_t data_len, struct st_header **h, char *err)
{
	size_t n = strlen(json);
	uint8_t *b = malloc(n + 8);
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)((uint64_t)n >> (8 * i));
	memcpy(b + 8, json, n);
	enum st_status st = st_header_parse(b, n + 8, n + 8 + data_len, h, err, 256);
	free(b);
	return st;
}

static void test_parse_dtypes(void **state)
{
	(void)state;
	struct stw *w = stw_new();
	struct st_header *h;
	char err[256];
	stw_meta(w, "format", "pt");
	stw_tensor(w, "embed", "BF16", D(1000, 64));
	stw_tensor(w, "q", "F16", D(64, 64));
	stw_tensor(w, "packed", "F4", D(10, 16));      /* 160 x 4 bits = 80 bytes */
	stw_tensor(w, "six", "F6_E2M3", D(4, 8));      /* 32 x 6 bits = 24 bytes */
	stw_tensor(w, "scale", "F8_E8M0", D(10));
	stw_tensor(w, "empty", "F32", D(0, 5));
	assert_int_equal(parse_w(w, 0, &h, err), ST_OK);
	assert_int_equal(h->n_tensors, 6);
	assert_int_equal(h->n_params, 64000 + 4096 + 160 + 32 + 10);
	assert_int_equal(h->data_len, 128000 + 8192 + 80 + 24 + 10);
	assert_int_equal(h->by_dtype[ST_F4].bytes, 80);
	assert_int_equal(h->by_dtype[ST_F6_E2M3].bytes, 24);
	assert_int_equal(h->by_dtype[ST_BF16].n_params, 64000);
	assert_string_equal(st_header_meta(h, "format"), "pt");
	assert_true(st_header_complete(h));
	assert_int_equal(h->header_len % 8, 0);
	st_header_free(h);
	/* a partial download and a file with bytes after the data */
	assert_int_equal(parse_w(w, -100, &h, err), ST_OK);
	assert_int_equal(h->missing_bytes, 100);
	assert_false(st_header_complete(h));
	st_header_free(h);
	assert_int_equal(parse_w(w, 3, &h, err), ST_OK);
	assert_int_equal(h->extra_bytes, 3);
	assert_false(st_header_complete(h));
	st_header_free(h);
	stw_free(w);
}

static void test_offsets(void **state)
{
	(void)state;
	struct st_header *h = NULL;
	char err[256];
	/* sorted by offsets, not by name: b comes first */
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[4,6]},"
				   "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 6, &h, err), ST_OK);
	assert_string_equal(h->tensors[0].name, "b");
	st_header_free(h);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}", 3, &h, err),
			 ST_ERR_OFFSETS);
	assert_null(h);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
				   "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}", 6, &h, err), ST_ERR_OFFSETS);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[3,0]}}", 0, &h, err),
			 ST_ERR_OFFSETS);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,4]}}", 4, &h, err),
			 ST_ERR_SIZE);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", 1, &h, err),
			 ST_ERR_MISALIGNED);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296],"
				   "\"data_offsets\":[0,1]}}", 1, &h, err), ST_ERR_OVERFLOW);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"F64\",\"shape\":[3074457345618258603],"
				   "\"data_offsets\":[0,1]}}", 1, &h, err), ST_ERR_OVERFLOW);
}

static void test_hostile(void **state)
{
	(void)state;
	struct st_header *h = NULL;
	char err[256];
	uint8_t b[16] = {0};
	assert_int_equal(st_header_parse(b, 7, 7, &h, err, sizeof err), ST_ERR_TOO_SMALL);
	uint64_t big = 100000001ull;
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(big >> (8 * i));
	assert_int_equal(st_header_parse(b, 16, 1ull << 40, &h, err, sizeof err), ST_ERR_TOO_LARGE);
	b[0] = 200, b[1] = b[2] = b[3] = 0;
	assert_int_equal(st_header_parse(b, 16, 1ull << 40, &h, err, sizeof err), ST_ERR_TRUNCATED);
	assert_int_equal(parse_raw(" {}", 0, &h, err), ST_ERR_START);
	assert_int_equal(parse_raw("{\"a\":", 0, &h, err), ST_ERR_JSON);
	assert_int_equal(parse_raw("{\"\xff\":1}", 0, &h, err), ST_ERR_JSON);
	assert_int_equal(parse_raw("[]", 0, &h, err), ST_ERR_START);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
				   "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, &h, err), ST_ERR_JSON);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"Q4_K\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, &h, err),
			 ST_ERR_DTYPE);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}", 1, &h, err),
			 ST_ERR_JSON);
	assert_int_equal(parse_raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0]}}", 1, &h, err),
			 ST_ERR_JSON);
	assert_int_equal(parse_raw("{\"__metadata__\":{\"k\":1}}", 0, &h, err), ST_ERR_JSON);
	assert_null(h);
	/* an empty header and a metadata-only header are whole files */
	assert_int_equal(parse_raw("{}", 0, &h, err), ST_OK);
	assert_true(st_header_complete(h));
	st_header_free(h);
	assert_true(st_is_safetensors_magic((const uint8_t *)"\x02\0\0\0\0\0\0\0{}", 10, 10));
	assert_false(st_is_safetensors_magic((const uint8_t *)"GGUF\3\0\0\0\0\0", 10, 1000));
}

static void test_index(void **state)
{
	(void)state;
	struct st_index ix;
	char err[256];
	const char *j = "{\"metadata\":{\"total_size\":123},\"weight_map\":{\"a\":\"model-00002-of-00002.safetensors\","
			"\"b\":\"model-00001-of-00002.safetensors\",\"c\":\"model-00002-of-00002.safetensors\"}}";
	assert_true(st_index_parse(j, strlen(j), &ix, err, sizeof err));
	assert_int_equal(ix.n_shards, 2);
	assert_string_equal(ix.shards[0], "model-00001-of-00002.safetensors");
	assert_int_equal(ix.shard_tensors[0], 1);
	assert_int_equal(ix.shard_tensors[1], 2);
	assert_int_equal(ix.total_size, 123);
	assert_int_equal(ix.n_tensors, 3);
	st_index_free(&ix);
	const char *bad[] = {"{\"weight_map\":{\"a\":\"../x.safetensors\"}}", "{\"weight_map\":{\"a\":\"..\"}}",
			     "{\"weight_map\":{\"a\":\"d/x\"}}", "{\"weight_map\":{\"a\":1}}", "{\"metadata\":{}}", "[", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_false(st_index_parse(bad[i], strlen(bad[i]), &ix, err, sizeof err));
}

static void cfg(const char *json, struct hf_config *c)
{
	char err[160];
	assert_true(hf_config_parse(json, strlen(json), c, err, sizeof err));
}

static uint64_t kv_token(const struct hf_config *c, const char *dtype, unsigned tp)
{
	struct vllm_kv k;
	char err[200];
	struct vllm_kv_opts o = {.kv_cache_dtype = dtype, .tp = tp};
	assert_true(vllm_kv_estimate(c, &o, &k, err, sizeof err));
	return k.per_token;
}

/* Llama 3 8B's config.json: GQA 32 heads / 8 KV heads of 128. */
static const char llama3[] = "{\"architectures\":[\"LlamaForCausalLM\"],\"model_type\":\"llama\",\"hidden_size\":4096,"
			     "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"num_hidden_layers\":32,"
			     "\"max_position_embeddings\":8192,\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}";

static void test_config_gqa(void **state)
{
	(void)state;
	struct hf_config c;
	struct vllm_kv k;
	char err[200];
	cfg(llama3, &c);
	assert_string_equal(c.architecture, "LlamaForCausalLM");
	assert_int_equal(c.head_dim, 128);
	assert_true(c.head_dim_derived);
	assert_int_equal(c.n_layers_kind[HF_LAYER_FULL], 32);
	/* 32 layers x 8 heads x (128 + 128) x 2 bytes */
	assert_int_equal(kv_token(&c, NULL, 1), 131072);
	assert_int_equal(kv_token(&c, "fp8", 1), 65536);
	assert_int_equal(kv_token(&c, NULL, 2), 65536);
	/* more ranks than KV heads: each rank keeps one head */
	assert_int_equal(kv_token(&c, NULL, 16), 32 * 1 * 256 * 2);
	struct vllm_kv_opts o = {.max_model_len = 1000};
	assert_true(vllm_kv_estimate(&c, &o, &k, err, sizeof err));
	assert_int_equal(k.seq_bytes, 63ull * 16 * 131072); /* 1000 tokens in 63 blocks of 16 */
	o.kv_cache_dtype = "fp8_ds_mla";
	assert_false(vllm_kv_estimate(&c, &o, &k, err, sizeof err));
	o.kv_cache_dtype = "q8_0";
	assert_false(vllm_kv_estimate(&c, &o, &k, err, sizeof err));
}

static void test_config_mla(void **state)
{
	(void)state;
	struct hf_config c;
	/* DeepSeek-V3: 128 heads, num_key_value_heads 128 in config.json, but MLA caches one latent */
	cfg("{\"architectures\":[\"DeepseekV3ForCausalLM\"],\"model_type\":\"deepseek_v3\",\"hidden_size\":7168,"
	    "\"num_attention_heads\":128,\"num_key_value_heads\":128,\"num_hidden_layers\":61,\"kv_lora_rank\":512,"
	    "\"qk_rope_head_dim\":64,\"qk_nope_head_dim\":128,\"v_head_dim\":128,\"max_position_embeddings\":163840,"
	    "\"n_routed_experts\":256,\"num_experts_per_tok\":8,\"torch_dtype\":\"bfloat16\","
	    "\"quantization_config\":{\"quant_method\":\"fp8\",\"fmt\":\"e4m3\"}}", &c);
	assert_true(c.mla);
	assert_int_equal(c.n_experts, 256);
	assert_string_equal(c.quant_method, "fp8");
	assert_int_equal(kv_token(&c, NULL, 1), 61 * 576 * 2);
	assert_int_equal(kv_token(&c, NULL, 8), 61 * 576 * 2); /* replicated on every rank */
	assert_int_equal(kv_token(&c, "fp8_ds_mla", 8), 61 * 656);
	/* what the GQA formula would say: 61 x 128 x 2 x 128 x 2, never this */
	assert_int_not_equal(kv_token(&c, NULL, 1), 61 * 128 * 256 * 2);
}

/* transformers' caches per 1k tokens: MLA decompressed (not vLLM's latent),
 * sliding layers bounded by their window, linear layers not per token. */
static void test_torch_kv(void **state)
{
	(void)state;
	struct hf_config c;
	struct torch_kv t;
	cfg("{\"model_type\":\"deepseek_v3\",\"num_attention_heads\":128,\"num_key_value_heads\":128,\"num_hidden_layers\":61,"
	    "\"kv_lora_rank\":512,\"qk_rope_head_dim\":64,\"qk_nope_head_dim\":128,\"v_head_dim\":128,\"torch_dtype\":\"bfloat16\"}", &c);
	assert_true(torch_kv_estimate(&c, &t));
	assert_int_equal(t.layer_token_bytes, 128 * (128 + 64 + 128) * 2);
	assert_int_equal(t.per_1k, 61ull * 128 * 320 * 2 * 1000);
	cfg("{\"model_type\":\"gemma3_text\",\"num_hidden_layers\":12,\"num_attention_heads\":4,\"num_key_value_heads\":1,"
	    "\"head_dim\":256,\"sliding_window\":512,\"sliding_window_pattern\":6,\"torch_dtype\":\"float32\"}", &c);
	assert_true(torch_kv_estimate(&c, &t));
	assert_int_equal(t.dtype_bytes, 4);
	assert_int_equal(t.per_1k, 2ull * 256 * 4 * (2 * 1000 + 10 * 512));
	cfg("{\"model_type\":\"qwen3_next\",\"num_hidden_layers\":4,\"num_attention_heads\":16,\"num_key_value_heads\":2,"
	    "\"head_dim\":256,\"layer_types\":[\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\"]}", &c);
	assert_true(torch_kv_estimate(&c, &t));
	assert_true(t.dtype_assumed);
	assert_int_equal(t.n_linear, 3);
	assert_int_equal(t.per_1k, 2ull * 2 * 256 * 2 * 1000);
	cfg("{\"model_type\":\"x\",\"num_hidden_layers\":4,\"num_attention_heads\":16,\"head_dim\":1000000}", &c);
	assert_false(torch_kv_estimate(&c, &t)); /* no model's head: refused, no overflow */
}

static void test_config_hybrid(void **state)
{
	(void)state;
	struct hf_config c;
	struct vllm_kv k;
	char err[200];
	/* Qwen3-Next: 3 linear-attention layers to 1 full, a constant state each */
	cfg("{\"architectures\":[\"Qwen3NextForCausalLM\"],\"model_type\":\"qwen3_next\",\"num_hidden_layers\":8,"
	    "\"num_attention_heads\":16,\"num_key_value_heads\":2,\"head_dim\":256,\"max_position_embeddings\":262144,"
	    "\"layer_types\":[\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\","
	    "\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\"]}", &c);
	assert_int_equal(c.n_layers_kind[HF_LAYER_LINEAR], 6);
	assert_int_equal(kv_token(&c, NULL, 1), 2 * 2 * 512 * 2);
	/* Jamba: attention every 8th layer from offset 4 */
	cfg("{\"model_type\":\"jamba\",\"num_hidden_layers\":32,\"num_attention_heads\":32,\"num_key_value_heads\":8,"
	    "\"hidden_size\":4096,\"attn_layer_period\":8,\"attn_layer_offset\":4,\"max_position_embeddings\":262144}", &c);
	assert_int_equal(c.n_layers_kind[HF_LAYER_FULL], 4);
	assert_int_equal(c.n_layers_kind[HF_LAYER_LINEAR], 28);
	/* a pure Mamba model has no per-token KV at all */
	cfg("{\"model_type\":\"mamba\",\"num_hidden_layers\":24,\"hidden_size\":768,\"num_attention_heads\":1,"
	    "\"max_position_embeddings\":2048}", &c);
	assert_int_equal(kv_token(&c, NULL, 1), 0);
	/* Gemma 3 in a multimodal config: text_config, 5 sliding to 1 global, window 1024 */
	cfg("{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"model_type\":\"gemma3\",\"text_config\":{"
	    "\"model_type\":\"gemma3_text\",\"num_hidden_layers\":12,\"num_attention_heads\":4,\"num_key_value_heads\":1,"
	    "\"head_dim\":256,\"sliding_window\":1024,\"sliding_window_pattern\":6,\"max_position_embeddings\":131072},"
	    "\"torch_dtype\":\"bfloat16\"}", &c);
	assert_true(c.from_text_config);
	assert_int_equal(c.n_layers_kind[HF_LAYER_SLIDING], 10);
	assert_int_equal(c.n_layers_kind[HF_LAYER_FULL], 2);
	struct vllm_kv_opts o = {.max_model_len = 8192};
	assert_true(vllm_kv_estimate(&c, &o, &k, err, sizeof err));
	/* full: 512 blocks; sliding: cdiv(min(1023 + 2048, 8192), 16) + 1 = 193 */
	assert_int_equal(k.seq_bytes, (2ull * 512 + 10ull * 193) * 16 * 1024);
	assert_int_equal(k.seq_bytes_full_bound, 12ull * 512 * 16 * 1024);
	/* an unknown layer type is named and costed as full */
	cfg("{\"num_hidden_layers\":2,\"num_attention_heads\":2,\"head_dim\":8,\"max_position_embeddings\":16,"
	    "\"layer_types\":[\"full_attention\",\"weird\"]}", &c);
	assert_string_equal(c.unknown_layer_type, "weird");
	assert_int_equal(c.n_layers_kind[HF_LAYER_UNKNOWN], 1);
	/* MLX: quantization {group_size, bits} */
	cfg("{\"model_type\":\"qwen3\",\"quantization\":{\"group_size\":64,\"bits\":4}}", &c);
	assert_string_equal(c.quant_method, "mlx");
	assert_int_equal(c.quant_bits, 4);
	assert_int_equal(c.quant_group, 64);
	assert_false(hf_config_parse("[1]", 3, &c, err, sizeof err));
}

static char *tmp;

static void write_shard(const char *dir, const char *name, int first, int n)
{
	char path[4096], t[64];
	struct stw *w = stw_new();
	for (int i = first; i < first + n; i++) {
		snprintf(t, sizeof t, "model.layers.%d.weight", i);
		stw_tensor(w, t, "BF16", D(64, 64));
	}
	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(stw_write_file(w, path, 0), 0);
	stw_free(w);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_model_dir(void **state)
{
	(void)state;
	struct st_model m;
	char err[256], dir[4096], path[4096];
	snprintf(dir, sizeof dir, "%s/sharded", tmp);
	mkdir(dir, 0755);
	write_shard(dir, "model-00001-of-00002.safetensors", 0, 2);
	write_shard(dir, "model-00002-of-00002.safetensors", 2, 1);
	write_shard(dir, "stray.safetensors", 9, 1);
	put_file(dir, "model.safetensors.index.json",
		 "{\"metadata\":{\"total_size\":24576},\"weight_map\":{\"model.layers.0.weight\":\"model-00001-of-00002.safetensors\","
		 "\"model.layers.1.weight\":\"model-00001-of-00002.safetensors\",\"model.layers.2.weight\":\"model-00002-of-00002.safetensors\"}}");
	put_file(dir, "config.json", llama3);
	assert_true(st_model_load(&m, dir, false, err, sizeof err));
	assert_string_equal(m.source, "model.safetensors.index.json");
	assert_int_equal(m.n_files, 2);
	assert_int_equal(m.weight_bytes, 3 * 8192);
	assert_int_equal(m.n_params, 3 * 4096);
	assert_true(m.have_config);
	assert_int_equal(m.config.n_layer, 32);
	st_model_free(&m);
	/* one shard named: the whole model the index lists */
	snprintf(path, sizeof path, "%s/model-00002-of-00002.safetensors", dir);
	assert_true(st_model_load(&m, path, false, err, sizeof err));
	assert_int_equal(m.n_files, 2);
	st_model_free(&m);
	/* a file the index does not list: that file alone */
	snprintf(path, sizeof path, "%s/stray.safetensors", dir);
	assert_true(st_model_load(&m, path, false, err, sizeof err));
	assert_string_equal(m.source, "file");
	assert_int_equal(m.n_files, 1);
	st_model_free(&m);
	/* MLX: every model*.safetensors, no index */
	snprintf(dir, sizeof dir, "%s/mlx", tmp);
	mkdir(dir, 0755);
	write_shard(dir, "model.safetensors", 0, 1);
	write_shard(dir, "model-extra.safetensors", 1, 1);
	write_shard(dir, "adapters.safetensors", 2, 1);
	assert_true(st_model_load(&m, dir, false, err, sizeof err));
	assert_string_equal(m.source, "model*.safetensors");
	assert_int_equal(m.n_files, 2);
	assert_false(m.have_config);
	st_model_free(&m);
	snprintf(dir, sizeof dir, "%s/empty", tmp);
	mkdir(dir, 0755);
	assert_false(st_model_load(&m, dir, false, err, sizeof err));
}

int main(void)
{
	char t[] = "/tmp/gtm-st-XXXXXX";
	tmp = mkdtemp(t);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_dtypes), cmocka_unit_test(test_offsets), cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_index),        cmocka_unit_test(test_config_gqa), cmocka_unit_test(test_config_mla),
		cmocka_unit_test(test_config_hybrid),
		cmocka_unit_test(test_torch_kv), cmocka_unit_test(test_model_dir),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		rc = rc ? rc : 1;
	return rc;
}
