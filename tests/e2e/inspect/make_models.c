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
	return rc;
}
