/* libFuzzer target: config.json parsing, vLLM's KV rules over whatever
 * shape it yields (several --kv-cache-dtype / TP / length choices) and
 * transformers' KV per 1k tokens. */
#include <stddef.h>
#include <stdint.h>

#include "llm/hf_config.h"
#include "llm/torch_kv.h"
#include "llm/vllm_kv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hf_config c;
	struct vllm_kv k;
	char err[200];
	static const struct vllm_kv_opts opts[] = {
		{0},
		{.kv_cache_dtype = "fp8", .tp = 8, .max_model_len = 1, .block_size = 1},
		{.kv_cache_dtype = "fp8_ds_mla", .tp = 3, .max_model_len = UINT64_MAX / 2, .max_num_batched_tokens = UINT64_MAX / 2},
		{.kv_cache_dtype = "bogus"},
	};
	if (!hf_config_parse((const char *)data, size, &c, err, sizeof err))
		return 0;
	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
		vllm_kv_estimate(&c, &opts[i], &k, err, sizeof err);
	struct torch_kv t;
	torch_kv_estimate(&c, &t);
	return 0;
}
