/* llama.cpp command-line flags (common/arg.cpp option names). */
#include "llm/llama_flags.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "llm/ggml_types.h"

enum flag_id {
	F_CTX, F_NGL, F_CTK, F_CTV, F_FA, F_NP, F_KVU, F_NO_KVU, F_BATCH, F_UBATCH, F_SWA_FULL, F_OT,
	F_CPU_MOE, F_NCMOE, F_NO_MMAP, F_MMAP, F_MODEL, F_DRAFT, F_MMPROJ, F_LORA, F_HF, F_LOG_FILE,
	F_PORT, F_HOST, F_ALIAS, F_NKVO, F_KVO, F_TS, F_SM, F_MG, F_OTHER,
};

/* What the memory plan makes of a known option. */
enum flag_plan { P_USED, P_NONE, P_UNESTIMATED };

struct flag_def {
	const char *names[4];
	enum flag_id id;
	bool takes_value;
	enum flag_plan plan;
};

static const char why_none[] = "does not change memory";
static const char why_unestimated[] = "changes memory; not estimated";
static const char why_unknown[] = "not read by the plan";
static const char why_nokvu_auto[] = "no effect: with an automatic -np llama-server uses a unified cache";

/* Option spellings from common/arg.cpp. */
static const struct flag_def flag_defs[] = {
	{{"-c", "--ctx-size"}, F_CTX, true, P_USED},
	{{"-ngl", "--n-gpu-layers", "--gpu-layers"}, F_NGL, true, P_USED},
	{{"-ctk", "--cache-type-k"}, F_CTK, true, P_USED},
	{{"-ctv", "--cache-type-v"}, F_CTV, true, P_USED},
	{{"-fa", "--flash-attn"}, F_FA, true, P_USED},
	{{"-np", "--parallel"}, F_NP, true, P_USED},
	{{"-kvu", "--kv-unified"}, F_KVU, false, P_USED},
	{{"-no-kvu", "--no-kv-unified"}, F_NO_KVU, false, P_USED},
	{{"-b", "--batch-size"}, F_BATCH, true, P_USED},
	{{"-ub", "--ubatch-size"}, F_UBATCH, true, P_USED},
	{{"--swa-full"}, F_SWA_FULL, false, P_USED},
	{{"-ot", "--override-tensor"}, F_OT, true, P_USED},
	{{"-cmoe", "--cpu-moe"}, F_CPU_MOE, false, P_USED},
	{{"-ncmoe", "--n-cpu-moe"}, F_NCMOE, true, P_USED},
	{{"--no-mmap"}, F_NO_MMAP, false, P_USED},
	{{"--mmap"}, F_MMAP, false, P_USED},
	{{"-nkvo", "--no-kv-offload"}, F_NKVO, false, P_USED},
	{{"-kvo", "--kv-offload"}, F_KVO, false, P_USED},
	{{"-m", "--model"}, F_MODEL, true, P_USED},
	{{"-md", "--model-draft"}, F_DRAFT, true, P_UNESTIMATED},
	{{"--mmproj"}, F_MMPROJ, true, P_UNESTIMATED},
	{{"--lora"}, F_LORA, true, P_UNESTIMATED},
	{{"-hf", "-hfr", "--hf-repo"}, F_HF, true, P_UNESTIMATED},
	{{"--log-file"}, F_LOG_FILE, true, P_NONE},
	{{"--port"}, F_PORT, true, P_NONE},
	{{"--host"}, F_HOST, true, P_NONE},
	{{"-a", "--alias"}, F_ALIAS, true, P_NONE},
	/* placement across devices (the device plan) */
	{{"-ts", "--tensor-split"}, F_TS, true, P_USED},
	{{"-sm", "--split-mode"}, F_SM, true, P_USED},
	{{"-mg", "--main-gpu"}, F_MG, true, P_USED},
	/* a device list, --fit's choices and a draft model's own context: they
	 * change memory, the plan does not model them */
	{{"-dev", "--device"}, F_OTHER, true, P_UNESTIMATED},
	{{"-fit", "--fit"}, F_OTHER, true, P_UNESTIMATED},
	{{"-cd", "--ctx-size-draft"}, F_OTHER, true, P_UNESTIMATED},
	{{"-ngld", "--gpu-layers-draft", "--n-gpu-layers-draft"}, F_OTHER, true, P_UNESTIMATED},
	{{"-ctkd", "--cache-type-k-draft"}, F_OTHER, true, P_UNESTIMATED},
	{{"-ctvd", "--cache-type-v-draft"}, F_OTHER, true, P_UNESTIMATED},
	{{"-devd", "--device-draft"}, F_OTHER, true, P_UNESTIMATED},
};

