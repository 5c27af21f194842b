/* Writes the safetensors models inspect_st.sh inspects, under DIR: llama/
 * (Llama 3 8B's config, two shards and an index; tensors small and sparse),
 * hub/ (a Hugging Face cache with acme/mla-tiny: DeepSeek-V3's MLA config),
 * gemma/ (Gemma 3's sliding pattern in text_config), next/ (Qwen3-Next's
 * linear-attention layers) and partial/ (a shard cut short). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "st_writer.h"

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	return f && fputs(text, f) >= 0 && fclose(f) == 0 ? 0 : -1;
}

static int shard(const char *path, const char *prefix, int n, int64_t cut)
{
	char name[64];
	struct stw *w = stw_new();
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%s.%d.weight", prefix, i);
		stw_tensor(w, name, "BF16", 2, (const uint64_t[]){1024, 1024});
	}
	stw_tensor(w, "norm", "F32", 1, (const uint64_t[]){1024});
	int rc = stw_write_file(w, path, cut);
	stw_free(w);
	return rc;
}

static char dir[3000];

static const char *at(const char *rel)
{
	/* a few at a time in one call's arguments */
	static char buf[4][4096];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, rel);
	return buf[k];
}

int main(int argc, char **argv)
{
	char blob[4096];
	int rc = 0;
	if (argc != 2)
		return 2;
	snprintf(dir, sizeof dir, "%s", argv[1]);
	mkdir(at("llama"), 0755);
	rc |= shard(at("llama/model-00001-of-00002.safetensors"), "a", 2, 0);
	rc |= shard(at("llama/model-00002-of-00002.safetensors"), "b", 1, 0);
	rc |= put(at("llama/model.safetensors.index.json"),
		  "{\"metadata\":{\"total_size\":6299648},\"weight_map\":{\"a.0.weight\":\"model-00001-of-00002.safetensors\","
		  "\"a.1.weight\":\"model-00001-of-00002.safetensors\",\"norm\":\"model-00002-of-00002.safetensors\","
		  "\"b.0.weight\":\"model-00002-of-00002.safetensors\"}}");
	rc |= put(at("llama/config.json"),
		  "{\"architectures\":[\"LlamaForCausalLM\"],\"model_type\":\"llama\",\"hidden_size\":4096,"
		  "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"num_hidden_layers\":32,"
		  "\"max_position_embeddings\":8192,\"torch_dtype\":\"bfloat16\"}");
	/* the cache: config.json and the weights are blobs behind snapshot links */
	rc |= shard(at("mla.safetensors"), "m", 1, 0);
	rc |= put(at("mla.json"),
		  "{\"architectures\":[\"DeepseekV3ForCausalLM\"],\"model_type\":\"deepseek_v3\",\"hidden_size\":7168,"
		  "\"num_attention_heads\":128,\"num_key_value_heads\":128,\"num_hidden_layers\":61,\"kv_lora_rank\":512,"
		  "\"qk_rope_head_dim\":64,\"max_position_embeddings\":163840,\"torch_dtype\":\"bfloat16\","
		  "\"quantization_config\":{\"quant_method\":\"fp8\"}}");
	const char *rev = "feedface00000000000000000000000000000000";
	rc |= stw_hf_put(at("hub"), "acme", "mla-tiny", "main", rev, "model.safetensors", at("mla.safetensors"), blob);
	rc |= stw_hf_put(at("hub"), "acme", "mla-tiny", NULL, rev, "config.json", at("mla.json"), NULL);
	mkdir(at("gemma"), 0755);
	rc |= shard(at("gemma/model.safetensors"), "g", 1, 0);
	rc |= put(at("gemma/config.json"),
		  "{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"model_type\":\"gemma3\",\"text_config\":{"
		  "\"num_hidden_layers\":12,\"num_attention_heads\":4,\"num_key_value_heads\":1,\"head_dim\":256,"
		  "\"sliding_window\":1024,\"sliding_window_pattern\":6,\"max_position_embeddings\":131072},"
		  "\"torch_dtype\":\"bfloat16\"}");
	mkdir(at("next"), 0755);
	rc |= shard(at("next/model.safetensors"), "n", 1, 0);
	rc |= put(at("next/config.json"),
		  "{\"architectures\":[\"Qwen3NextForCausalLM\"],\"model_type\":\"qwen3_next\",\"num_hidden_layers\":8,"
		  "\"num_attention_heads\":16,\"num_key_value_heads\":2,\"head_dim\":256,\"max_position_embeddings\":262144,"
		  "\"layer_types\":[\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\","
		  "\"linear_attention\",\"linear_attention\",\"linear_attention\",\"full_attention\"]}");
	mkdir(at("partial"), 0755);
	rc |= shard(at("partial/model.safetensors"), "p", 2, -1000);
	rc |= put(at("partial/config.json"), "{\"num_hidden_layers\":2,\"num_attention_heads\":2,\"head_dim\":64,"
					      "\"max_position_embeddings\":1024}");
	return rc ? 1 : 0;
}
