/* Fuzzes what the --trace-opens reader does with one read(2) of its fanotify
 * group: the record parser (fanotify_parse.c) over the whole input, and the
 * handler (opens_events.c) with an io table that resolves every folder to
 * "/m" and hands back the input's first bytes as the file's head. Every
 * pointer the parser returns must lie inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanotify_parse.h"
#include "opens_events.h"

static const uint8_t *g_data;
static size_t g_size;

static int fz_resolve(void *ctx, const struct fan_event *ev, char *out, size_t cap, char *why, size_t wcap)
{
	(void)ctx, (void)why, (void)wcap;
	if (ev->handle_bytes & 1)
		return -1;
	strncpy(out, "/m", cap);
	return 3;
}

static long fz_head(void *ctx, int dirfd, const char *name, uint8_t *b, size_t n)
{
	(void)ctx, (void)dirfd, (void)name;
	size_t k = g_size < n ? g_size : n;
	memcpy(b, g_data, k);
	return (long)k;
}

static int fz_start(void *ctx, uint32_t pid, uint64_t *out)
{
	(void)ctx;
	*out = pid * 7u;
	return pid % 3 ? 0 : -1;
}

static void fz_close(void *ctx, int fd)
{
	(void)ctx, (void)fd;
}

static void inside(const void *p, size_t n, const uint8_t *d, size_t size)
{
	const uint8_t *q = p;
	if (q < d || q + n > d + size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;
	struct fan_event ev;
	while (fan_event_next(data, size, &off, &ev) == 1) {
		if (off > size)
			abort();
		if (!ev.has_dfid_name)
			continue;
		inside(ev.handle, ev.handle_bytes, data, size);
		inside(ev.name, ev.name_len + 1, data, size);
		if (memchr(ev.name, '\0', ev.name_len) || ev.name[ev.name_len] != '\0')
			abort();
		enum fan_model_kind k = fan_model_kind_of_name(ev.name, ev.name_len);
		(void)fan_model_magic_ok(k, data, size < FAN_MAGIC_BYTES ? size : FAN_MAGIC_BYTES);
	}
	g_data = data;
	g_size = size;
	static struct open_table t;
	struct opens_counts c = {0};
	static struct mute_tally tally;
	tally.n = 0;
	const struct opens_io io = {NULL, fz_resolve, fz_head, fz_start, fz_close, &tally};
	t.n = 0;
	opens_handle_buffer(data, size, 1, 1, 1, &io, &t, &c);
	if (t.n > OPEN_TABLE_CAP || c.model_opens > c.events)
		abort();
	for (size_t i = 0; i < t.n; i++)
		if (strlen(t.v[i].path) >= sizeof t.v[i].path)
			abort();
	return 0;
}