/* llama-server switches (no value) that leave memory alone, so that the word
 * after one is never taken for its value (common/arg.cpp, tools/server). */
static const char *const plain_switches[] = {
	"--metrics", "--slots", "--no-slots", "--props", "--jinja", "--no-jinja", "--webui", "--no-webui",
	"-cb", "--cont-batching", "-nocb", "--no-cont-batching", "--mlock", "-v", "--verbose", "--log-verbose",
	"--log-disable", "--log-timestamps", "--log-prefix", "--embedding", "--embeddings", "--reranking",
	"--rerank", "--no-warmup", "--check-tensors", "--offline", "-e", "--escape", "--no-escape",
	"--context-shift", "--no-context-shift", "-sp", "--special", "--verbose-prompt", "--no-perf",
	"--no-op-offload", "--no-prefill-assistant", "--cache-idle-slots",
};

void llama_flags_init(struct llama_flags *f)
{
	memset(f, 0, sizeof *f);
	f->n_gpu_layers = -1;
	f->type_k = f->type_v = GGML_T_F16;
	f->flash_attn = LLAMA_FA_AUTO;
	f->n_parallel = -1;
	f->kv_unified = true; /* auto -np: 4 slots sharing one cache (server.cpp:146-151) */
	f->n_batch = 2048;
	f->n_ubatch = 512;
	f->port = -1;
	f->defaulted = LF_DEF_CTX | LF_DEF_NGL | LF_DEF_CTK | LF_DEF_CTV | LF_DEF_FA | LF_DEF_NP |
		       LF_DEF_BATCH | LF_DEF_UBATCH;
}

static bool bad(struct llama_flags *f, const char *opt, const char *val)
{
	if (!f->error[0])
		snprintf(f->error, sizeof f->error, "invalid value '%.60s' for %s", val, opt);
	return false;
}

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/* -ot "re1=CPU,re2=CUDA0" (common/arg.cpp parse_tensor_buffer_overrides). */
static bool add_overrides(struct llama_flags *f, const char *v)
{
	char *copy = xstrdup(v), *save = NULL;
	bool ok = true;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strrchr(item, '=');
		if (!eq || eq == item || !eq[1] || f->n_ot >= LLAMA_FLAGS_MAX_OT) {
			ok = bad(f, "-ot", v);
			continue;
		}
		*eq = '\0';
		f->ot[f->n_ot].pattern = xstrdup(item);
		f->ot[f->n_ot].buft = xstrdup(eq + 1);
		f->n_ot++;
	}
	free(copy);
	return ok;
}

static bool parse_ngl(struct llama_flags *f, const char *v)
{
	long long n;
	if (strcmp(v, "auto") == 0 || strcmp(v, "all") == 0) {
		f->n_gpu_layers = -1;
		return true;
	}
	if (!parse_int(v, -1, 100000, &n))
		return bad(f, "-ngl", v);
	f->n_gpu_layers = (int32_t)n;
	return true;
}

