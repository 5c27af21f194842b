#include "app/cmd_serve.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/recorder.h"
#include "core/sysroot.h"
#include "record/rec_writer.h"
#include "views/prom/prom_render.h"

static const char usage_text[] =
	"Usage: gputaskman serve [--listen ADDR:PORT] [-i SECONDS] [--max-processes N] [--no-probe]\n"
	"                        [--record PATH] [--trace-opens]\n"
	"\n"
	"Serves GET /metrics in the Prometheus text format 0.0.4: devices, per-process GPU\n"
	"memory, and per-model memory by segment (weights, KV cache, compute) with the\n"
	"source of every figure. Metrics and example PromQL: docs/exporter.md.\n"
	"\n"
	"Options:\n"
	"  --listen ADDR:PORT  where to listen (default " SERVE_DEFAULT_LISTEN ", loopback only);\n"
	"                      [::1]:PORT for IPv6, 0.0.0.0:PORT for every interface (process,\n"
	"                      model and runtime names become visible to whoever reaches it:\n"
	"                      firewall the port to your Prometheus)\n"
	"  -i SECONDS          collection interval (default 5, 0.1 to 3600); a scrape serves the\n"
	"                      latest finished collection and never waits for one\n"
	"  --max-processes N   processes with their own series on each GPU (default 32), the\n"
	"                      largest there, a kept one until clearly below the cut; the\n"
	"                      rest are summed into one pid=\"other\" series per GPU and counted\n"
	"  --no-probe          never query local AI servers' HTTP APIs\n"
	"  --record PATH       also record every collection into PATH (docs/recording.md)\n"
	"  --trace-opens       Linux, root: also name model files processes open, read and close\n"
	"                      (evidence=\"opened\" on the model series; off unless asked)\n"
	"  -h, --help          this help\n"
	"\n"
	"SIGINT or SIGTERM stop it (exit status 0). Command lines, paths and users are never\n"
	"exported.\n";

static bool number(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* "--opt V" or "--opt=V"; NULL when the value is missing. */
static const char *value_of(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool named(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(arg, name, n) && (arg[n] == 0 || arg[n] == '=');
}

int cmd_serve_parse(int argc, char **argv, struct serve_opts *o, FILE *out, FILE *err)
{
	const char *listen = SERVE_DEFAULT_LISTEN, *v;
	char why[200];
	double x;

	memset(o, 0, sizeof *o);
	o->interval_s = 5;
	o->max_processes = PROM_MAX_PROCESSES_DEFAULT;
	o->collect.gpu_filter = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, out);
			return 1;
		} else if (!strcmp(a, "--no-probe")) {
			o->collect.no_probe = true;
		} else if (!strcmp(a, "--trace-opens")) {
			o->collect.trace_opens = true;
		} else if (named(a, "--record")) {
			if (!(o->record_path = value_of(argc, argv, &i, "--record")) || !o->record_path[0]) {
				fprintf(err, "gputaskman serve: --record needs a PATH\n");
				return 2;
			}
		} else if (named(a, "--listen")) {
			if (!(listen = value_of(argc, argv, &i, "--listen"))) {
				fprintf(err, "gputaskman serve: --listen needs ADDR:PORT\n");
				return 2;
			}
		} else if (!strcmp(a, "-i") || named(a, "--interval")) {
			v = value_of(argc, argv, &i, strcmp(a, "-i") ? "--interval" : "-i");
			if (!v || !number(v, 0.1, 3600, &o->interval_s)) {
				fprintf(err, "gputaskman serve: -i needs a number of seconds from 0.1 to 3600%s%s%s\n",
					v ? ", got '" : "", v ? v : "", v ? "'" : "");
				return 2;
			}
		} else if (named(a, "--max-processes")) {
			v = value_of(argc, argv, &i, "--max-processes");
			if (!v || !number(v, 0, 100000, &x) || x != floor(x)) {
				fprintf(err, "gputaskman serve: --max-processes needs a whole number from 0 to 100000\n");
				return 2;
			}
			o->max_processes = (int)x;
		} else {
			fprintf(err, "gputaskman serve: unknown option '%s' (see serve --help)\n", a);
			return 2;
		}
	}
	if (!serve_addr_parse(listen, &o->listen, why, sizeof why)) {
		fprintf(err, "gputaskman serve: --listen %s\n", why);
		return 2;
	}
	return 0;
}

/* --record: the recorder appends each collection; a failed write stops the
 * recording, not the exporter (one line on stderr says why). */
struct serve_recording {
	struct recorder *rec;
};

static void record_snapshot(void *ctx, const struct gtm_snapshot *s)
{
	struct serve_recording *r = ctx;
	char err[512];
	if (r->rec && recorder_take(r->rec, s, err, sizeof err) != 0) {
		fprintf(stderr, "gputaskman serve: recording stopped: %s\n", err);
		recorder_free(r->rec);
		r->rec = NULL;
	}
}

int cmd_serve(int argc, char **argv)
{
	struct serve_opts o;
	int rc = cmd_serve_parse(argc, argv, &o, stdout, stderr);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (sysroot_problem()) {
		fprintf(stderr, "gputaskman: %s\n", sysroot_problem());
		return 2;
	}
	struct rec_writer *w = NULL;
	if (o.record_path) {
		struct rec_writer_opts wo = {0};
		char err[512], note[512];
		int status;
		if (!(w = rec_writer_open(o.record_path, &wo, &status, err, sizeof err, note, sizeof note))) {
			fprintf(stderr, "gputaskman serve: --record %s\n", err);
			return status;
		}
		if (note[0])
			fprintf(stderr, "gputaskman serve: --record %s\n", note);
	}
	struct serve_recording r = {w ? recorder_new(w) : NULL};
	if (r.rec) {
		o.on_snapshot = record_snapshot;
		o.ctx = &r;
	}
	if (!serve_addr_is_loopback(&o.listen))
		fprintf(stderr, "gputaskman serve: warning: listening beyond loopback: process, model and runtime names "
				"become visible to whoever reaches the port (command lines, paths and users are never "
				"exported)\n");
	bool joined;
	rc = serve_run(&o, &joined);
	if (!joined)
		return rc; /* the collection thread may still record: leave it the recorder */
	recorder_free(r.rec);
	if (w) {
		char err[512];
		if (rec_writer_close(w, err, sizeof err) != 0) {
			fprintf(stderr, "gputaskman serve: --record %s\n", err);
			rc = rc ? rc : 1;
		}
	}
	return rc;
}
