/* Writes the e2e inspect inputs into DIR: sparse header replicas of published
 * models, a file named like a decision model, and broken files. */
#include <stdio.h>
#include <string.h>

#include "gguf_writer.h"
#include "llm/ggml_types.h"
#include "replicas.h"

static int write_bytes(const char *dir, const char *name, const void *b, size_t n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n)
		return 1;
	return fclose(f) != 0;
}

/* A llama header with block_count, head_count (0: key absent) and head_count_kv (-1: absent). */
static int write_heads(const char *dir, const char *name, uint32_t n_layer, uint32_t n_head, int64_t n_head_kv)
{
	char path[1024];
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	if (n_layer)
		gw_u32(w, "llama.block_count", n_layer);
	gw_u32(w, "llama.context_length", 4096);
	gw_u32(w, "llama.embedding_length", 256);
	if (n_head)
		gw_u32(w, "llama.attention.head_count", n_head);
	if (n_head_kv >= 0)
		gw_u32(w, "llama.attention.head_count_kv", (uint32_t)n_head_kv);
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 256, 1000);
	gw_tensor2(w, "blk.0.attn_q.weight", GGML_T_F16, 256, 256);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int rc = gw_write_file(w, path);
	gw_free(w);
	return rc != 0;
}

int main(int argc, char **argv)
{
	char path[1024];
	int rc = 0;
	if (argc != 2) {
		fprintf(stderr, "usage: make_models DIR\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/Qwen3-0.6B-Q8_0.gguf", argv[1]);
	rc |= replica_write(&replica_qwen3_0_6b_q8_0, path);
	snprintf(path, sizeof path, "%s/gemma-3-270m-Q8_0.gguf", argv[1]);
	rc |= replica_write(&replica_gemma3_270m_q8_0, path);
	snprintf(path, sizeof path, "%s/openjev-7b-Q8_0.gguf", argv[1]);
	rc |= replica_write(&replica_qwen3_0_6b_q8_0, path);
	snprintf(path, sizeof path, "%s/Qwen3-30B-A3B-Q8_0.gguf", argv[1]);
	rc |= replica_write(&replica_qwen3_30b_a3b_q8_0, path);

	struct gw *w = gw_new();
	size_t len;
	gw_set_version(w, 1);
	const uint8_t *b = gw_header(w, &len);
	rc |= write_bytes(argv[1], "v1.gguf", b, len);
	gw_free(w);
	w = gw_new();
	gw_str(w, "general.architecture", "llama");
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 1000);
	b = gw_header(w, &len);
	rc |= write_bytes(argv[1], "truncated.gguf", b, len / 2);
	gw_free(w);
	rc |= write_bytes(argv[1], "not-a-model.gguf", "GGML is not GGUF\n", 17);
	rc |= write_heads(argv[1], "no-heads.gguf", 4, 0, -1);
	rc |= write_heads(argv[1], "kv-heads-over.gguf", 4, 32, 4294967295ll);
	rc |= write_heads(argv[1], "no-layers.gguf", 0, 4, 2);
	rc |= write_heads(argv[1], "draft.gguf", 4, 4, 2);
	return rc;
}