/* -fa on|off|auto (common/arg.cpp), and the spellings older builds took */
static const struct { const char *s; enum llama_fa fa; } fa_values[] = {
	{"on", LLAMA_FA_ON}, {"1", LLAMA_FA_ON}, {"true", LLAMA_FA_ON}, {"enabled", LLAMA_FA_ON},
	{"off", LLAMA_FA_OFF}, {"0", LLAMA_FA_OFF}, {"false", LLAMA_FA_OFF},
	{"disabled", LLAMA_FA_OFF}, {"auto", LLAMA_FA_AUTO}, {"-1", LLAMA_FA_AUTO},
};

/* The fa_values index of v, or -1. */
static int fa_value_index(const char *v)
{
	for (size_t i = 0; i < ARRAY_LEN(fa_values); i++)
		if (strcasecmp(v, fa_values[i].s) == 0)
			return (int)i;
	return -1;
}

static bool parse_fa(struct llama_flags *f, const char *v)
{
	int i = fa_value_index(v);
	if (i < 0)
		return bad(f, "-fa", v);
	f->flash_attn = fa_values[i].fa;
	return true;
}

/* KV cache types llama.cpp accepts (common/arg.cpp:302-312). */
static bool parse_cache_type(struct llama_flags *f, const char *opt, const char *v, uint32_t *dst)
{
	static const char *const allowed[] = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};
	for (size_t i = 0; i < ARRAY_LEN(allowed); i++)
		if (strcasecmp(v, allowed[i]) == 0) {
			*dst = (uint32_t)ggml_type_from_name(allowed[i]);
			return true;
		}
	return bad(f, opt, v);
}

static const char *const split_mode_names[] = {"layer", "none", "row", "tensor"};

const char *llama_split_mode_name(enum llama_split_mode m)
{
	return (size_t)m < ARRAY_LEN(split_mode_names) ? split_mode_names[m] : "?";
}

static bool parse_split_mode(struct llama_flags *f, const char *v)
{
	for (size_t i = 0; i < ARRAY_LEN(split_mode_names); i++)
		if (strcmp(v, split_mode_names[i]) == 0) {
			f->split_mode = (enum llama_split_mode)i;
			return true;
		}
	return bad(f, "-sm", v);
}

/* One -ts entry: a whole number word, finite and not negative. */
static bool split_entry(const char *s, size_t len, float *out)
{
	char buf[64], *end;
	if (len == 0 || len >= sizeof buf)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	float v = strtof(buf, &end);
	if (end == buf || *end || errno == ERANGE || !(v >= 0.0f) || v > 1e30f)
		return false;
	*out = v;
	return true;
}

bool llama_tensor_split_parse(const char *s, size_t len, float *out, size_t *n)
{
	size_t at = 0, k = 0;
	*n = 0;
	/* common/arg.cpp splits on runs of ',' and '/' (regex "[,/]+") and
	 * refuses as many entries as llama.cpp has device slots */
	while (at < len) {
		size_t start = at;
		while (at < len && s[at] != ',' && s[at] != '/')
			at++;
		if (at > start) {
			if (k + 1 >= LLAMA_FLAGS_MAX_DEVICES || !split_entry(s + start, at - start, &out[k]))
				return false;
			k++;
		} else if (start == 0 && at < len) {
			/* a leading separator gives an empty first entry: stof refuses it */
			return false;
		}
		while (at < len && (s[at] == ',' || s[at] == '/'))
			at++;
	}
	*n = k;
	return k > 0;
}

static bool parse_tensor_split(struct llama_flags *f, const char *v)
{
	float ts[LLAMA_FLAGS_MAX_DEVICES] = {0};
	size_t n;
	if (!llama_tensor_split_parse(v, strlen(v), ts, &n))
		return bad(f, "-ts", v);
	memcpy(f->tensor_split, ts, sizeof ts);
	f->n_tensor_split = n;
	return true;
}

