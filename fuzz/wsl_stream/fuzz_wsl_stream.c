/* Fuzzes the host stream: the bytes go through the line splitter in two
 * pieces (the first byte says where to cut), every line through the parser;
 * what comes out is checked against the protocol's bounds (byte counts at
 * most WSL_BYTES_MAX: no sum of a line's counts wraps). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sources/wsl_proto.h"

static struct wsl_host_sample sample;
static struct wsl_linebuf lines;

/* A byte count the parser accepted: N/A, or within the protocol's cap. */
static int bytes_ok(gtm_u64 v)
{
	return !gtm_u64_ok(v) || v.v <= WSL_BYTES_MAX;
}

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
	for (int i = 0; i < sample.n_adapters; i++) {
		const struct wsl_host_adapter *a = &sample.adapters[i];
		if (a->vm.n > WSL_MAX_CTX || strlen(a->luid) != 21 || !bytes_ok(a->dedicated) || !bytes_ok(a->shared) ||
		    !bytes_ok(a->committed))
			abort();
		for (int k = 0; k < a->vm.n; k++) /* a sum of a line's contexts cannot wrap */
			if (a->vm.ctx[k].local > WSL_BYTES_MAX || a->vm.ctx[k].nonlocal > WSL_BYTES_MAX ||
			    a->vm.ctx[k].committed > WSL_BYTES_MAX || (a->vm.ctx[k].committed_na && a->vm.ctx[k].committed))
				abort();
	}
	for (int i = 0; i < sample.n_procs; i++)
		if (sample.procs[i].pid == 0 || sample.procs[i].adapter >= sample.n_adapters ||
		    strlen(sample.procs[i].name) >= WSL_NAME_LEN || sample.procs[i].n_eng > WSL_HOST_MAX_ENG ||
		    !bytes_ok(sample.procs[i].local) || !bytes_ok(sample.procs[i].nonlocal) ||
		    !bytes_ok(sample.procs[i].committed))
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
