/* Fuzz target: two snapshots (split at the first form feed, else in half)
 * read back into the core model as replay reads a recording's lines
 * (snap_model), the big-VRAM-change rule between them, the inspector's
 * and help's text built from the second for each of its processes, and the
 * recorder's kept rows: the second written after the first through one row
 * cache is the text written from scratch (abort otherwise). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/rec_seek.h"
#include "snapread/snap_model.h"
#include "views/json.h"
#include "views/tui/tui_inspect.h"

static char *text_of(const struct gtm_snapshot *s, struct json_row_cache *c, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort();
	json_write_snapshot_rows(f, s, true, true, c);
	fclose(f);
	return text;
}

static void kept_rows_same(const struct gtm_snapshot *a, const struct gtm_snapshot *b)
{
	struct json_row_cache *c = json_row_cache_new();
	size_t n0, n1, n2, n3;
	/* b after a (rows of a that b keeps), then b again (every row kept) */
	char *t0 = text_of(a, c, &n0), *t1 = text_of(b, c, &n1), *t3 = text_of(b, c, &n3), *t2 = text_of(b, NULL, &n2);

	if (n1 != n2 || memcmp(t1, t2, n1) || n3 != n2 || memcmp(t3, t2, n3))
		abort();
	free(t0);
	free(t1);
	free(t2);
	free(t3);
	json_row_cache_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *ff = memchr(buf, '\f', size);
	size_t cut = ff ? (size_t)(ff - buf) : size / 2, rest = ff ? cut + 1 : cut;
	char err[256], text[256];
	struct gtm_snapshot *a = snap_model_parse(buf, cut, err, sizeof err);
	struct gtm_snapshot *b = snap_model_parse(buf + rest, size - rest, err, sizeof err);
	struct rec_change c;
	struct tui_text t = {0};

	if (a && b && rec_vram_change(a, b, &c))
		rec_change_text(&c, text, sizeof text);
	if (a && b)
		kept_rows_same(a, b);
	if (b) {
		t.width = 60;
		for (int i = 0; i < b->n_processes && i < 64; i++)
			tui_inspect_build(&t, b, &b->processes[i]);
		tui_help_build(&t, b);
		tui_text_free(&t);
	}
	snapshot_free(a);
	snapshot_free(b);
	return 0;
}