static bool apply_value(struct llama_flags *f, enum flag_id id, const char *opt, const char *v)
{
	long long n;
	switch (id) {
	case F_CTX:
		if (!parse_int(v, 0, 1ll << 40, &n))
			return bad(f, opt, v);
		f->n_ctx = (uint64_t)n;
		f->defaulted &= ~(unsigned)LF_DEF_CTX;
		return true;
	case F_NGL:
		f->defaulted &= ~(unsigned)LF_DEF_NGL;
		return parse_ngl(f, v);
	case F_CTK:
		f->defaulted &= ~(unsigned)LF_DEF_CTK;
		return parse_cache_type(f, opt, v, &f->type_k);
	case F_CTV:
		f->defaulted &= ~(unsigned)LF_DEF_CTV;
		return parse_cache_type(f, opt, v, &f->type_v);
	case F_FA:
		f->defaulted &= ~(unsigned)LF_DEF_FA;
		return parse_fa(f, v);
	case F_NP:
		if (!parse_int(v, -1, 1 << 16, &n) || n == 0)
			return bad(f, opt, v);
		f->n_parallel = (int32_t)n;
		f->defaulted &= ~(unsigned)LF_DEF_NP;
		return true;
	case F_BATCH:
	case F_UBATCH:
		if (!parse_int(v, 1, 1 << 24, &n))
			return bad(f, opt, v);
		*(id == F_BATCH ? &f->n_batch : &f->n_ubatch) = (uint32_t)n;
		f->defaulted &= ~(unsigned)(id == F_BATCH ? LF_DEF_BATCH : LF_DEF_UBATCH);
		return true;
	case F_OT:
		return add_overrides(f, v);
	case F_NCMOE:
		if (!parse_int(v, 0, 100000, &n))
			return bad(f, opt, v);
		f->n_cpu_moe = (int32_t)n;
		return true;
	case F_TS:
		return parse_tensor_split(f, v);
	case F_SM:
		return parse_split_mode(f, v);
	case F_MG:
		if (!parse_int(v, -1, 1023, &n))
			return bad(f, opt, v);
		f->main_gpu = (int32_t)n;
		return true;
	case F_PORT:
		if (!parse_int(v, 0, 65535, &n))
			return bad(f, opt, v);
		f->port = (int32_t)n;
		return true;
	case F_LORA:
		if (f->n_lora < LLAMA_FLAGS_MAX_LORA)
			f->lora[f->n_lora++] = xstrdup(v);
		return true;
	case F_MODEL: set_str(&f->model, v); return true;
	case F_DRAFT: set_str(&f->model_draft, v); return true;
	case F_MMPROJ: set_str(&f->mmproj, v); return true;
	case F_HF: set_str(&f->hf_repo, v); return true;
	case F_LOG_FILE: set_str(&f->log_file, v); return true;
	case F_HOST: set_str(&f->host, v); return true;
	case F_ALIAS: set_str(&f->alias, v); return true;
	default:
		return true;
	}
}

static void apply_switch(struct llama_flags *f, enum flag_id id)
{
	switch (id) {
	case F_SWA_FULL: f->swa_full = true; break;
	case F_CPU_MOE: f->cpu_moe = true; break;
	case F_NO_MMAP: f->no_mmap = true; break;
	case F_MMAP: f->no_mmap = false; break;
	case F_NKVO: f->no_kv_offload = true; break;
	case F_KVO: f->no_kv_offload = false; break;
	case F_FA: f->flash_attn = LLAMA_FA_ON; f->defaulted &= ~(unsigned)LF_DEF_FA; break;
	default: break; /* -kvu / -no-kvu: resolved after the whole line (kv_layout) */
	}
}

static void add_ignored(struct llama_flags *f, const char *flag, size_t len, const char *value, const char *why)
{
	if (f->n_ignored >= LLAMA_FLAGS_MAX_IGNORED) {
		f->n_ignored_dropped++;
		return;
	}
	struct llama_ignored *g = &f->ignored[f->n_ignored++];
	g->flag = xstrndup(flag, len);
	g->value = value ? xstrdup(value) : NULL;
	g->why = why;
}

