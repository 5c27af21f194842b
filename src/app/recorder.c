#include "app/recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "portable.h"
#include "views/json.h"

struct recorder {
	struct rec_writer *w;
	struct json_row_cache *rows;
};

struct recorder *recorder_new(struct rec_writer *w)
{
	struct recorder *r = xcalloc(1, sizeof *r);
	r->w = w;
	r->rows = json_row_cache_new();
	return r;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	json_row_cache_free(r->rows);
	free(r);
}

char *recorder_line(struct recorder *r, const struct gtm_snapshot *s, size_t *len)
{
	struct os_memstream ms;
	size_t n = 0;
	FILE *f = os_memstream_open(&ms);

	if (!f)
		return NULL;
	int rc = json_write_snapshot_rows(f, s, false, true, r ? r->rows : NULL);
	char *buf = os_memstream_close(&ms, &n);
	if (!buf || rc != 0 || n == 0) {
		free(buf);
		return NULL;
	}
	*len = n - 1; /* the writer's closing newline */
	return buf;
}

int recorder_take(struct recorder *r, const struct gtm_snapshot *s, char *err, size_t errn)
{
	size_t len;
	char *line = recorder_line(r, s, &len);
	int rc;

	if (!line) {
		snprintf(err, errn, "out of memory writing a snapshot");
		return -1;
	}
	rc = rec_writer_add(r->w, line, len, s->taken_at_ns, err, errn);
	free(line);
	return rc;
}

int recorder_parse_size(const char *text, uint64_t *out)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {{"", 0}, {"B", 0}, {"K", 10}, {"KiB", 10}, {"M", 20}, {"MiB", 20}, {"G", 30}, {"GiB", 30}};
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);

	if (errno || end == text || text[0] == '-')
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (v > (UINT64_MAX >> units[i].shift))
			return -1;
		*out = (uint64_t)v << units[i].shift;
		return 0;
	}
	return -1;
}
