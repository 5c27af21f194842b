/* Fuzzes the host stream: the bytes go through the line splitter in two
 * pieces (the first byte says where to cut), every line through the parser;
 * what comes out is checked against the protocol's bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/wsl_proto.h"

static struct wsl_host_sample sample;
static struct wsl_linebuf lines;

static void on_line(void *arg, const char *line, size_t len)
{
	char err[128];
	(void)arg;
	if (len > WSL_LINE_MAX)
		abort();
	if (wsl_line_parse(line, len, &sample, err, sizeof err) != 0) {
		if (!err[0])
			abort(); /* a refusal always says why */
		return;
	}
	if (sample.n_adapters > WSL_MAX_ADAPTERS || sample.n_procs > WSL_HOST_MAX_PROCS)
		abort();
	for (int i = 0; i < sample.n_adapters; i++)
		if (sample.adapters[i].vm.n > WSL_MAX_CTX || strlen(sample.adapters[i].luid) != 21)
			abort();
	for (int i = 0; i < sample.n_procs; i++)
		if (sample.procs[i].pid == 0 || sample.procs[i].adapter >= sample.n_adapters ||
		    strlen(sample.procs[i].name) >= WSL_NAME_LEN || sample.procs[i].n_eng > WSL_HOST_MAX_ENG)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&lines, 0, sizeof lines);
	if (size == 0)
		return 0;
	size_t cut = data[0] % size;
	wsl_linebuf_feed(&lines, (const char *)data + 1, cut > 0 ? cut - 1 : 0, on_line, NULL);
	if (cut > 0)
		wsl_linebuf_feed(&lines, (const char *)data + cut, size - cut, on_line, NULL);
	wsl_linebuf_feed(&lines, "\n", 1, on_line, NULL);
	return 0;
}
