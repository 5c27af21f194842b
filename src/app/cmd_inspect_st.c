/* inspect for safetensors models: arguments, finding the model (a folder,
 * a file, or org/name in the Hugging Face cache), vLLM's KV plan and the fit. */
#include "app/cmd_inspect_st.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "identify/hf_cache.h"
#include "portable.h"
#include "views/json_util.h"

static const char usage_text[] =
	"usage: gputaskman inspect DIR|MODEL.safetensors|ORG/NAME[@REF] [VLLM FLAGS...] [--json]\n"
	"  DIR           a model folder: config.json and its weights (the shards\n"
	"                model.safetensors.index.json names, else model*.safetensors)\n"
	"  ORG/NAME      a model in the Hugging Face cache (HF_HUB_CACHE, else $HF_HOME/hub,\n"
	"                else ~/.cache/huggingface/hub), at refs/main or @REF\n"
	"  vLLM flags    --max-model-len N, --kv-cache-dtype auto|bfloat16|float16|fp8|fp8_e4m3|\n"
	"                fp8_e5m2|fp8_ds_mla, --tensor-parallel-size N (-tp), --block-size N,\n"
	"                --max-num-batched-tokens N, --gpu-memory-utilization F; '--flag=value' too\n"
	"  --json        one JSON object instead of text\n";

/* vLLM flags that take a value, and where it goes. */
enum st_flag { F_LEN, F_DTYPE, F_TP, F_BLOCK, F_BATCHED, F_UTIL };
static const struct {
	const char *name;
	enum st_flag f;
} st_flags[] = {
	{"--max-model-len", F_LEN}, {"--kv-cache-dtype", F_DTYPE}, {"--tensor-parallel-size", F_TP}, {"-tp", F_TP},
	{"--block-size", F_BLOCK}, {"--max-num-batched-tokens", F_BATCHED}, {"--gpu-memory-utilization", F_UTIL},
};

static int flag_index(const char *w, const char **inline_v)
{
	*inline_v = NULL;
	for (size_t i = 0; i < ARRAY_LEN(st_flags); i++) {
		size_t n = strlen(st_flags[i].name);
		if (!strncmp(w, st_flags[i].name, n) && (w[n] == '\0' || w[n] == '=')) {
			*inline_v = w[n] == '=' ? w + n + 1 : NULL;
			return (int)i;
		}
	}
	return -1;
}

/* The first word that is neither a flag nor a flag's value. */
static const char *operand_of(int argc, char **argv)
{
	const char *v;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (flag_index(argv[i], &v) >= 0 && !v)
				i++;
			continue;
		}
		return argv[i];
	}
	return NULL;
}

/* The hub cache folders of this machine, in huggingface_hub's order. */
static int hub_roots(char roots[3][4096])
{
	const char *c = getenv("HF_HUB_CACHE"), *h = getenv("HF_HOME"), *home = getenv("HOME");
	int n = 0;
	if (c && c[0])
		snprintf(roots[n++], 4096, "%s", c);
	if (h && h[0])
		snprintf(roots[n++], 4096, "%s/hub", h);
	if (home && home[0])
		snprintf(roots[n++], 4096, "%s/.cache/huggingface/hub", home);
	return n;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* org/name[@ref] → its snapshot folder: the ref's commit (main by default),
 * or a commit given after @. */
static bool resolve_repo(const char *spec, char *dir, size_t n, char *label, size_t ln)
{
	char roots[3][4096], org[256], name[256], ref[128] = "main", path[4096], rev[128];
	const char *at = strchr(spec, '@'), *slash = strchr(spec, '/');
	size_t end = at ? (size_t)(at - spec) : strlen(spec);
	if (!slash || (size_t)(slash - spec) >= end || strchr(slash + 1, '/') || strstr(spec, "..") || spec[0] == '/' ||
	    (size_t)(slash - spec) >= sizeof org || end - (size_t)(slash - spec) >= sizeof name)
		return false;
	snprintf(org, sizeof org, "%.*s", (int)(slash - spec), spec);
	snprintf(name, sizeof name, "%.*s", (int)(end - (size_t)(slash - spec) - 1), slash + 1);
	if (at && (!at[1] || strchr(at + 1, '/') || strlen(at + 1) >= sizeof ref))
		return false;
	if (at)
		snprintf(ref, sizeof ref, "%s", at + 1);
	for (int i = 0, nr = hub_roots(roots); i < nr; i++) {
		FILE *f;
		snprintf(path, sizeof path, "%s/models--%s--%s/refs/%s", roots[i], org, name, ref);
		rev[0] = '\0';
		if ((f = fopen(path, "r"))) {
			if (!fgets(rev, sizeof rev, f))
				rev[0] = '\0';
			fclose(f);
		}
		rev[strcspn(rev, "\r\n/")] = '\0';
		if (!rev[0]) /* not a ref: a commit */
			snprintf(rev, sizeof rev, "%s", ref);
		if ((size_t)snprintf(dir, n, "%s/models--%s--%s/snapshots/%s", roots[i], org, name, rev) < n && is_dir(dir)) {
			snprintf(label, ln, "%s/%s@%s", org, name, ref);
			return true;
		}
	}
	return false;
}

bool cmd_inspect_st_wants(int argc, char **argv)
{
	const char *op = operand_of(argc, argv);
	char dir[4096], label[600];
	/* a PID, a llama-server command line after "--", a GGUF file: not ours */
	if (!op || op[strspn(op, "0123456789")] == '\0' || str_ends(op, ".gguf"))
		return false;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return false;
	return str_ends(op, ".safetensors") || is_dir(op) || resolve_repo(op, dir, sizeof dir, label, sizeof label);
}

static bool parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	if (!v || v[0] < '0' || v[0] > '9')
		return false;
	unsigned long long x = strtoull(v, &end, 10);
	if (*end || x == 0 || x > max)
		return false;
	*out = x;
	return true;
}

