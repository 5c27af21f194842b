/* inspect: argument handling, model loading and the GPU fit check. */
#include "app/cmd_inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "portable.h"

#include "core/util.h"
#include "views/json_util.h"

#include "app/cmd_inspect_st.h"
#include "app/inspect_pid.h"

static cmd_inspect_gpu_query_fn gpu_query;

void cmd_inspect_set_gpu_query(cmd_inspect_gpu_query_fn fn)
{
	gpu_query = fn;
}

static void check_fit(struct inspect_model *m)
{
	int rc = gpu_query ? gpu_query(&m->gpu_free, &m->gpu_total, m->gpu_name, sizeof m->gpu_name) : -1;
	if (rc == 1) {
		snprintf(m->fit_buf, sizeof m->fit_buf, "%s: free memory N/A, fit not checked", m->gpu_name);
		m->fit_note = m->fit_buf;
	}
	if (rc != 0)
		return;
	m->have_gpu = true;
	if (!m->plan_ok)
		return;
	m->fits = m->est.gpu_total <= m->gpu_free && !m->est.refused;
	m->max_ctx = estimate_max_ctx(m->h, m->flags, m->gpu_free);
}

bool inspect_model_load(struct inspect_model *m, const char *path, bool observed, const char *store_name,
			const struct llama_flags *f, char *err, size_t n)
{
	memset(m, 0, sizeof *m);
	m->path = path;
	m->flags = f;
	m->h = observed ? gguf_cache_get_observed(path, err, n) : gguf_cache_get(path, err, n);
	if (!m->h)
		return false;
	gguf_model_info_get(m->h, path, store_name, &m->info);
	m->plan_ok = estimate_plan(m->h, f, &m->est, m->plan_err, sizeof m->plan_err);
	check_fit(m);
	return true;
}

void inspect_model_release(struct inspect_model *m)
{
	gguf_header_unref(m->h);
	m->h = NULL;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static const char usage_text[] =
	"usage: gputaskman inspect MODEL.gguf [LLAMA-SERVER FLAGS...] [--json]\n"
	"       gputaskman inspect [--json] -- [llama-server] -m MODEL.gguf [LLAMA-SERVER FLAGS...]\n"
	"       gputaskman inspect PID [--json] [--no-probe] [--trace-opens [--trace-wait S]]\n"
	"  MODEL.gguf   the model's identity and its memory plan under llama-server's flags\n"
	"               (llama-server's defaults where a flag is absent); -m MODEL.gguf works too\n"
	"  --           the rest is a whole llama-server command line, as you would run it: a\n"
	"               leading program name (llama-server, a path to it) is skipped\n"
	"  flags        the ones that change memory are planned: -c, -ngl, -np, -kvu/--no-kv-unified,\n"
	"               -ctk/-ctv (any case), -fa [on|off|auto], -b, -ub, --swa-full, -ot, --cpu-moe,\n"
	"               -ncmoe, --no-mmap, -nkvo; both '--flag value' and '--flag=value'. Every other\n"
	"               flag (--metrics, --host, --port, --alias, -t, --jinja, ...) is accepted,\n"
	"               ignored and listed as ignored. A flag this program does not know takes the\n"
	"               next word as its value unless that word is a flag or (before --) a .gguf file\n"
	"  PID          everything known about one process, with the plan from its own flags\n"
	"  DIR|MODEL.safetensors|ORG/NAME  a safetensors model and its KV cache by vLLM's rules\n"
	"               (inspect DIR --help lists the vLLM flags read)\n"
	"  split flags  -ts 3,1, -sm none|layer|row|tensor, -mg N: llama.cpp's split over several\n"
	"               GPUs; with them, or with several GPUs visible, a plan per device\n"
	"  --gpus SIZE,SIZE,...  plan on devices of these free sizes instead of the live GPUs\n"
	"               (24GiB,8GiB; units B, KiB, MiB, GiB, TiB, K/M/G/T binary, KB/MB/GB/TB decimal)\n"
	"  --json       one JSON object instead of text\n"
	"  --no-probe   never query the process's local HTTP API (inspect PID)\n"
	"  --trace-opens  inspect PID, Linux, root: also name the model files it opens (and\n"
	"               closes) in the next --trace-wait seconds (default 2)\n"
	"  -h, --help   this help\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "gputaskman inspect: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (usage: gputaskman inspect MODEL.gguf|PID [llama-server flags] [--json] [--no-probe], "
			"or inspect [--json] -- llama-server -m MODEL.gguf [flags]; --help)\n");
	return 2;
}

/* split_args' answer to -h/--help: print the usage, exit 0 */
#define INSPECT_HELP (-1)
#define INSPECT_NO_GPUS (-2)

struct inspect_args {
	bool json;
	const char *gpus;   /* --gpus SIZE,SIZE,...: plan on these instead of the live devices */
	bool command_line;  /* "--" was given: the rest is a llama-server command line */
	char **words;       /* what goes to the llama-server flag parser */
	int n_words;
};

static bool is_gguf_name(const char *s)
{
	size_t n = strlen(s);
	return n >= 5 && strcasecmp(s + n - 5, ".gguf") == 0;
}

/* Takes inspect's own options (anywhere: llama-server has none of these
 * names) and hands every other word to the llama-server flag parser. */
