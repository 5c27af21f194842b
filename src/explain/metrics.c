/* Prometheus text exposition format (prometheus.io/docs/instrumenting/exposition_formats):
 * `name{label="v",...} value [timestamp]`, '#' comments. Metric names of
 * llama-server (server-context.cpp:4340-4443), vLLM (v1/metrics/loggers.py) and
 * SGLang as listed in llm-memory.md §7. */
#include "explain/server.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

/* One line → sample; false for comments, blanks and malformed lines. */
static bool parse_line(const char *p, const char *end, struct prom_sample *s)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p == '#' || !name_char(*p, true))
		return false;
	s->name = p;
	while (p < end && name_char(*p, false))
		p++;
	s->name_len = (size_t)(p - s->name);
	s->labels = NULL;
	s->labels_len = 0;
	if (p < end && *p == '{') {
		const char *l = ++p;
		bool q = false;
		for (; p < end && (q || *p != '}'); p++) {
			if (*p == '\\' && q && p + 1 < end)
				p++;
			else if (*p == '"')
				q = !q;
		}
		if (p >= end)
			return false;
		s->labels = l;
		s->labels_len = (size_t)(p - l);
		p++;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	char num[64];
	size_t n = 0;
	while (p < end && *p != ' ' && *p != '\t' && n + 1 < sizeof num)
		num[n++] = *p++;
	num[n] = 0;
	if (!n)
		return false;
	char *e;
	double v = strtod(num, &e);
	if (*e || isnan(v))
		return false;
	s->value = v;
	return true;
}

int prom_each(const char *buf, size_t len, bool (*fn)(const struct prom_sample *, void *), void *arg)
{
	int count = 0;
	const char *p = buf, *end = buf + (len > EX_MAX_BODY ? EX_MAX_BODY : len);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct prom_sample s;
		if (parse_line(p, le, &s)) {
			count++;
			if (!fn(&s, arg))
				break;
		}
		p = nl ? nl + 1 : end;
	}
	return count ? count : -1;
}

struct find_arg {
	const char *name;
	double v;
	bool found;
};

static bool find_fn(const struct prom_sample *s, void *a)
{
	struct find_arg *f = a;
	if (strlen(f->name) == s->name_len && memcmp(f->name, s->name, s->name_len) == 0) {
		f->v = s->value;
		f->found = true;
		return false;
	}
	return true;
}

bool prom_value(const char *buf, size_t len, const char *name, double *out)
{
	struct find_arg f = {name, 0, false};
	prom_each(buf, len, find_fn, &f);
	if (f.found)
		*out = f.v;
	return f.found;
}

bool prom_label(const struct prom_sample *s, const char *key, char *out, size_t cap)
{
	const char *p = s->labels, *end = s->labels ? s->labels + s->labels_len : NULL;
	size_t kl = strlen(key);
	while (p && p < end) {
		while (p < end && (*p == ' ' || *p == ','))
			p++;
		const char *k = p;
		while (p < end && *p != '=')
			p++;
		if (p + 1 >= end || p[1] != '"')
			return false;
		bool match = (size_t)(p - k) == kl && memcmp(k, key, kl) == 0;
		p += 2;
		size_t o = 0;
		for (; p < end && *p != '"'; p++) {
			if (*p == '\\' && p + 1 < end)
				p++;
			if (match && o + 1 < cap)
				out[o++] = *p;
		}
		if (match) {
			if (cap)
				out[o] = 0;
			return true;
		}
		p++;
	}
	return false;
}

/* Gauges and counters we keep, by metric name. */
enum mkey {
	MK_GEN_TOKENS, MK_PROMPT_TOKENS, MK_GEN_SECONDS, MK_PROMPT_SECONDS, MK_REQ_PROCESSING, MK_REQ_DEFERRED,
	MK_LLAMA_KV,
	MK_VLLM_KV, MK_VLLM_KV_OLD, MK_VLLM_RUNNING, MK_VLLM_WAITING, MK_VLLM_CACHE_CFG,
	MK_VLLM_GEN, MK_VLLM_PROMPT,
	MK_SG_USAGE, MK_SG_USED, MK_SG_MAX, MK_SG_RUNNING, MK_SG_QUEUE, MK_SG_GEN, MK_SG_PROMPT, MK_SG_GEN_TPUT,
	MK_COUNT
};