static int bad(const char *flag, const char *v)
{
	fprintf(stderr, "gputaskman inspect: %s: invalid value '%s' (--help)\n", flag, v ? v : "");
	return 2;
}

static int set_flag(struct inspect_st *s, enum st_flag f, const char *name, const char *v)
{
	uint64_t x;
	char *end;
	switch (f) {
	case F_DTYPE:
		s->opts.kv_cache_dtype = v;
		if (v && !vllm_kv_dtype_known(v)) {
			fprintf(stderr, "gputaskman inspect: --kv-cache-dtype %s is not one of vLLM's (auto, bfloat16, "
					"float16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla)\n", v);
			return 2;
		}
		return v ? 0 : bad(name, v);
	case F_UTIL:
		s->gpu_util = v ? strtod(v, &end) : 0;
		return v && !*end && s->gpu_util > 0 && s->gpu_util <= 1 ? 0 : bad(name, v);
	default:
		break;
	}
	if (!parse_u64(v, f == F_TP || f == F_BLOCK ? 4096 : (1ull << 40), &x))
		return bad(name, v);
	if (f == F_LEN)
		s->opts.max_model_len = x;
	else if (f == F_TP)
		s->opts.tp = (unsigned)x;
	else if (f == F_BLOCK)
		s->opts.block_size = (unsigned)x;
	else
		s->opts.max_num_batched_tokens = x;
	return 0;
}

static int parse_args(int argc, char **argv, struct inspect_st *s, bool *json)
{
	const char *v;
	s->gpu_util = VLLM_DEFAULT_GPU_UTIL;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		int k = flag_index(w, &v);
		if (!strcmp(w, "--json")) {
			*json = true;
		} else if (!strcmp(w, "-h") || !strcmp(w, "--help")) {
			fputs(usage_text, stdout);
			return -1;
		} else if (k >= 0) {
			if (!v && i + 1 < argc)
				v = argv[++i];
			int rc = set_flag(s, st_flags[k].f, st_flags[k].name, v);
			if (rc)
				return rc;
		} else if (w[0] == '-') {
			fprintf(stderr, "gputaskman inspect: %s is not a flag inspect reads for a safetensors model (--help)\n", w);
			return 2;
		} else if (s->path) {
			fprintf(stderr, "gputaskman inspect: more than one model given (%s)\n", w);
			return 2;
		} else {
			s->path = w;
		}
	}
	return 0;
}

static void plan(struct inspect_st *s)
{
	if (!s->m.have_config) {
		snprintf(s->plan_err, sizeof s->plan_err, "%s", s->m.config_error);
		return;
	}
	s->plan_ok = vllm_kv_estimate(&s->m.config, &s->opts, &s->kv, s->plan_err, sizeof s->plan_err);
	s->weights_gpu = s->m.weight_bytes / s->kv.tp;
	s->need_gpu = s->weights_gpu + s->kv.seq_bytes;
}

/* vLLM refuses to start when the GPU's free memory is below
 * --gpu-memory-utilization x total, and when one max-model-len sequence's
 * KV does not fit what is left of that budget after the weights. */
static void check_fit(struct inspect_st *s, cmd_inspect_gpu_query_fn q)
{
	int rc = q ? q(&s->gpu_free, &s->gpu_total, s->gpu_name, sizeof s->gpu_name) : -1;
	if (rc == 1)
		snprintf(s->fit_note, sizeof s->fit_note, "%s: free memory N/A, fit not checked", s->gpu_name);
	if (rc != 0)
		return;
	s->have_gpu = true;
	s->budget = s->gpu_total ? (uint64_t)((double)s->gpu_total * s->gpu_util) : s->gpu_free;
	s->fits = s->plan_ok && s->gpu_free >= s->budget && s->need_gpu <= s->budget;
}

static bool load(struct inspect_st *s, char *err, size_t n)
{
	char dir[4096];
	struct hf_cache_file f;
	const char *where = s->path;
	if (!str_ends(where, ".safetensors") && !is_dir(where) &&
	    resolve_repo(s->path, dir, sizeof dir, s->label, sizeof s->label))
		where = dir;
	else if (hf_cache_identify(where, &f))
		hf_cache_label(&f, s->label, sizeof s->label);
	else
		snprintf(s->label, sizeof s->label, "%s", where);
	return st_model_load(&s->m, where, false, err, n);
}

int cmd_inspect_st(int argc, char **argv, cmd_inspect_gpu_query_fn q)
{
	struct inspect_st *s = xcalloc(1, sizeof *s);
	bool json = false;
	char err[300];
	int rc = parse_args(argc, argv, s, &json);
	if (rc == 0 && !load(s, err, sizeof err)) {
		fprintf(stderr, "gputaskman inspect: %s: %s\n", s->path, err);
		rc = 2;
	}
	if (rc == 0) {
		plan(s);
		check_fit(s, q);
		if (json) {
			json_t *j = inspect_st_json(s);
			os_stdout_binary();
			json_dumpf_safe(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
			json_decref(j);
		} else {
			inspect_st_print(stdout, s);
		}
		st_model_free(&s->m);
	}
	free(s);
	return rc < 0 ? 0 : rc;
}
