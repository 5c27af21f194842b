/* Fuzz target: two snapshots (split at the first form feed, else in half) through
 * the bounded loader, the typed reader, the comparison and both renderers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/diff.h"
#include "snapread/snap_parse.h"

static int load(const char *buf, size_t len, struct snap_rows *s)
{
	char err[512];
	json_t *doc = snap_json_parse(buf, len, err, sizeof err);
	int rc;

	memset(s, 0, sizeof *s);
	if (!doc)
		return -1;
	rc = snap_rows_read(doc, s, err, sizeof err);
	json_decref(doc);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *ff = memchr(buf, '\f', size);
	size_t cut = ff ? (size_t)(ff - buf) : size / 2, rest = ff ? cut + 1 : cut;
	struct snap_rows b, a = {0};

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
	snap_rows_free(&a);
	snap_rows_free(&b);
	return 0;
}
