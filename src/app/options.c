#include "app/options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform_text.h"

static const char usage_text[] =
	"Usage: gputaskman [OPTIONS]\n"
	"       gputaskman inspect MODEL.gguf [LLAMA-SERVER FLAGS...] [--json]\n"
	"       gputaskman inspect [--json] -- llama-server -m MODEL.gguf [FLAGS...]\n"
	"       gputaskman inspect PID [--json] [--no-probe]\n"
	"       gputaskman diff BEFORE.json AFTER.json [--json] [--all] [--force]\n"
	"       gputaskman record [-i SECONDS] [-o PATH] [--max-size SIZE]\n"
	"       gputaskman replay PATH [--at TIME] [--json]\n"
	"%s"
	"\n"
	"What is inside your GPU: which process, runtime and model holds its memory.\n"
	"Without options it starts the live view on a terminal, and prints one text\n"
	"snapshot (as --once) when standard output is not a terminal.\n"
	"\n"
	"Options:\n"
	"  --once           print one text snapshot and exit\n"
	"  --json           print one JSON snapshot and exit (implies --once);\n"
	"                   schema in docs/json-schema.md\n"
	"  -a, --all        list every process, each one's details read; by default only GPU\n"
	"                   users and the servers GPU runners serve through (Ollama) are listed\n"
	"  -i SECONDS       refresh interval of the live view (default 1, 0.1 to 3600)\n"
	"  --gpu N          show only GPU N (see --list-gpus)\n"
	"  --list-gpus      list GPUs: index, vendor, name, bus id, memory (with --json: the gpus array)\n"
	"  --no-probe       never query local AI servers' HTTP APIs (loopback only anyway)\n"
	"  --no-host        under WSL2, start no Windows helper: device-wide numbers and the\n"
	"                   /dev/dxg holders with VRAM N/A (docs/wsl.md)\n"
	"  --record PATH    the live view also records what it shows (see gputaskman record)\n"
	"  --trace-opens    Linux, root: also name model files a process opens, reads and\n"
	"                   closes (fanotify on the mounts of the model folders and of AI\n"
	"                   processes' working folders; only opens after the start are seen)\n"
	"  --trace-wait S   with --once/--json and --trace-opens: trace S seconds before the\n"
	"                   snapshot (default 2, 0 to 3600; Ctrl-C or SIGTERM ends it early)\n"
	"  -V, --version    print the version, the git commit, the optional parts built in and\n"
	"                   the run-time libraries found (NVML, libcurl, libmicrohttpd), and exit\n"
	"  -h, --help       this help\n"
	"\n"
	"Live view keys: Up/Down select (the inspector follows), PgUp/PgDn scroll it,\n"
	"s sort, c charts, m Charts menu, a all processes, p pause, ? what can be known,\n"
	"Escape close, q quit. The mouse selects rows and the Charts menu.\n"
	"\n"
	"Readings are marked by where they come from: measured (driver or OS), reported\n"
	"(a runtime's log or API), *matched / ?guessed owner, estimated (model header and\n"
	"flags). %s"
	"\n"
	"Environment:\n"
	"%s"
	"\n"
	"Examples:\n"
	"  gputaskman                       live view\n"
	"  gputaskman --once --gpu 0        one snapshot of GPU 0\n"
	"  gputaskman --json > before.json  machine-readable snapshot\n"
	"  gputaskman inspect ~/models/qwen3-8b-q4_k_m.gguf -c 32768\n"
	"  gputaskman inspect -- llama-server -m q.gguf -c 8192 -np 4 --metrics\n"
	"                                   a whole llama-server command line (inspect --help)\n"
	"  gputaskman inspect q.gguf -ngl 99 -ts 3,1 --gpus 24GiB,8GiB\n"
	"                                   llama.cpp's split over two GPUs: layers and fit per device\n"
	"  gputaskman inspect 4242          everything known about process 4242\n"
	"  gputaskman diff before.json after.json\n"
	"  gputaskman record -o gpu.rec     a snapshot a second, kept under 256 MiB\n"
	"  gputaskman replay gpu.rec --json --at 03:12   what filled the card at 03:12\n"
	"  gputaskman replay gpu.rec --at 03:10   the live view over it: Space plays, Left/Right step,\n"
	"                                   n jumps to the next big VRAM change (replay --help)\n"
	"%s"
	"\n"
	"Exit status: 0 success, 1 a GPU source failed (the snapshot still printed),\n"
	"2 bad command line or input. The live view restores the terminal on q, Ctrl-C (130),\n"
	"SIGTERM/SIGHUP (then dies of the signal) and on a crash.\n";

