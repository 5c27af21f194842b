/* Fuzz target: two snapshots (split at the first form feed, else in half)
 * read back into the core model as replay reads a recording's lines
 * (snap_model), the big-VRAM-change rule between them, and the inspector's
 * and help's text built from the second for each of its processes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/rec_seek.h"
#include "snapread/snap_model.h"
#include "views/tui/tui_inspect.h"

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
