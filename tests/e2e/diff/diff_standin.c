/* A stand-in GPU server for the diff e2e test. Copied under the name it should
 * have (its comm: "llama-server", "worker"), it maps each library given with
 * --lib (the fake libcuda.so.1, so gputaskman sees a CUDA process), maps the
 * model given with -m read-only and shared (as llama.cpp does), listens on
 * 127.0.0.1:--port (0: any free port), prints "ready PORT" and lives until the
 * test ends it by PID, or --seconds pass (default 120, so none outlives a failed
 * test). Other llama.cpp flags (-c, -ngl) are only there for gputaskman to read.
 * `diff_standin --write-gguf PATH` writes the Llama-shaped GGUF header the test
 * serves: 32 layers, 8 KV heads of 128, so f16 KV is 128 KiB per token. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gguf_writer.h"
#include "llm/ggml_types.h"

static int write_gguf(const char *path)
{
	struct gw *w = gw_new();
	char name[64];

	gw_str(w, "general.architecture", "llama");
	gw_str(w, "general.name", "diff e2e llama");
	gw_u32(w, "general.file_type", 1);
	gw_u32(w, "llama.block_count", 32);
	gw_u32(w, "llama.context_length", 16384);
	gw_u32(w, "llama.embedding_length", 4096);
	gw_u32(w, "llama.attention.head_count", 32);
	gw_u32(w, "llama.attention.head_count_kv", 8);
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 4096, 32000);
	for (int i = 0; i < 32; i++) {
		snprintf(name, sizeof name, "blk.%d.attn_q.weight", i);
		gw_tensor2(w, name, GGML_T_F16, 4096, 4096);
	}
	int rc = gw_write_file(w, path);
	gw_free(w);
	return rc;
}

static int listen_on(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	socklen_t len = sizeof a;
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("diff_standin: listen");
		return -1;
	}
	return ntohs(a.sin_port);
}

static int map_model(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0 ||
	    mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
		perror("diff_standin: mapping the model");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int port = -1, seconds = 120;

	if (argc == 3 && !strcmp(argv[1], "--write-gguf"))
		return write_gguf(argv[2]) == 0 ? 0 : 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--lib") && !dlopen(argv[i + 1], RTLD_NOW)) {
			fprintf(stderr, "diff_standin: %s\n", dlerror());
			return 1;
		}
		if (!strcmp(argv[i], "-m") && map_model(argv[i + 1]))
			return 1;
		if (!strcmp(argv[i], "--port"))
			port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atoi(argv[i + 1]);
	}
	if (port >= 0 && (port = listen_on(port)) < 0)
		return 1;
	printf("ready %d\n", port);
	fflush(stdout);
	while (seconds-- > 0)
		sleep(1);
	return 0;
}