static const struct {
	const char *name;
	enum mkey key;
	const char *kind; /* server kind the name proves */
} metric_names[] = {
	{"llamacpp:tokens_predicted_total", MK_GEN_TOKENS, "llama-server"},
	{"llamacpp:prompt_tokens_total", MK_PROMPT_TOKENS, "llama-server"},
	/* the server's own time spent generating / processing prompts (summed over slots) */
	{"llamacpp:tokens_predicted_seconds_total", MK_GEN_SECONDS, "llama-server"},
	{"llamacpp:prompt_seconds_total", MK_PROMPT_SECONDS, "llama-server"},
	{"llamacpp:requests_processing", MK_REQ_PROCESSING, "llama-server"},
	{"llamacpp:requests_deferred", MK_REQ_DEFERRED, "llama-server"},
	/* builds before the KV-cache refactor (2025) export it; current ones do not */
	{"llamacpp:kv_cache_usage_ratio", MK_LLAMA_KV, "llama-server"},
	{"vllm:kv_cache_usage_perc", MK_VLLM_KV, "vllm"},
	{"vllm:gpu_cache_usage_perc", MK_VLLM_KV_OLD, "vllm"}, /* deprecated in 0.9 */
	{"vllm:num_requests_running", MK_VLLM_RUNNING, "vllm"},
	{"vllm:num_requests_waiting", MK_VLLM_WAITING, "vllm"},
	{"vllm:cache_config_info", MK_VLLM_CACHE_CFG, "vllm"},
	{"vllm:generation_tokens_total", MK_VLLM_GEN, "vllm"},
	{"vllm:prompt_tokens_total", MK_VLLM_PROMPT, "vllm"},
	{"sglang:token_usage", MK_SG_USAGE, "sglang"},
	{"sglang:num_used_tokens", MK_SG_USED, "sglang"},
	{"sglang:max_total_num_tokens", MK_SG_MAX, "sglang"},
	{"sglang:num_running_reqs", MK_SG_RUNNING, "sglang"},
	{"sglang:num_queue_reqs", MK_SG_QUEUE, "sglang"},
	{"sglang:generation_tokens_total", MK_SG_GEN, "sglang"},
	{"sglang:prompt_tokens_total", MK_SG_PROMPT, "sglang"},
	{"sglang:gen_throughput", MK_SG_GEN_TPUT, "sglang"}, /* token/s, the server's gauge */
};

struct collect {
	double v[MK_COUNT + 1];
	bool have[MK_COUNT + 1]; /* [MK_COUNT]: never set, "not reported" */
	unsigned n[MK_COUNT + 1]; /* samples of each name (one per engine or model) */
	const char *kind;
	uint64_t blocks, block_size; /* vllm:cache_config_info labels */
	char cache_dtype[24];
};

/* A label holding a whole decimal number below max, else 0 ("None", "-1", "1e9", "12x"). */
static uint64_t label_u64(const struct prom_sample *s, const char *key, uint64_t max)
{
	char b[32], *e;
	if (!prom_label(s, key, b, sizeof b) || b[0] < '0' || b[0] > '9')
		return 0;
	unsigned long long v = strtoull(b, &e, 10);
	return *e || v >= max ? 0 : (uint64_t)v;
}

/* vllm:cache_config_info: the pool's blocks, tokens per block and KV dtype,
 * as labels of a gauge whose value is 1. */
static void cache_config(struct collect *c, const struct prom_sample *s)
{
	c->blocks = label_u64(s, "num_gpu_blocks", 1ull << 40);
	c->block_size = label_u64(s, "block_size", 1ull << 20);
	char d[24];
	size_t o = 0;
	c->cache_dtype[0] = 0;
	if (!prom_label(s, "cache_dtype", d, sizeof d))
		return;
	/* a dtype name is [a-z0-9_]: anything else is not kept */
	for (const char *q = d; *q && o + 1 < sizeof c->cache_dtype; q++)
		if ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_')
			c->cache_dtype[o++] = *q;
		else
			return;
	c->cache_dtype[o] = 0;
}

static bool collect_fn(const struct prom_sample *s, void *a)
{
	struct collect *c = a;
	for (size_t i = 0; i < ARRAY_LEN(metric_names); i++) {
		const char *n = metric_names[i].name;
		if (strlen(n) != s->name_len || memcmp(n, s->name, s->name_len) != 0)
			continue;
		enum mkey k = metric_names[i].key;
		/* counters with labels (per model / engine) are summed */
		c->v[k] = c->have[k] ? c->v[k] + s->value : s->value;
		c->have[k] = true;
		c->n[k]++;
		c->kind = metric_names[i].kind;
		if (k == MK_VLLM_CACHE_CFG)
			cache_config(c, s);
	}
	return true;
}

static gtm_u64 count_of(const struct collect *c, enum mkey k)
{
	if (!c->have[k] || !(c->v[k] >= 0) || c->v[k] > 1.8e19)
		return GTM_U64_NA;
	return gtm_u64_of((uint64_t)c->v[k], GTM_REPORTED);
}

/* A rate is a finite, non-negative number, else N/A. */
static gtm_f64 rate_of(double tokens, double seconds)
{
	double r = tokens / seconds;
	return seconds > 0 && tokens >= 0 && isfinite(r) ? gtm_f64_of(r, GTM_REPORTED) : GTM_F64_NA;
}

/* One counter's sample: tokens, and the server's seconds for them (< 0 when
 * it reports none). dt_s > 0: seconds of wall clock since the previous sample. */