static void add_positional(struct llama_flags *f, const char *word)
{
	if (f->n_positional >= LLAMA_FLAGS_MAX_POSITIONAL) {
		f->n_positional_dropped++;
		return;
	}
	f->positional[f->n_positional++] = xstrdup(word);
}

static bool is_number(const char *s)
{
	char *end;
	errno = 0;
	(void)strtod(s, &end);
	return end != s && *end == '\0';
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* An option word: "-x" or "--xyz", but not "-" or a negative number. */
static bool is_option(const char *w)
{
	return w[0] == '-' && w[1] && !is_number(w);
}

static bool is_plain_switch(const char *arg, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(plain_switches); i++)
		if (strlen(plain_switches[i]) == len && strncmp(plain_switches[i], arg, len) == 0)
			return true;
	return false;
}

/* An option this parser does not know: its "=value", else the next word
 * unless that is an option or (GGUF_OPERAND) a model file. Returns the words
 * it used beyond its own. */
static int take_unknown(struct llama_flags *f, const char *arg, size_t len, const char *eq, const char *next,
			unsigned opts)
{
	bool sw = is_plain_switch(arg, len);
	const char *v = eq ? eq + 1 : NULL;
	int used = 0;
	if (!eq && !sw && next && !is_option(next) && !((opts & LF_PARSE_GGUF_OPERAND) && ends_with(next, ".gguf"))) {
		v = next;
		used = 1;
	}
	add_ignored(f, arg, len, v, sw ? why_none : why_unknown);
	return used;
}

/* -kvu / -no-kvu (the last one given wins) against -np: an automatic -np
 * means 4 slots on a unified cache whatever they say (server.cpp:146-151);
 * an explicit -np N without -kvu gives N separate streams (llm-memory §3). */
static void kv_layout(struct llama_flags *f, int kvu, const char *no_kvu_arg)
{
	if (f->n_parallel < 0) {
		f->kv_unified = true;
		if (kvu < 0)
			add_ignored(f, no_kvu_arg, strlen(no_kvu_arg), NULL, why_nokvu_auto);
	} else {
		f->kv_unified = kvu > 0;
	}
}

/* The definition whose spelling equals arg (up to '=' when has_eq). */
static const struct flag_def *find_flag(const char *arg, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(flag_defs); i++)
		for (size_t j = 0; j < ARRAY_LEN(flag_defs[i].names) && flag_defs[i].names[j]; j++)
			if (strlen(flag_defs[i].names[j]) == len && strncmp(flag_defs[i].names[j], arg, len) == 0)
				return &flag_defs[i];
	return NULL;
}

bool llama_flags_parse_opts(struct llama_flags *f, int argc, char *const *argv, int first, unsigned opts)
{
	int kvu = 0; /* +1 -kvu, -1 -no-kvu, 0 neither */
	const char *no_kvu_arg = NULL;
	for (int i = first; i < argc; i++) {
		const char *arg = argv[i];
		const char *eq = is_option(arg) ? strchr(arg, '=') : NULL;
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		const struct flag_def *d = is_option(arg) ? find_flag(arg, len) : NULL;
		if (!is_option(arg)) {
			add_positional(f, arg);
			continue;
		}
		if (!d) {
			i += take_unknown(f, arg, len, eq, next, opts);
			continue;
		}
		if (d->id == F_KVU || d->id == F_NO_KVU) {
			kvu = d->id == F_KVU ? 1 : -1;
			no_kvu_arg = arg;
		}
		if (!d->takes_value) {
			apply_switch(f, d->id);
			if (d->plan != P_USED)
				add_ignored(f, arg, len, NULL, d->plan == P_NONE ? why_none : why_unestimated);
			continue;
		}
		const char *v = eq ? eq + 1 : next;
		/* a bare -fa (older builds: a switch) means on: followed by nothing,
		 * by an option or by the model file rather than by on/off/auto */
		if (d->id == F_FA && !eq && (!v || (fa_value_index(v) < 0 && (is_option(v) || ends_with(v, ".gguf"))))) {
			apply_switch(f, F_FA);
			continue;
		}
		if (!v) {
			bad(f, arg, "(missing)");
			break;
		}
		if (!eq)
			i++;
		apply_value(f, d->id, arg, v);
		if (d->plan != P_USED)
			add_ignored(f, arg, len, v, d->plan == P_NONE ? why_none : why_unestimated);
	}
	kv_layout(f, kvu, no_kvu_arg);
	return f->error[0] == '\0';
}

