/* argv → command: live view, --once, --json, --list-gpus, inspect, diff, record, replay. */
#include "app/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "portable.h"

#include "app/options.h"
#include "app/version.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "collect/collector.h"
#include "app/trace_wait.h"
#include "views/json.h"
#include "views/text.h"

#include "app/cmd_inspect.h"
#include "app/cmd_diff.h"
#include "app/cmd_host_stream.h"
#include "app/cmd_live.h"
#include "app/cmd_record.h"
#include "app/cmd_replay.h"
#include "app/cmd_serve.h"

/* A source that is present but failed (not one that is simply absent). */
static bool source_failed(const struct gtm_snapshot *s)
{
	for (int i = 0; i < s->n_sources; i++)
		if (s->sources[i].failed)
			return true;
	return false;
}

static int check_gpu_index(const struct gtm_snapshot *s, int gpu)
{
	for (int i = 0; i < s->n_devices; i++)
		if (s->devices[i].index == gpu)
			return 0;
	if (s->n_devices == 0)
		fprintf(stderr, "gputaskman: --gpu %d: no GPU is visible (see --list-gpus)\n", gpu);
	else
		fprintf(stderr, "gputaskman: --gpu %d: no such GPU (valid: 0-%d)\n", gpu, s->n_devices - 1);
	return 2;
}

static int run_once(const struct app_options *o)
{
	struct collector_opts co = {.one_shot = true, .gpu_filter = -1, .no_probe = o->no_probe, .all = o->all,
				    .no_host = o->no_host, .trace_opens = o->trace_opens && !o->list_gpus};
	struct collector *c;
	struct gtm_snapshot *s;
	int rc = 0;

	/* --gpu is checked against the full device list, so an index out of
	 * range never silently shows another device. */
	if (o->gpu >= 0) {
		struct collector_opts devices = co;
		devices.no_probe = true;
		devices.devices_only = true; /* the device list is all it takes: no /proc scan twice */
		c = collector_new(&devices);
		s = collector_refresh(c);
		rc = check_gpu_index(s, o->gpu);
		snapshot_free(s);
		collector_free(c);
		if (rc)
			return rc;
		co.gpu_filter = o->gpu;
	}
	c = collector_new(&co);
	s = trace_wait_refresh(c, co.trace_opens, o->trace_wait_s, "gputaskman");
	if (o->json)
		os_stdout_binary();
	if (o->list_gpus && o->json)
		json_print_gpu_list(stdout, s);
	else if (o->list_gpus)
		text_print_gpu_list(stdout, s);
	else if (o->json)
		json_print_snapshot(stdout, s, o->all);
	else
		text_print_snapshot(stdout, s, o->all);
	if (source_failed(s)) {
		for (int i = 0; i < s->n_sources; i++)
			if (s->sources[i].failed)
				fprintf(stderr, "gputaskman: %s: %s\n", s->sources[i].name, s->sources[i].message);
		rc = 1;
	}
	snapshot_free(s);
	collector_free(c);
	if (fflush(stdout) != 0)
		return 1;
	return rc;
}

int app_main(int argc, char **argv)
{
	struct app_options o;
	int rc;

	if (argc > 2 && !strcmp(argv[1], "--no-probe") && !strcmp(argv[2], "inspect")) {
		/* "gputaskman --no-probe inspect PID": the global option goes along */
		char **sub = xcalloc((size_t)argc, sizeof *sub);
		for (int i = 2; i < argc; i++)
			sub[i - 2] = argv[i];
		sub[argc - 2] = argv[1];
		rc = cmd_inspect(argc - 1, sub);
		free(sub);
		return rc;
	}
	if (argc > 1 && !strcmp(argv[1], "inspect")) {
		return cmd_inspect(argc - 1, argv + 1);
	}
	if (argc > 1 && !strcmp(argv[1], "diff")) {
		return cmd_diff(argc - 1, argv + 1);
	}
	if (argc > 1 && !strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return cmd_serve(argc - 1, argv + 1);
	if (cmd_host_stream_asked(argc, argv))
		return cmd_host_stream(argc, argv);
	rc = options_parse(argc, argv, &o, stderr);
	if (rc)
		return rc;
	if (!o.help && !o.version && sysroot_problem()) {
		fprintf(stderr, "gputaskman: %s\n", sysroot_problem());
		return 2;
	}
	if (o.help) {
		options_usage(stdout);
		return 0;
	}
	if (o.version) {
		version_print(stdout);
		return 0;
	}
	if (!o.once && !o.list_gpus && isatty(STDOUT_FILENO)) {
		struct collector_opts co = {.gpu_filter = o.gpu, .no_probe = o.no_probe, .no_host = o.no_host,
					    .interval_s = o.interval_s, .trace_opens = o.trace_opens};
		return cmd_live(&co, o.interval_s, o.record_path);
	}
	if (o.record_path) {
		fprintf(stderr, "gputaskman: --record goes with the live view (a terminal); headless: gputaskman record -o %s\n",
			o.record_path);
		return 2;
	}
	return run_once(&o);
}