static int split_args(int argc, char **argv, struct inspect_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (!a->command_line && strcmp(w, "--") == 0) {
			a->command_line = true;
			/* a leading program name: "llama-server", a path to it (not the model) */
			if (i + 1 < argc && argv[i + 1][0] != '-' && !is_gguf_name(argv[i + 1]))
				i++;
		} else if (strcmp(w, "-h") == 0 || strcmp(w, "--help") == 0) {
			return INSPECT_HELP;
		} else if (strcmp(w, "--json") == 0) {
			a->json = true;
		} else if (strncmp(w, "--gpus=", 7) == 0) {
			a->gpus = w + 7;
		} else if (strcmp(w, "--gpus") == 0) {
			if (i + 1 >= argc)
				return INSPECT_NO_GPUS;
			a->gpus = argv[++i];
		} else if (!a->command_line && strcmp(w, "--trace-wait") == 0 && i + 1 < argc) {
			i++; /* inspect PID's, with its value: not a llama-server flag */
		} else if (strcmp(w, "--no-probe") != 0 && (a->command_line || strcmp(w, "--trace-opens") != 0)) {
			a->words[a->n_words++] = argv[i];
		}
	}
	return 0;
}

/* The model file or PID: the one word that is not a flag, or -m's value. */
static int pick_operand(const struct llama_flags *f, const char **operand)
{
	*operand = f->n_positional ? f->positional[0] : NULL;
	if (f->n_positional > 1)
		return usage_error("more than one model or PID given (%s)", f->positional[1]);
	if (*operand && f->model && strcmp(*operand, f->model) != 0)
		return usage_error("a model is given twice (as MODEL and as -m %s)", f->model);
	if (!*operand)
		*operand = f->model;
	if (!*operand)
		return usage_error("%s", "no model file or PID given");
	return 0;
}

static int inspect_pid(const char *operand, int argc, char **argv)
{
	unsigned long long pid = strtoull(operand, NULL, 10);
	if (pid == 0 || pid > UINT32_MAX)
		return usage_error("%s is not a valid PID", operand);
	return inspect_pid_main((uint32_t)pid, argc, argv);
}

/* --gpus: the live devices are not asked */
static int no_live_gpu(uint64_t *free_bytes, uint64_t *total_bytes, char *name, size_t n)
{
	(void)free_bytes, (void)total_bytes, (void)name, (void)n;
	return -1;
}

static int print_model(const char *path, const struct llama_flags *f, bool json, const char *gpus)
{
	struct inspect_model m;
	char err[256];
	if (gpus)
		gpu_query = no_live_gpu;
	if (!inspect_model_load(&m, path, false, NULL, f, err, sizeof err)) {
		fprintf(stderr, "gputaskman inspect: %s: %s\n", path, err);
		return 2;
	}
	if (gpus)
		m.fit_note = "devices given by --gpus: see Devices";
	if (!inspect_model_plan_devices(&m, gpus)) {
		inspect_model_release(&m);
		return 2;
	}
	if (json) {
		json_t *j = inspect_model_json(&m);
		os_stdout_binary();
		json_dumpf_safe(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(j);
	} else {
		inspect_model_print(stdout, &m);
	}
	inspect_model_release(&m);
	return 0;
}

int cmd_inspect(int argc, char **argv)
{
	if (cmd_inspect_st_wants(argc, argv))
		return cmd_inspect_st(argc, argv, gpu_query ? gpu_query : cmd_inspect_collector_gpu);
	struct inspect_args a = {.words = xcalloc((size_t)argc + 1, sizeof(char *))};
	const char *operand = NULL;
	struct llama_flags f;
	int rc = split_args(argc, argv, &a);

	if (rc == INSPECT_HELP) {
		free(a.words);
		fputs(usage_text, stdout);
		return 0;
	}
	if (rc == INSPECT_NO_GPUS) {
		free(a.words);
		return usage_error("%s", "--gpus needs a value: sizes like 24GiB,8GiB");
	}
	llama_flags_init(&f);
	/* before "--" the model may come first and a bare word is the operand;
	 * after it, as in llama-server, every bare word is a flag's value */
	bool flags_ok = llama_flags_parse_opts(&f, a.n_words, a.words, 0, a.command_line ? 0 : LF_PARSE_GGUF_OPERAND);
	rc = pick_operand(&f, &operand);
	if (rc == 0 && all_digits(operand)) {
		rc = inspect_pid(operand, argc, argv);
		llama_flags_free(&f);
		free(a.words);
		return rc;
	}
	if (rc == 0 && !flags_ok) {
		fprintf(stderr, "gputaskman inspect: %s\n", f.error);
		rc = 2;
	} else if (rc == 0 && f.n_ctx > ESTIMATE_MAX_CTX) {
		/* llama.cpp itself refuses it: its -c is an int (common.h) */
		fprintf(stderr, "gputaskman inspect: -c %llu is above llama.cpp's limit of %llu\n",
			(unsigned long long)f.n_ctx, ESTIMATE_MAX_CTX);
		rc = 2;
	}
	if (!gpu_query)
		gpu_query = cmd_inspect_collector_gpu;
	if (rc == 0)
		rc = print_model(operand, &f, a.json, a.gpus);
	llama_flags_free(&f);
	free(a.words);
	return rc;
}