bool llama_flags_parse(struct llama_flags *f, int argc, char *const *argv, int first)
{
	return llama_flags_parse_opts(f, argc, argv, first, 0);
}

static char *copy_str(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void llama_flags_copy(struct llama_flags *dst, const struct llama_flags *src)
{
	*dst = *src;
	for (size_t i = 0; i < src->n_ot; i++) {
		dst->ot[i].pattern = copy_str(src->ot[i].pattern);
		dst->ot[i].buft = copy_str(src->ot[i].buft);
	}
	for (size_t i = 0; i < src->n_lora; i++)
		dst->lora[i] = copy_str(src->lora[i]);
	for (size_t i = 0; i < src->n_ignored; i++) {
		dst->ignored[i].flag = copy_str(src->ignored[i].flag);
		dst->ignored[i].value = copy_str(src->ignored[i].value);
	}
	for (size_t i = 0; i < src->n_positional; i++)
		dst->positional[i] = copy_str(src->positional[i]);
	dst->model = copy_str(src->model);
	dst->model_draft = copy_str(src->model_draft);
	dst->mmproj = copy_str(src->mmproj);
	dst->hf_repo = copy_str(src->hf_repo);
	dst->log_file = copy_str(src->log_file);
	dst->host = copy_str(src->host);
	dst->alias = copy_str(src->alias);
}

void llama_flags_free(struct llama_flags *f)
{
	for (size_t i = 0; i < f->n_ot; i++) {
		free(f->ot[i].pattern);
		free(f->ot[i].buft);
	}
	for (size_t i = 0; i < f->n_lora; i++)
		free(f->lora[i]);
	for (size_t i = 0; i < f->n_ignored; i++) {
		free(f->ignored[i].flag);
		free(f->ignored[i].value);
	}
	for (size_t i = 0; i < f->n_positional; i++)
		free(f->positional[i]);
	free(f->model);
	free(f->model_draft);
	free(f->mmproj);
	free(f->hf_repo);
	free(f->log_file);
	free(f->host);
	free(f->alias);
	memset(f, 0, sizeof *f);
}

void llama_flags_describe_defaults(const struct llama_flags *f, char *out, size_t n)
{
	static const struct { unsigned bit; const char *text; } defs[] = {
		{LF_DEF_CTX, "-c (trained context)"},
		{LF_DEF_NGL, "-ngl (all layers offloaded)"},
		{LF_DEF_NP, "-np (4 slots sharing a unified cache)"},
		{LF_DEF_CTK, "-ctk f16"},
		{LF_DEF_CTV, "-ctv f16"},
		{LF_DEF_FA, "-fa auto"},
		{LF_DEF_UBATCH, "-ub 512"},
		{LF_DEF_BATCH, "-b 2048"},
	};
	size_t len = 0;
	if (n)
		out[0] = '\0';
	for (size_t i = 0; i < ARRAY_LEN(defs) && len < n; i++) {
		if (!(f->defaulted & defs[i].bit))
			continue;
		int w = snprintf(out + len, n - len, "%s%s", len ? ", " : "", defs[i].text);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}