static void rate_sample(struct ex_rate *r, double tokens, double seconds, double dt_s)
{
	r->tps = r->wall_tps = r->avg_tps = GTM_F64_NA;
	/* a counter going back means the server restarted: only this sample counts */
	bool back = tokens < r->tokens || (seconds >= 0 && seconds < r->seconds);
	if (dt_s > 0 && !back) {
		r->wall_tps = rate_of(tokens - r->tokens, dt_s);
		if (seconds >= 0 && r->seconds >= 0)
			r->tps = rate_of(tokens - r->tokens, seconds - r->seconds);
	}
	if (seconds >= 0)
		r->avg_tps = rate_of(tokens, seconds);
	r->tokens = tokens;
	r->seconds = seconds;
}

static double secs_of(const struct collect *c, enum mkey k)
{
	return c->have[k] && c->v[k] >= 0 ? c->v[k] : -1;
}

static void apply_rates(struct ex_server *s, const struct collect *c, enum mkey gen, enum mkey prompt,
			enum mkey gen_s, enum mkey prompt_s, uint64_t now_ns)
{
	if (!c->have[gen])
		return;
	double dt = s->m_valid && now_ns > s->m_at_ns ? (double)(now_ns - s->m_at_ns) / 1e9 : 0;
	rate_sample(&s->gen, c->v[gen], secs_of(c, gen_s), dt);
	rate_sample(&s->prompt, c->have[prompt] ? c->v[prompt] : 0, secs_of(c, prompt_s), dt);
	s->m_valid = true;
	s->m_at_ns = now_ns;
}

bool server_apply_metrics(const char *buf, size_t len, uint64_t now_ns, struct ex_server *s)
{
	struct collect c;
	memset(&c, 0, sizeof c);
	if (prom_each(buf, len, collect_fn, &c) < 0 || !c.kind)
		return false;
	if (!s->kind[0])
		str_copy(s->kind, c.kind, sizeof s->kind);
	if (c.have[MK_GEN_TOKENS]) {
		apply_rates(s, &c, MK_GEN_TOKENS, MK_PROMPT_TOKENS, MK_GEN_SECONDS, MK_PROMPT_SECONDS, now_ns);
		/* server_context's metrics.on_prediction adds a task's tokens when it finishes */
		s->counted_at_end = true;
		s->requests_running = count_of(&c, MK_REQ_PROCESSING);
		s->requests_waiting = count_of(&c, MK_REQ_DEFERRED);
		if (c.have[MK_LLAMA_KV] && c.v[MK_LLAMA_KV] >= 0 && c.v[MK_LLAMA_KV] <= 1.0)
			s->kv_usage = gtm_f64_of(c.v[MK_LLAMA_KV], GTM_REPORTED);
	} else if (strcmp(c.kind, "vllm") == 0) {
		enum mkey kv = c.have[MK_VLLM_KV] ? MK_VLLM_KV : MK_VLLM_KV_OLD;
		/* one gauge per engine (data-parallel ranks): whose pool a worker
		 * uses is not known from here, and a sum of fractions is none */
		s->kv_usage_engines = c.n[kv];
		if (c.have[kv] && c.n[kv] == 1 && c.v[kv] >= 0 && c.v[kv] <= 1.0)
			s->kv_usage = gtm_f64_of(c.v[kv], GTM_REPORTED);
		if (c.n[MK_VLLM_CACHE_CFG] == 1 && c.blocks && c.block_size) {
			s->kv_capacity_tokens = gtm_u64_of(c.blocks * c.block_size, GTM_REPORTED);
			s->kv_blocks = gtm_u64_of(c.blocks, GTM_REPORTED);
			s->kv_block_size = gtm_u64_of(c.block_size, GTM_REPORTED);
		}
		if (c.n[MK_VLLM_CACHE_CFG] == 1)
			str_copy(s->kv_cache_dtype, c.cache_dtype, sizeof s->kv_cache_dtype);
		s->requests_running = count_of(&c, MK_VLLM_RUNNING);
		s->requests_waiting = count_of(&c, MK_VLLM_WAITING);
		apply_rates(s, &c, MK_VLLM_GEN, MK_VLLM_PROMPT, MK_COUNT, MK_COUNT, now_ns);
	} else {
		s->kv_usage_engines = c.n[MK_SG_USAGE];
		if (c.have[MK_SG_USAGE] && c.n[MK_SG_USAGE] == 1 && c.v[MK_SG_USAGE] >= 0 && c.v[MK_SG_USAGE] <= 1.0)
			s->kv_usage = gtm_f64_of(c.v[MK_SG_USAGE], GTM_REPORTED);
		/* summed over data-parallel ranks' samples: counts, not fractions */
		s->kv_used_tokens = count_of(&c, MK_SG_USED);
		s->kv_capacity_tokens = count_of(&c, MK_SG_MAX);
		s->requests_running = count_of(&c, MK_SG_RUNNING);
		s->requests_waiting = count_of(&c, MK_SG_QUEUE);
		apply_rates(s, &c, MK_SG_GEN, MK_SG_PROMPT, MK_COUNT, MK_COUNT, now_ns);
		if (c.have[MK_SG_GEN_TPUT] && c.v[MK_SG_GEN_TPUT] >= 0 && isfinite(c.v[MK_SG_GEN_TPUT]))
			s->gen.tps = gtm_f64_of(c.v[MK_SG_GEN_TPUT], GTM_REPORTED);
	}
	return true;
}
