#include "app/cmd_diff.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "portable.h"

#include "record/rec_lookup.h"
#include "views/diff.h"
#include "snapread/snap_parse.h"
#include "views/json_util.h"

struct diff_args {
	const char *files[2];
	int n_files;
	bool json, all, force, help;
};

static void diff_usage(FILE *out)
{
	fprintf(out,
		"Usage: gputaskman diff BEFORE.json AFTER.json [--json] [--all] [--force]\n"
		"       gputaskman diff RECORDING@TIME RECORDING@TIME (or a recording against a .json)\n"
		"Compares two `gputaskman --json` snapshots: which measured memory grew, per GPU and per\n"
		"process. Runtime-reported and estimated figures are listed beside, never added in.\n"
		"  --json   the comparison as JSON, every process, with the rule that paired it\n"
		"  --all    also show processes that moved by less than 16 MiB\n"
		"  --force  compare snapshots from different machines (hostnames)\n"
		"  --       what follows are file names, even when they start with -\n"
		"  -        reads a snapshot from standard input\n"
		"  -h, --help  this help\n"
		"  PATH@TIME  the last snapshot of a recording (`gputaskman record`) taken at or before\n"
		"           TIME (ISO 8601 or local HH:MM[:SS]); a recording without @TIME: its last one\n"
		"Example: gputaskman --json > before.json; (load a model, send it one request);\n"
		"         gputaskman --json > after.json; gputaskman diff before.json after.json\n");
}

static int parse_args(int argc, char **argv, struct diff_args *a)
{
	static const struct {
		const char *flag;
		size_t offset;
	} flags[] = {
		{"--json", offsetof(struct diff_args, json)}, {"--all", offsetof(struct diff_args, all)},
		{"--force", offsetof(struct diff_args, force)}, {"--help", offsetof(struct diff_args, help)},
		{"-h", offsetof(struct diff_args, help)},
	};
	bool options = true;

	memset(a, 0, sizeof *a);
	for (int i = 1; i < argc; i++) {
		bool known = false;
		if (options && !strcmp(argv[i], "--")) {
			options = false; /* file names that start with '-' follow */
			continue;
		}
		for (size_t k = 0; options && k < sizeof flags / sizeof flags[0] && !known; k++)
			if (!strcmp(argv[i], flags[k].flag))
				known = *(bool *)((char *)a + flags[k].offset) = true;
		if (known)
			continue;
		if (options && argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "gputaskman diff: unknown option '%s' (see gputaskman diff --help)\n", argv[i]);
			return 2;
		}
		if (a->n_files == 2) {
			fprintf(stderr, "gputaskman diff: more than two files ('%s'): give BEFORE.json AFTER.json\n", argv[i]);
			return 2;
		}
		a->files[a->n_files++] = argv[i];
	}
	if (!a->help && a->n_files != 2) {
		fprintf(stderr, "gputaskman diff: needs two snapshots: gputaskman diff BEFORE.json AFTER.json\n");
		return 2;
	}
	if (a->n_files == 2 && !strcmp(a->files[0], "-") && !strcmp(a->files[1], "-")) {
		fprintf(stderr, "gputaskman diff: only one of the two snapshots can be standard input ('-')\n");
		return 2;
	}
	return 0;
}

/* A recording's moment: PATH@TIME, or a recording without @TIME (its last
 * snapshot). NULL with err set, *handled false when path is no recording. */
static json_t *load_recorded(const char *path, bool *handled, char *err, size_t errn)
{
	const char *at = strrchr(path, '@');
	char *file = at && access(path, F_OK) != 0 ? strndup(path, (size_t)(at - path)) : strdup(path);
	const char *when = at && access(path, F_OK) != 0 ? at + 1 : NULL;
	struct rec_file f;
	json_t *doc = NULL;
	char *line;
	size_t len;

	*handled = file && rec_path_is_recording(file);
	if (*handled && rec_file_open(file, &f, err, errn) == 0) {
		if (f.idx.torn)
			fprintf(stderr, "gputaskman diff: %s: %s\n", file, f.idx.note);
		if (rec_file_line_at(&f, when, &line, &len, err, errn) == 0) {
			doc = snap_json_parse(line, len, err, errn);
			free(line);
		}
		rec_file_close(&f);
	}
	free(file);
	return doc;
}

static int load(const char *path, struct snap_rows *s)
{
	char err[512];
	bool recorded;
	json_t *doc = load_recorded(path, &recorded, err, sizeof err);
	int rc;

	if (!recorded)
		doc = snap_json_load(path, err, sizeof err);
	if (!doc) {
		fprintf(stderr, "gputaskman diff: %s: %s\n", path, err);
		return 2;
	}
	rc = snap_rows_read(doc, s, err, sizeof err);
	json_decref(doc);
	if (rc) {
		fprintf(stderr, "gputaskman diff: %s: not a valid gputaskman snapshot: %s\n", path, err);
		return 2;
	}
	return 0;
}

/* PIDs of another machine name other processes: refuse unless asked (issue 6). */
static int check_hosts(const struct diff_args *a, const struct snap_rows *b, const struct snap_rows *af)
{
	if (a->force || !b->hostname || !af->hostname || !strcmp(b->hostname, af->hostname))
		return 0;
	fprintf(stderr, "gputaskman diff: %s: taken on '%s', but %s on '%s': snapshots from different machines "
			"do not compare (--force compares them anyway)\n",
		a->files[1], af->hostname, a->files[0], b->hostname);
	return 2;
}

static int report(const struct diff_args *a, const struct snap_rows *b, const struct snap_rows *af)
{
	struct diff_result *r = diff_compare(b, af, NULL);
	int rc = 0;

	if (a->json) {
		json_t *j = diff_to_json(r, a->files[0], a->files[1]);
		os_stdout_binary();
		rc = json_dumpf_safe(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ? 1 : 0;
		fputc('\n', stdout);
		json_decref(j);
	} else {
		diff_print_text(stdout, r, a->files[0], a->files[1], a->all);
	}
	for (int i = 0; a->json && i < r->n_warnings; i++)
		fprintf(stderr, "gputaskman diff: warning: %s\n", r->warnings[i]);
	diff_result_free(r);
	return fflush(stdout) ? 1 : rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a;
	struct snap_rows b = {0}, af = {0};
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	if (a.help) {
		diff_usage(stdout);
		return 0;
	}
	rc = load(a.files[0], &b);
	if (!rc)
		rc = load(a.files[1], &af);
	if (!rc)
		rc = check_hosts(&a, &b, &af);
	if (!rc)
		rc = report(&a, &b, &af);
	snap_rows_free(&b);
	snap_rows_free(&af);
	return rc;
}
