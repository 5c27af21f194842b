#include "snapread/snap_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "core/format.h"
#include "snapread/json_get.h"

/* The shape of the text before jansson sees it: the deepest [ / { nesting and the
 * number of values (commas and openings outside strings). jansson recurses per
 * level and spends tens of bytes per value, so both are bounded first. */
struct json_shape {
	int depth;
	size_t values;
};

static struct json_shape json_shape(const char *buf, size_t len)
{
	struct json_shape sh = {0, 1};
	int depth = 0;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			sh.values++;
			if (++depth > sh.depth)
				sh.depth = depth;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		} else if (c == ',') {
			sh.values++;
		}
	}
	return sh;
}

static bool only_space(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", buf[i]))
			return false;
	return true;
}

static json_t *parse_json(const char *buf, size_t len, char *err, size_t errn)
{
	json_error_t je;
	json_t *doc;

	if (only_space(buf, len)) {
		snprintf(err, errn, "empty file, not a gputaskman snapshot");
		return NULL;
	}
	struct json_shape sh = json_shape(buf, len);
	if (sh.depth > SNAP_MAX_DEPTH) {
		snprintf(err, errn, "JSON nested deeper than %d levels, not a gputaskman snapshot", SNAP_MAX_DEPTH);
		return NULL;
	}
	if (sh.values > SNAP_MAX_VALUES) {
		snprintf(err, errn, "more than %u JSON values, not a gputaskman snapshot", SNAP_MAX_VALUES);
		return NULL;
	}
	doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (doc)
		return doc;
	if (json_error_code(&je) == json_error_premature_end_of_input)
		snprintf(err, errn, "truncated JSON (ends at line %d): was the snapshot cut short?", je.line);
	else
		snprintf(err, errn, "not valid JSON: %s (line %d, column %d)", je.text, je.line, je.column);
	return NULL;
}

/* A key every snapshot has (docs/json-schema.md: "Fields are never omitted"). `path`
 * names where, for the message ("gpus[0].index"). */
static bool require_key(const json_t *obj, const char *key, json_type type, const char *path, char *err,
			size_t errn)
{
	static const char *const want[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
		[JSON_INTEGER] = "an integer",
	};
	const json_t *v = json_object_get(obj, key);

	if (v && json_typeof(v) == type)
		return true;
	if (!v || json_is_null(v))
		snprintf(err, errn, "not a gputaskman snapshot: \"%s\" is missing (a snapshot has %s there)", path,
			 want[type]);
	else
		snprintf(err, errn, "not a gputaskman snapshot: \"%s\" is %s, not %s", path, jr_type_name(v), want[type]);
	return false;
}

/* Each GPU (the snapshot's and each process's) has an integer index, and each
 * process a label: without them a row names nothing ("GPU -1", "?"). Elements
 * that are not objects are left to the typed reader, which names the path. */
static bool require_indexes(const json_t *arr, const char *where, char *err, size_t errn)
{
	char path[96];
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) {
		snprintf(path, sizeof path, "%s[%zu].index", where, i);
		if (json_is_object(v) && !require_key(v, "index", JSON_INTEGER, path, err, errn))
			return false;
	}
	return true;
}

static bool require_snapshot_keys(const json_t *doc, char *err, size_t errn)
{
	const json_t *procs = json_object_get(doc, "processes"), *uses;
	char where[64];
	size_t i;
	json_t *p;

	if (!require_key(doc, "taken_at", JSON_STRING, "taken_at", err, errn) ||
	    !require_key(doc, "gpus", JSON_ARRAY, "gpus", err, errn) ||
	    !require_key(doc, "processes", JSON_ARRAY, "processes", err, errn) ||
	    !require_indexes(json_object_get(doc, "gpus"), "gpus", err, errn))
		return false;
	json_array_foreach(procs, i, p) {
		if (!json_is_object(p))
			continue;
		snprintf(where, sizeof where, "processes[%zu].label", i);
		if (!require_key(p, "label", JSON_STRING, where, err, errn))
			return false;
		snprintf(where, sizeof where, "processes[%zu].gpus", i);
		uses = json_object_get(p, "gpus");
		if (json_is_array(uses) && !require_indexes(uses, where, err, errn))
			return false;
	}
	return true;
}

/* Is the document a snapshot this build reads? schema_version is the contract
 * (docs/json-schema.md: "a reader must check schema_version"). */