/* The text with this OS's words (platform/platform_text.h) in its %s slots. */
void options_usage(FILE *out)
{
	fprintf(out, usage_text, platform_help_usage, platform_help_labels, platform_help_env, platform_help_examples);
}

static int parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1000000)
		return -1;
	*out = (int)v;
	return 0;
}

/* The value of an option given as "--opt V" or "--opt=V". */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static int is_opt(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

int options_parse(int argc, char **argv, struct app_options *o, FILE *err)
{
	memset(o, 0, sizeof *o);
	o->interval_s = 1.0;
	o->gpu = -1;
	o->trace_wait_s = 2.0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (!strcmp(a, "--once"))
			o->once = true;
		else if (!strcmp(a, "--json"))
			o->json = o->once = true;
		else if (!strcmp(a, "-a") || !strcmp(a, "--all"))
			o->all = true;
		else if (!strcmp(a, "--list-gpus"))
			o->list_gpus = true;
		else if (!strcmp(a, "--no-probe"))
			o->no_probe = true;
		else if (!strcmp(a, "--no-host"))
			o->no_host = true;
		else if (!strcmp(a, "--trace-opens"))
			o->trace_opens = true;
		else if (!strcmp(a, "--version") || !strcmp(a, "-V"))
			o->version = true;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			o->help = true;
		else if (!strcmp(a, "-i") || is_opt(a, "--interval")) {
			v = option_value(argc, argv, &i, strcmp(a, "-i") ? "--interval" : "-i");
			if (!v) {
				fprintf(err, "gputaskman: -i needs a number of seconds from 0.1 to 3600\n");
				return 2;
			}
			if (parse_double(v, &o->interval_s) || o->interval_s < 0.1 || o->interval_s > 3600) {
				fprintf(err, "gputaskman: -i needs a number of seconds from 0.1 to 3600, got '%s'\n", v);
				return 2;
			}
		} else if (is_opt(a, "--trace-wait")) {
			v = option_value(argc, argv, &i, "--trace-wait");
			if (!v || parse_double(v, &o->trace_wait_s) || o->trace_wait_s < 0 || o->trace_wait_s > 3600) {
				fprintf(err, "gputaskman: --trace-wait needs a number of seconds from 0 to 3600\n");
				return 2;
			}
		} else if (is_opt(a, "--record")) {
			o->record_path = option_value(argc, argv, &i, "--record");
			if (!o->record_path || !o->record_path[0]) {
				fprintf(err, "gputaskman: --record needs a file name (see gputaskman record --help)\n");
				return 2;
			}
		} else if (is_opt(a, "--gpu")) {
			v = option_value(argc, argv, &i, "--gpu");
			if (!v) {
				fprintf(err, "gputaskman: --gpu needs a GPU index (see --list-gpus)\n");
				return 2;
			}
			if (parse_int(v, &o->gpu)) {
				fprintf(err, "gputaskman: --gpu needs a GPU index (see --list-gpus), got '%s'\n", v);
				return 2;
			}
		} else {
			fprintf(err, "gputaskman: unknown option '%s' (see --help)\n", a);
			return 2;
		}
	}
	return 0;
}
