/* A stand-in for llama-server: built as "llama-server", it maps the model
 * named by -m (relative to its cwd, as llama.cpp does) read-only and shared,
 * dlopens the libraries given with --lib, writes --ready FILE and waits to be
 * killed (at most 60 s). `llama-server --write-gguf PATH [N_VOCAB]` writes
 * the small Qwen3-shaped GGUF the e2e test serves (with N_VOCAB tokens and
 * merges, about 6 MB of header at 151936, for timing inspect on a big header). */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gguf_writer.h"
#include "llm/ggml_types.h"

static int write_gguf(const char *path, size_t n_vocab)
{
	struct gw *w = gw_new();
	char name[64];

	gw_str(w, "general.architecture", "qwen3");
	gw_str(w, "general.name", "e2e tiny qwen3");
	gw_u32(w, "general.file_type", 1);
	gw_u32(w, "qwen3.block_count", 4);
	gw_u32(w, "qwen3.context_length", 8192);
	gw_u32(w, "qwen3.embedding_length", 256);
	gw_u32(w, "qwen3.attention.head_count", 4);
	gw_u32(w, "qwen3.attention.head_count_kv", 2);
	if (n_vocab) {
		gw_str(w, "tokenizer.ggml.model", "gpt2");
		gw_arr_vocab(w, "tokenizer.ggml.tokens", n_vocab);
		gw_arr_vocab(w, "tokenizer.ggml.merges", n_vocab);
	}
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 256, n_vocab ? n_vocab : 1000);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "blk.%d.attn_q.weight", i);
		gw_tensor2(w, name, GGML_T_F16, 256, 256);
	}
	int rc = gw_write_file(w, path);
	gw_free(w);
	return rc;
}

int main(int argc, char **argv)
{
	const char *model = NULL, *ready = NULL;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--write-gguf"))
		return write_gguf(argv[2], argc == 4 ? strtoul(argv[3], NULL, 10) : 0) == 0 ? 0 : 1;
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "-m"))
			model = argv[++i];
		else if (!strcmp(argv[i], "--ready"))
			ready = argv[++i];
		else if (!strcmp(argv[i], "--lib") && !dlopen(argv[++i], RTLD_NOW | RTLD_LOCAL)) {
			fprintf(stderr, "stand-in: dlopen %s: %s\n", argv[i], dlerror());
			return 1;
		}
	}
	if (!model || !ready) {
		fprintf(stderr, "stand-in: -m MODEL and --ready FILE are needed\n");
		return 1;
	}
	int fd = open(model, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
		perror("stand-in: mapping the model");
		return 1;
	}
	FILE *f = fopen(ready, "w");
	if (!f || fclose(f) != 0)
		return 1;
	for (int i = 0; i < 600; i++)
		usleep(100000);
	return 0;
}