static bool check_snapshot(const json_t *doc, char *err, size_t errn)
{
	const json_t *v;

	if (!json_is_object(doc)) {
		snprintf(err, errn, "not a gputaskman snapshot (the JSON is not an object)");
		return false;
	}
	v = json_object_get(doc, "schema_version");
	if (!v) {
		if (json_object_get(doc, "diff_schema_version"))
			snprintf(err, errn, "this is a gputaskman diff, not a snapshot: diff reads two `gputaskman --json` outputs");
		else
			snprintf(err, errn, "not a gputaskman snapshot (no schema_version): make one with `gputaskman --json > FILE`");
		return false;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 1) {
		snprintf(err, errn, "not a gputaskman snapshot (schema_version is not a positive integer)");
		return false;
	}
	if (json_integer_value(v) > SNAP_SCHEMA_MAX) {
		snprintf(err, errn, "schema_version %lld is newer than this gputaskman reads (%d): use the gputaskman that wrote it",
			 (long long)json_integer_value(v), SNAP_SCHEMA_MAX);
		return false;
	}
	return require_snapshot_keys(doc, err, errn);
}

/* A snapshot's strings (process names, command lines, paths) come from other
 * users' processes and files: line breaks and other C0 controls become
 * "\xNN" text here, so no name can split or forge a line of the report. The
 * depth was bounded by parse_json. */
static void escape_controls(json_t *v)
{
	const char *key;
	json_t *child;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, child)
			escape_controls(child);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child)
			escape_controls(child);
	} else if (json_is_string(v)) {
		/* C0, DEL and C1 controls as the text views write them (\x1b, \xc2\x9b): a
		 * snapshot from elsewhere may carry them, and the diff prints its strings */
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);
		char *out = malloc(n * 4 + 1);
		if (!out)
			return;
		size_t o = fmt_safe_copy(out, s, n);
		if (o != n || memcmp(out, s, n) != 0)
			json_string_setn(v, out, o);
		free(out);
	}
}

json_t *snap_json_parse(const char *buf, size_t len, char *err, size_t errn)
{
	json_t *doc;

	if (len > SNAP_MAX_INPUT_BYTES) {
		snprintf(err, errn, "larger than %u MiB, not a gputaskman snapshot", SNAP_MAX_INPUT_BYTES >> 20);
		return NULL;
	}
	doc = parse_json(buf, len, err, errn);
	if (doc && !check_snapshot(doc, err, errn)) {
		json_decref(doc);
		return NULL;
	}
	if (doc)
		escape_controls(doc);
	return doc;
}

/* Reads at most limit + 1 bytes into a buffer that never grows past that,
 * starting at `first` bytes (a file's size from fstat, or 64 KiB for a pipe). */
static char *read_bounded(int fd, size_t first, size_t limit, size_t *len, bool *too_big)
{
	size_t cap = first + 1, n = 0;
	char *buf = malloc(cap);

	*too_big = false;
	while (buf) {
		if (n == cap) {
			if (cap > limit) {
				*too_big = true;
				break;
			}
			size_t want = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
			char *grown = realloc(buf, want);
			if (!grown)
				break;
			buf = grown;
			cap = want;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		if (got == 0) {
			*len = n;
			return buf;
		}
		n += (size_t)got;
	}
	free(buf);
	return NULL;
}

json_t *snap_json_load(const char *path, char *err, size_t errn)
{
	bool stdin_in = !strcmp(path, "-"), too_big;
	size_t len = 0, first = 64 * 1024;
	const char *why = NULL;
	struct stat st;
	char *buf;
	json_t *doc;
	/* a named file is checked before reading: a FIFO would block, a device act, a huge file cost its size */
	int fd = stdin_in ? STDIN_FILENO : file_open_regular(path, SNAP_MAX_INPUT_BYTES, &st, &why);

	if (fd < 0) {
		if (errno == EFBIG)
			snprintf(err, errn, "larger than %u MiB, not a gputaskman snapshot", SNAP_MAX_INPUT_BYTES >> 20);
		else
			snprintf(err, errn, "%s", why);
		return NULL;
	}
	if (!stdin_in)
		first = (size_t)st.st_size;
	errno = 0;
	buf = read_bounded(fd, first, SNAP_MAX_INPUT_BYTES, &len, &too_big);
	if (!buf) {
		if (too_big)
			snprintf(err, errn, "larger than %u MiB, not a gputaskman snapshot", SNAP_MAX_INPUT_BYTES >> 20);
		else
			snprintf(err, errn, "cannot read: %s", errno ? strerror(errno) : "read error");
	}
	if (!stdin_in)
		close(fd);
	if (!buf)
		return NULL;
	doc = snap_json_parse(buf, len, err, errn);
	free(buf);
	return doc;
}
