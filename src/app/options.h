/* The command line of the snapshot commands (live view, --once, --json, --list-gpus). */
#ifndef GTM_OPTIONS_H
#define GTM_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

struct app_options {
	bool once, json, list_gpus, all, no_probe, help, version;
	bool no_host;       /* --no-host: under WSL, no Windows helper */
	double interval_s;  /* -i; the live view's refresh interval */
	int gpu;            /* --gpu N, or -1 */
	const char *record_path; /* --record PATH: the live view also records */
	bool trace_opens;   /* --trace-opens: model files opened (Linux, root) */
	double trace_wait_s; /* --trace-wait: with --once/--json, how long to trace before the snapshot */
};

/* Parses argv. Returns 0, or 2 after printing one line naming the problem. */
int options_parse(int argc, char **argv, struct app_options *o, FILE *err);
void options_usage(FILE *out);

#endif
