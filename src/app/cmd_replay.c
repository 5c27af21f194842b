#include "app/cmd_replay.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/rec_lookup.h"
#include "views/json_indent.h"

struct replay_args {
	const char *path, *at;
	bool json, help;
};

static void replay_usage(FILE *out)
{
	fprintf(out,
		"Usage: gputaskman replay PATH [--at TIME] [--json]\n"
		"Opens a recording made by `gputaskman record` (or --record): the live view over what was\n"
		"recorded, nothing collected from this machine.\n"
		"  --at TIME   start at (with --json: print) the last snapshot taken at or before TIME:\n"
		"              ISO 8601 (2026-12-01T03:12:00Z, 2026-12-01T05:12:00+02:00) or a local\n"
		"              time of day HH:MM[:SS] (its latest moment in the recording)\n"
		"  --json      print that snapshot, as `gputaskman --json` printed it, and exit\n"
		"Keys: space pause/play, Left/Right one snapshot, [ ] one minute, g go to a time,\n"
		"+ - playback speed, n next large VRAM change, q quit; the rest as in the live view.\n");
}

static int parse_args(int argc, char **argv, struct replay_args *a)
{
	memset(a, 0, sizeof *a);
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			a->help = true;
		} else if (!strcmp(o, "--json")) {
			a->json = true;
		} else if (!strcmp(o, "--at") || !strncmp(o, "--at=", 5)) {
			a->at = o[4] == '=' ? o + 5 : i + 1 < argc ? argv[++i] : NULL;
			if (!a->at || !a->at[0]) {
				fprintf(stderr, "gputaskman replay: --at needs a TIME (2026-12-01T03:12:00Z or HH:MM)\n");
				return 2;
			}
		} else if (o[0] == '-' && o[1]) {
			fprintf(stderr, "gputaskman replay: unknown option '%s' (see gputaskman replay --help)\n", o);
			return 2;
		} else if (a->path) {
			fprintf(stderr, "gputaskman replay: one recording at a time ('%s')\n", o);
			return 2;
		} else {
			a->path = o;
		}
	}
	if (!a->help && !a->path) {
		fprintf(stderr, "gputaskman replay: needs a recording: gputaskman replay PATH [--at TIME]\n");
		return 2;
	}
	return 0;
}

static int print_moment(const struct replay_args *a, struct rec_file *f)
{
	char err[512], *line, *text;
	size_t len, n;
	int rc = rec_file_line_at(f, a->at, &line, &len, err, sizeof err);

	if (rc) {
		fprintf(stderr, "gputaskman replay: %s: %s\n", a->path, err);
		return rc;
	}
	text = json_indent(line, len, &n);
	free(line);
	if (!text)
		return 1;
	rc = fwrite(text, 1, n, stdout) == n && fflush(stdout) == 0 ? 0 : 1;
	free(text);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_args a;
	struct rec_file f;
	char err[512];
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	if (a.help) {
		replay_usage(stdout);
		return 0;
	}
	rc = rec_file_open(a.path, &f, err, sizeof err);
	if (rc) {
		fprintf(stderr, "gputaskman replay: %s: %s\n", a.path, err);
		return rc;
	}
	if (f.idx.torn)
		fprintf(stderr, "gputaskman replay: %s: %s\n", a.path, f.idx.note);
	rc = print_moment(&a, &f);
	rec_file_close(&f);
	return rc;
}
