#include "app/cmd_record.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/record_progress.h"
#include "app/recorder.h"
#include "collect/collector.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "platform/platform_time.h"
#include "portable.h"

#define RECORD_DEFAULT_PATH "gputaskman.rec"

struct record_args {
	double interval_s, frame_s;
	const char *path;
	uint64_t max_bytes;
	long long count;         /* 0: until stopped */
	bool no_probe, help;
	int gpu;
};

static void record_usage(FILE *out)
{
	fprintf(out,
		"Usage: gputaskman record [-i SECONDS] [-o PATH] [--max-size SIZE] [--count N] [--no-probe]\n"
		"Records a `--json` snapshot per interval, headless, until stopped (Ctrl-C, SIGTERM), so an\n"
		"out-of-memory can be examined afterwards with `gputaskman replay PATH` and `diff PATH@TIME`.\n"
		"  -i SECONDS          interval (default 1, 0.01 to 3600)\n"
		"  -o PATH             the recording (default ./" RECORD_DEFAULT_PATH "); an existing one is appended to\n"
		"  --max-size SIZE     keep the file under SIZE, dropping the oldest minutes (default 256M; K, M, G)\n"
		"  --count N           stop after N snapshots\n"
		"  --frame-seconds S   seconds per compressed frame (default 60; fewer: smaller loss on power\n"
		"                      failure, larger file)\n"
		"  --gpu N             record only GPU N (see gputaskman --list-gpus)\n"
		"  --no-probe          never query local AI servers' HTTP APIs\n"
		"  -h, --help          this help\n"
		"Format: docs/recording.md (`zstdcat PATH` prints the snapshots as JSON Lines).\n");
}

static int bad(const char *what, const char *v)
{
	fprintf(stderr, "gputaskman record: %s%s%s%s\n", what, v ? ", got '" : "", v ? v : "", v ? "'" : "");
	return 2;
}

static bool number_in(const char *v, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double d = v ? strtod(v, &end) : NAN;
	if (!v || errno || end == v || *end || !isfinite(d) || d < lo || d > hi)
		return false;
	*out = d;
	return true;
}

static int parse_args(int argc, char **argv, struct record_args *a)
{
	memset(a, 0, sizeof *a);
	a->interval_s = 1.0;
	a->path = RECORD_DEFAULT_PATH;
	a->gpu = -1;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double d;
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			a->help = true;
		} else if (!strcmp(o, "--no-probe")) {
			a->no_probe = true;
		} else if (!strcmp(o, "-i")) {
			if (!number_in(v, 0.01, 3600, &a->interval_s))
				return bad("-i needs a number of seconds from 0.01 to 3600", v);
			i++;
		} else if (!strcmp(o, "--frame-seconds")) {
			if (!number_in(v, 0.01, 3600, &a->frame_s))
				return bad("--frame-seconds needs a number of seconds from 0.01 to 3600", v);
			i++;
		} else if (!strcmp(o, "-o")) {
			if (!v || !v[0])
				return bad("-o needs a file name", NULL);
			a->path = v;
			i++;
		} else if (!strcmp(o, "--max-size")) {
			if (!v || recorder_parse_size(v, &a->max_bytes) || a->max_bytes < (64u << 10))
				return bad("--max-size needs a size of at least 64K (bytes, or with K, M, G)", v);
			i++;
		} else if (!strcmp(o, "--count")) {
			if (!number_in(v, 1, 1e12, &d) || d != floor(d))
				return bad("--count needs a whole number of snapshots", v);
			a->count = (long long)d;
			i++;
		} else if (!strcmp(o, "--gpu")) {
			if (!number_in(v, 0, 1000000, &d) || d != floor(d))
				return bad("--gpu needs a GPU index (see --list-gpus)", v);
			a->gpu = (int)d;
			i++;
		} else {
			fprintf(stderr, "gputaskman record: unknown option '%s' (see gputaskman record --help)\n", o);
			return 2;
		}
	}
	return 0;
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static int record_loop(const struct record_args *a, struct rec_writer *w, struct record_progress *progress)
{
	struct collector_opts co = {.gpu_filter = a->gpu, .no_probe = a->no_probe};
	struct collector *c = collector_new(&co);
	struct recorder *rec = recorder_new(w);
	uint64_t interval_ns = (uint64_t)(a->interval_s * 1e9), next = now_monotonic_ns();
	char err[512];
	int rc = 0;

	for (long long n = 0; !stop_signal && (!a->count || n < a->count); n++) {
		struct gtm_snapshot *s = collector_refresh(c);
		int r = recorder_take(rec, s, err, sizeof err);
		snapshot_free(s);
		if (r) {
			fprintf(stderr, "gputaskman record: %s\n", err);
			rc = 1;
			break;
		}
		record_progress_step(progress, now_monotonic_ns(), false, rec_writer_samples(w), rec_writer_bytes(w), a->path);
		next += interval_ns;
		uint64_t now = now_monotonic_ns();
		if (next < now)
			next = now; /* a slow refresh: the next one follows at once, none is made up */
		if (!a->count || n + 1 < a->count)
			os_sleep_until(next, &stop_signal); /* started + interval, or a stop signal */
	}
	recorder_free(rec);
	collector_free(c);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a;
	struct rec_writer_opts wo = {0};
	struct rec_writer *w;
	char err[512], note[512];
	int rc = parse_args(argc, argv, &a), status;

	if (rc)
		return rc;
	if (a.help) {
		record_usage(stdout);
		return 0;
	}
	if (sysroot_problem()) {
		fprintf(stderr, "gputaskman: %s\n", sysroot_problem());
		return 2;
	}
	wo.max_bytes = a.max_bytes;
	wo.frame_seconds = a.frame_s;
	struct stat before;
	uint64_t existing = stat(a.path, &before) == 0 ? (uint64_t)before.st_size : 0;
	w = rec_writer_open(a.path, &wo, &status, err, sizeof err, note, sizeof note);
	if (!w) {
		fprintf(stderr, "gputaskman record: %s\n", err);
		return status;
	}
	if (note[0])
		fprintf(stderr, "gputaskman record: %s\n", note);
	char cwd[512], start[1200];
	struct record_progress progress;
	record_start_line(start, sizeof start, a.path, getcwd(cwd, sizeof cwd), existing, a.interval_s, a.count,
			  a.max_bytes ? a.max_bytes : REC_DEFAULT_MAX_BYTES);
	fprintf(stderr, "gputaskman record: %s\n", start);
	record_progress_init(&progress, stderr, isatty(fileno(stderr)));
	stop_signal = 0;
	os_catch_stop_signals(on_stop);
	rc = record_loop(&a, w, &progress);
	record_progress_end(&progress);
	uint64_t bytes = rec_writer_bytes(w), samples = rec_writer_samples(w);
	if (rec_writer_close(w, err, sizeof err) != 0) {
		fprintf(stderr, "gputaskman record: %s\n", err);
		rc = 1;
	}
	fprintf(stderr, "gputaskman record: %llu snapshots, %llu bytes (%.0f per snapshot) to %s\n",
		(unsigned long long)samples, (unsigned long long)bytes, samples ? (double)bytes / (double)samples : 0.0,
		a.path);
	return rc;
}
