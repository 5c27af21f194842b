#include "app/cmd_replay.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cmd_live.h"
#include "portable.h"
#include "record/rec_lookup.h"
#include "record/rec_seek.h"
#include "record/rec_time.h"
#include "snapread/snap_parse.h"
#include "views/json_indent.h"
#include "views/replay_keys.h"

struct replay_args {
	const char *path, *at;
	bool json, help;
};

static void replay_usage(FILE *out)
{
	fprintf(out,
		"Usage: gputaskman replay PATH [--at TIME] [--json]\n"
		"Reads a recording made by `gputaskman record` (or --record); nothing is collected from\n"
		"this machine.\n"
		"  --at TIME   the last snapshot taken at or before TIME: ISO 8601 (2026-12-01T03:12:00Z,\n"
		"              2026-12-01T05:12:00+02:00) or a local time of day HH:MM[:SS] (its latest\n"
		"              moment in the recording); without --at, the last snapshot (--json)\n"
		"  --json      print that snapshot, as `gputaskman --json` printed it\n"
		"  -h, --help  this help\n"
		"Without --json: the live view over the recording, its time cursor in the header,\n"
		"at TIME (without --at, the first snapshot), paused. Keys besides the live view's:\n");
	for (size_t i = 0; i < replay_n_keys; i++)
		fprintf(out, "  %s\n", replay_keys[i]);
	fprintf(out, "A big VRAM change: a GPU's used VRAM rising by %d %% of its total (at least %llu MiB) from one\n"
		     "snapshot to the next, or a process holding %llu MiB or more gone while its GPU was %d %% full.\n",
		REC_RISE_PCT, REC_RISE_MIN_BYTES >> 20, REC_VANISH_MIN_BYTES >> 20, REC_FULL_PCT);
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
		fprintf(stderr, "gputaskman replay: needs a recording: gputaskman replay PATH --json [--at TIME]\n");
		return 2;
	}
	return 0;
}

static int print_moment(const struct replay_args *a, struct rec_file *f)
{
	char err[512], *line, *text;
	size_t len, n;
	int rc = rec_file_line_at(f, a->at, &line, &len, err, sizeof err);

	if (f->note[0])
		fprintf(stderr, "gputaskman replay: %s: %s\n", a->path, f->note);
	if (rc) {
		fprintf(stderr, "gputaskman replay: %s: %s\n", a->path, err);
		return rc;
	}
	/* the line is checked as diff checks a file: a snapshot of a schema this build reads */
	json_t *doc = snap_json_parse(line, len, err, sizeof err);
	if (!doc) {
		free(line);
		fprintf(stderr, "gputaskman replay: %s: the %s is not readable: %s\n", a->path,
			a->at ? "snapshot at that time" : "last snapshot", err);
		return 2;
	}
	json_decref(doc);
	text = json_indent(line, len, &n);
	free(line);
	if (!text)
		return 1;
	os_stdout_binary(); /* the snapshot's bytes, LF as recorded, on every OS */
	rc = fwrite(text, 1, n, stdout) == n && fflush(stdout) == 0 ? 0 : 1;
	free(text);
	return rc;
}

/* The live view from --at (the snapshot at or before it), else the first snapshot. */
static int replay_live(const struct replay_args *a, struct rec_file *f)
{
	char err[512];
	int64_t t = f->first_s;

	if (a->at && rec_time_resolve(a->at, f->last_s, &t, err, sizeof err) != 0) {
		fprintf(stderr, "gputaskman replay: %s\n", err);
		return 2;
	}
	if (t < f->first_s) {
		char at[32], first[32];
		rec_time_format(at, sizeof at, t);
		rec_time_format(first, sizeof first, f->first_s);
		fprintf(stderr, "gputaskman replay: %s: %s is before the recording starts (its first snapshot was taken at %s)\n",
			a->path, at, first);
		return 2;
	}
	struct rec_cursor c;
	uint64_t start = 0;
	if (a->at) {
		rec_cursor_init(&c, f);
		start = rec_cursor_find(&c, t);
		rec_cursor_free(&c);
	}
	return cmd_live_replay(f, start);
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
	rc = a.json ? print_moment(&a, &f) : replay_live(&a, &f);
	rec_file_close(&f);
	return rc;
}
