/* Fuzz target: two snapshots (split at the first form feed, else in half) through
 * the bounded loader, the typed reader, the comparison and both renderers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/diff.h"
#include "views/diff_load.h"

static int load(const char *buf, size_t len, struct diff_snap *s)
{
	char err[512];
	json_t *doc = diff_snapshot_parse(buf, len, err, sizeof err);
	int rc;

	memset(s, 0, sizeof *s);
	if (!doc)
		return -1;
	rc = diff_snap_read(doc, s, err, sizeof err);
	json_decref(doc);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *ff = memchr(buf, '\f', size);
	size_t cut = ff ? (size_t)(ff - buf) : size / 2, rest = ff ? cut + 1 : cut;
	struct diff_snap b, a = {0};

	if (load(buf, cut, &b) == 0 && load(buf + rest, size - rest, &a) == 0) {
		struct diff_result *r = diff_compare(&b, &a, NULL);
		FILE *null = fopen("/dev/null", "w");
		json_t *j = diff_to_json(r, "b", "a");
		if (null) {
			diff_print_text(null, r, "b", "a", true);
			json_dumpf(j, null, 0);
			fclose(null);
		}
		json_decref(j);
		diff_result_free(r);
	}
	diff_snap_free(&a);
	diff_snap_free(&b);
	return 0;
}
