/* The exporter's renderer (views/prom): a hand-built snapshot against a
 * golden file; label escaping; the --max-processes cap and its pid="other"
 * fold; unavailable readings absent; one source per model segment; the
 * exposition rules (HELP/TYPE once and first, families contiguous, every
 * series once, finite values) on every output.
 * GTM_UPDATE_GOLDEN=1 rewrites the golden file (review the diff). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/snapshot.h"
#include "core/util.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "views/prom/prom_render.h"
#include "views/prom/prom_text.h"

#include "testutil.h"

/* ---- the exposition rules, checked on any text ---- */

struct seen {
	char **v;
	int n, cap;
};

static bool seen_add(struct seen *s, const char *x, size_t n)
{
	for (int i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == n && !memcmp(s->v[i], x, n))
			return false;
	if (s->n == s->cap)
		s->v = realloc(s->v, (size_t)(s->cap = s->cap ? s->cap * 2 : 64) * sizeof *s->v);
	s->v[s->n++] = strndup(x, n);
	return true;
}

static void seen_free(struct seen *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* Fails on the first broken rule, naming the line. */
static void check_exposition(const char *text)
{
	struct seen families = {0}, series = {0};
	char current[128] = "";
	bool help = false, type = false;
	const char *line = text;

	assert_true(text[0] == 0 || text[strlen(text) - 1] == '\n');
	while (*line) {
		const char *end = strchr(line, '\n');
		size_t n = (size_t)(end - line);
		char name[128];
		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7)) {
			size_t k = strcspn(line + 7, " \n");
			assert_true(k < sizeof name);
			memcpy(name, line + 7, k);
			name[k] = 0;
			if (strcmp(name, current) != 0) {
				if (!seen_add(&families, name, k)) {
					fprintf(stderr, "family %s appears twice\n", name);
					fail();
				}
				str_copy(current, name, sizeof current);
				help = type = false;
			}
			bool *flag = line[2] == 'H' ? &help : &type;
			if (*flag) {
				fprintf(stderr, "second %.4s line for %s\n", line + 2, name);
				fail();
			}
			*flag = true;
		} else {
			size_t k = strcspn(line, "{ ");
			assert_true(k < sizeof name);
			memcpy(name, line, k);
			name[k] = 0;
			if (strcmp(name, current) != 0 || !help || !type) {
				fprintf(stderr, "sample outside its family or before HELP/TYPE: %.*s\n", (int)n, line);
				fail();
			}
			const char *sp = line + n;
			while (sp > line && sp[-1] != ' ')
				sp--;
			if (!seen_add(&series, line, (size_t)(sp - 1 - line))) {
				fprintf(stderr, "series twice: %.*s\n", (int)n, line);
				fail();
			}
			char *vend;
			double v = strtod(sp, &vend);
			if (vend != end || !isfinite(v)) {
				fprintf(stderr, "bad value: %.*s\n", (int)n, line);
				fail();
			}
		}
		line = end + 1;
	}
	seen_free(&families);
	seen_free(&series);
}

/* The lines of text that start with prefix, counted. */
static int count_lines(const char *text, const char *prefix)
{
	int n = 0;
	size_t len = strlen(prefix);
	for (const char *l = text; *l; l = strchr(l, '\n') + 1)
		n += !strncmp(l, prefix, len);
	return n;
}

/* The value of the one sample line starting with prefix (prefix must be unique). */
static double value_of(const char *text, const char *prefix)
{
	size_t len = strlen(prefix);
	for (const char *l = text; *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, prefix, len)) {
			const char *e = strchr(l, '\n'), *sp = e;
			while (sp[-1] != ' ')
				sp--;
			return strtod(sp, NULL);
		}
	fprintf(stderr, "no line starting %s in:\n%s\n", prefix, text);
	fail();
	return NAN;
}

/* ---- building snapshots ---- */

static struct gtm_snapshot *snap_new(void)
{
	struct gtm_snapshot *s = snapshot_new();
	gtm_ident_free_hook = ident_free;
	gtm_explain_free_hook = explain_free;
	s->taken_at_ns = 1700000000123000000ull;
	return s;
}

static struct gtm_process *add_proc(struct gtm_snapshot *s, uint32_t pid, const char *name, enum gtm_owner owner)
{
	struct gtm_process *p = snapshot_add_process(s);
	p->pid = pid;
	snprintf(p->label, sizeof p->label, "%s%u", owner == GTM_OWNER_MATCHED ? "*" : "", pid);
	p->owner = owner;
	str_copy(p->name, name, sizeof p->name);
	s->n_gpu_processes = s->n_processes;
	return p;
}

static struct gtm_gpu_use *add_use(struct gtm_process *p, int dev, int64_t vram)
{
	struct gtm_gpu_use *u = process_add_use(p);
	u->dev_index = dev;
	if (vram >= 0)
		u->vram = gtm_u64_of((uint64_t)vram, GTM_MEASURED);
	return u;
}

static void add_runtime(struct gtm_process *p, const char *id, unsigned traits)
{
	if (!p->ident)
		p->ident = ident_new();
	struct gtm_ident *d = p->ident;
	d->runtimes = xrealloc(d->runtimes, (size_t)(d->n_runtimes + 1) * sizeof *d->runtimes);
	d->runtimes[d->n_runtimes++] = (struct ident_runtime){.id = id, .name = id, .traits = traits};
	d->category = IDENT_CAT_AI;
}

static struct ident_model *add_model(struct gtm_process *p, const char *path, const char *name, unsigned evidence)
{
	if (!p->ident)
		p->ident = ident_new();
	struct gtm_ident *d = p->ident;
	d->models = xrealloc(d->models, (size_t)(d->n_models + 1) * sizeof *d->models);
	struct ident_model *m = &d->models[d->n_models++];
	memset(m, 0, sizeof *m);
	m->path = path ? xstrdup(path) : NULL;
	m->name = name ? xstrdup(name) : NULL;
	m->evidence = evidence;
	return m;
}

static struct gtm_explain *explain_of(struct gtm_process *p, const char *runtime)
{
	if (!p->explain) {
		p->explain = xcalloc(1, sizeof *p->explain);
		str_copy(p->explain->runtime, runtime, sizeof p->explain->runtime);
	}
	return p->explain;
}

static void add_seg(struct gtm_process *p, enum ex_seg seg, enum ex_src src, int gpu, bool host, uint64_t bytes)
{
	struct ex_segment *s = ex_add_seg(explain_of(p, ""), seg, src, host ? "CPU" : "CUDA0");
	s->gpu = gpu;
	s->host = host;
	s->bytes = gtm_u64_of(bytes, src == EX_SRC_ESTIMATE || src == EX_SRC_REMAINDER ? GTM_ESTIMATED : GTM_REPORTED);
}

#define EV(e) (1u << (e))

/* Two devices and the rows a real refresh gives: a llama-server explained
 * by its log (with estimate and remainder segments beside it, a host buffer,
 * server facts), an Ollama runner explained by its API, a process with only
 * an estimate, a container's host PID, a Windows PID, a process whose VRAM the
 * driver withholds, and the unattributed row. */
static struct gtm_snapshot *golden_snapshot(void)
{
	struct gtm_snapshot *s = snap_new();
	struct gtm_source_status *st = snapshot_add_source(s, "nvml");
	st->available = true;
	snapshot_add_source(s, "drm");

	struct gtm_device *d = snapshot_add_device(s);
	d->vendor = GTM_VENDOR_NVIDIA;
	str_copy(d->source, "nvml", sizeof d->source);
	str_copy(d->name, "NVIDIA H100 80GB HBM3", sizeof d->name);
	str_copy(d->uuid, "GPU-1111", sizeof d->uuid);
	str_copy(d->pci_bus_id, "0000:1a:00.0", sizeof d->pci_bus_id);
	str_copy(d->driver_version, "550.54.15", sizeof d->driver_version);
	d->mem_total = gtm_u64_of(85899345920ull, GTM_MEASURED);
	d->mem_used = gtm_u64_of(21474836480ull, GTM_MEASURED);
	d->mem_free = gtm_u64_of(64424509440ull, GTM_MEASURED);
	d->mem_reserved = gtm_u64_of(0, GTM_MEASURED); /* a measured zero is written */
	d->util_gpu_pct = gtm_f64_of(87, GTM_MEASURED);
	d->util_mem_pct = gtm_f64_of(12.5, GTM_MEASURED);
	d->temp_c = gtm_f64_of(64, GTM_MEASURED);
	d->power_w = gtm_f64_of(312.25, GTM_MEASURED);
	d->power_limit_w = gtm_f64_of(700, GTM_MEASURED);
	d->clock_sm_mhz = gtm_f64_of(1980, GTM_MEASURED);
	d->clock_mem_mhz = gtm_f64_of(2619, GTM_MEASURED);
	d->clock_sm_max_mhz = gtm_f64_of(1980, GTM_MEASURED);
	d->pcie_tx_bps = gtm_f64_of(1048576, GTM_MEASURED);
	d->pcie_rx_bps = gtm_f64_of(2097152, GTM_MEASURED);
	d->pcie_gen = gtm_f64_of(5, GTM_MEASURED);
	d->pcie_width = gtm_f64_of(16, GTM_MEASURED);
	d->enc_pct = gtm_f64_of(0, GTM_MEASURED);
	d->n_processes_seen = 6;
	d->driver_index = 0;
	d->energy_mj = gtm_u64_of(987654321, GTM_MEASURED);
	d->pcie_replays = gtm_u64_of(0, GTM_MEASURED);
	d->ecc_corrected = gtm_u64_of(2, GTM_MEASURED);
	d->ecc_uncorrected = gtm_u64_of(0, GTM_MEASURED);
	d->throttle_reasons = gtm_u64_of(0x4, GTM_MEASURED);

	d = snapshot_add_device(s);
	d->vendor = GTM_VENDOR_AMD;
	d->is_apu = false;
	str_copy(d->source, "drm", sizeof d->source);
	str_copy(d->name, "AMD Radeon \"RX\" 7900\\XTX", sizeof d->name); /* quotes and a backslash */
	str_copy(d->pci_bus_id, "0000:03:00.0", sizeof d->pci_bus_id);
	str_copy(d->driver, "amdgpu", sizeof d->driver);
	d->mem_total = gtm_u64_of(25769803776ull, GTM_MEASURED);
	d->mem_used = gtm_u64_of(1073741824ull, GTM_MEASURED);
	d->shared_total = gtm_u64_of(33554432000ull, GTM_MEASURED);
	d->shared_used = gtm_u64_of(52428800ull, GTM_MEASURED);
	d->fan_pct = gtm_f64_of(30, GTM_MEASURED);
	str_copy(d->engines[0].name, "gfx", sizeof d->engines[0].name);
	d->engines[0].busy_pct = gtm_f64_of(45, GTM_MEASURED);
	str_copy(d->engines[1].name, "compute", sizeof d->engines[1].name);
	d->engines[1].busy_pct = GTM_F64_NA; /* one sample so far */
	d->n_engines = 2;
	d->n_processes_seen = -1;

	/* llama-server: log segments on GPU 0 win over the estimate there */
	struct gtm_process *p = add_proc(s, 4242, "llama-server", GTM_OWNER_LOCAL);
	struct gtm_gpu_use *u = add_use(p, 0, 9663676416ll);
	u->sm_pct = gtm_f64_of(40, GTM_MEASURED);
	add_runtime(p, "llama.cpp", RT_T_AI | RT_T_GGUF);
	explain_of(p, "llama.cpp");
	struct ident_model *m = add_model(p, "/srv/models/Qwen3-8B-Q4_K_M.gguf", "Qwen3-8B-Q4_K_M.gguf",
					  EV(MODEL_EV_API) | EV(MODEL_EV_MAPPED) | EV(MODEL_EV_CMDLINE));
	m->have_info = true;
	m->info.kind = GGUF_KIND_LLM;
	str_copy(m->info.quant, "Q4_K_M", sizeof m->info.quant);
	add_model(p, "/srv/models/installed-only.gguf", "installed-only.gguf", EV(MODEL_EV_INSTALLED));
	add_seg(p, EX_SEG_WEIGHTS, EX_SRC_LOG, 0, false, 4683743232ull);
	add_seg(p, EX_SEG_KV, EX_SRC_LOG, 0, false, 1073741824ull);
	add_seg(p, EX_SEG_KV, EX_SRC_LOG, 0, false, 268435456ull); /* the SWA part: summed */
	add_seg(p, EX_SEG_COMPUTE, EX_SRC_LOG, 0, false, 301989888ull);
	add_seg(p, EX_SEG_OUTPUT, EX_SRC_LOG, 0, false, 622592ull);
	add_seg(p, EX_SEG_WEIGHTS, EX_SRC_LOG, -1, true, 333447168ull);   /* host memory: not a GPU's */
	add_seg(p, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, 0, false, 3335142912ull); /* not the model's */
	add_seg(p, EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, 0, false, 4700000000ull);  /* beside the log */
	add_seg(p, EX_SEG_KV, EX_SRC_ESTIMATE, 0, false, 1342177280ull);
	struct gtm_explain *x = explain_of(p, "llama.cpp");
	x->log.present = true;
	str_copy(x->log.state, "current", sizeof x->log.state);
	x->log.n_ctx = 16384;
	ex_server_init(&x->servers[0], 8080);
	x->n_servers = 1;
	x->servers[0].reachable = true;
	str_copy(x->servers[0].kind, "llama-server", sizeof x->servers[0].kind);
	x->servers[0].n_ctx_slot = gtm_u64_of(4096, GTM_REPORTED);
	x->servers[0].slots_total = gtm_u64_of(4, GTM_REPORTED);
	x->servers[0].slots_busy = gtm_u64_of(1, GTM_REPORTED);
	x->servers[0].gen.tps = gtm_f64_of(87.5, GTM_REPORTED);
	x->servers[0].kv_usage = gtm_f64_of(0.375, GTM_REPORTED); /* llamacpp:kv_cache_usage_ratio */
	x->servers[0].requests_running = gtm_u64_of(1, GTM_REPORTED);
	x->servers[0].requests_waiting = gtm_u64_of(0, GTM_REPORTED);
	ex_server_init(&x->servers[1], 8081); /* nothing answered there: no series */
	x->n_servers = 2;

	/* an Ollama runner: the API's one figure */
	p = add_proc(s, 5151, "ollama", GTM_OWNER_MATCHED);
	add_use(p, 0, 6442450944ll);
	add_runtime(p, "ollama", RT_T_AI);
	add_model(p, NULL, "qwen3:14b", EV(MODEL_EV_API));
	add_seg(p, EX_SEG_RUNTIME_TOTAL, EX_SRC_API, 0, false, 6000000000ull);
	str_copy(p->explain->runtime, "ollama", sizeof p->explain->runtime);

	/* only an estimate, on the AMD card; the planned placement is left out */
	p = add_proc(s, 6000, "python3", GTM_OWNER_LOCAL);
	u = add_use(p, 1, 536870912ll);
	u->spill = gtm_u64_of(52428800, GTM_MEASURED);
	u->gfx_pct = gtm_f64_of(12.5, GTM_MEASURED);
	add_runtime(p, "pytorch-rocm", RT_T_AI | RT_T_COMPUTE);
	add_seg(p, EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, 1, false, 400000000ull);
	add_seg(p, EX_SEG_RS, EX_SRC_ESTIMATE, 1, false, 1000000ull);
	add_seg(p, EX_SEG_KV, EX_SRC_ESTIMATE, 1, false, 50000000ull);
	p->explain->segs[p->explain->n_segs - 1].planned = true;

	/* a container's host PID, a Windows PID, withheld VRAM, unattributed bytes */
	p = add_proc(s, 0, "", GTM_OWNER_HOST);
	str_copy(p->label, "H:4000001", sizeof p->label);
	add_use(p, 0, 1073741824ll);
	p = add_proc(s, 0, "", GTM_OWNER_HOST);
	str_copy(p->label, "W:1234", sizeof p->label);
	add_use(p, 0, 536870912ll);
	p = add_proc(s, 7777, "Xorg\nfake", GTM_OWNER_LOCAL); /* a newline in comm */
	add_use(p, 0, -1);
	p = add_proc(s, 0, "", GTM_OWNER_UNATTRIBUTED);
	str_copy(p->label, "unattributed", sizeof p->label);
	add_use(p, 1, 104857600ll);
	return s;
}

static char *render_opts(const struct gtm_snapshot *s, const struct prom_opts *opts, int *duplicates)
{
	struct prom_out o;
	prom_out_init(&o);
	prom_render(s, opts, &o);
	char *text = xstrdup(o.text.p ? o.text.p : "");
	if (duplicates)
		*duplicates = o.duplicates;
	prom_out_free(&o);
	check_exposition(text);
	return text;
}

static char *render(const struct gtm_snapshot *s, int max_processes, int *duplicates)
{
	struct prom_opts opts = {.max_processes = max_processes, .collect_seconds = 0.0125, .version = "0.1.0", .os = "linux"};
	return render_opts(s, &opts, duplicates);
}

static void test_golden(void **state)
{
	char path[1024];
	int dups;
	(void)state;
	snprintf(path, sizeof path, "%s/tests/unit/prom/golden.prom", tu_source_root());
	struct gtm_snapshot *s = golden_snapshot();
	char *text = render(s, 32, &dups);
	assert_int_equal(dups, 0);
	if (getenv("GTM_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
	}
	char *want = tu_read_file(path, NULL);
	if (strcmp(text, want) != 0) {
		fprintf(stderr, "differs from %s; got:\n%s\n", path, text);
		fail();
	}
	free(want);
	free(text);
	snapshot_free(s);
}

/* The rules the golden file shows, asserted one by one so that a changed
 * golden cannot hide them. */
static void test_golden_rules(void **state)
{
	(void)state;
	struct gtm_snapshot *s = golden_snapshot();
	char *t = render(s, 32, NULL);
	/* log wins on GPU 0: no estimate, no remainder, no host segment for 4242 */
	assert_int_equal(count_lines(t, "gputaskman_model_memory_bytes{gpu=\"0\",pid=\"4242\""), 4);
	assert_null(strstr(t, "remainder"));
	assert_null(strstr(t, "segment=\"overhead\""));
	assert_true(value_of(t, "gputaskman_model_memory_bytes{gpu=\"0\",pid=\"4242\",model=\"Qwen3-8B-Q4_K_M.gguf\","
				"segment=\"kv_cache\",source=\"log\",uuid=\"GPU-1111\",pci_bus_id=\"00000000:1A:00.0\"}") ==
	       1073741824.0 + 268435456.0);
	/* the API's one figure is "other"; the estimate-only process keeps its estimate but not the planned KV */
	assert_int_equal(count_lines(t, "gputaskman_model_memory_bytes{gpu=\"0\",pid=\"5151\",model=\"qwen3:14b\",segment=\"other\",source=\"api\",uuid=\"GPU-1111\",pci_bus_id=\"00000000:1A:00.0\"} 6000000000"), 1);
	assert_int_equal(count_lines(t, "gputaskman_model_memory_bytes{gpu=\"1\",pid=\"6000\","), 2);
	assert_null(strstr(t, "pid=\"6000\",segment=\"kv_cache\""));
	/* installed-only models prove nothing: no info series */
	assert_null(strstr(t, "installed-only"));
	/* unavailable readings are absent: GPU 1 has no temperature, GPU 0 no fan; withheld VRAM has no series */
	assert_null(strstr(t, "gputaskman_gpu_temperature_celsius{gpu=\"1\""));
	assert_null(strstr(t, "gputaskman_gpu_fan_speed_ratio{gpu=\"0\""));
	assert_null(strstr(t, "engine=\"compute\""));
	assert_null(strstr(t, "gputaskman_process_gpu_memory_bytes{gpu=\"0\",pid=\"7777\""));
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"7777\""), 1);
	assert_null(strstr(t, "gputaskman_gpu_driver_processes{gpu=\"1\""));
	assert_null(strstr(t, "port=\"8081\""));
	assert_null(strstr(t, "NaN"));
	/* a measured zero is written */
	assert_true(value_of(t, "gputaskman_gpu_memory_reserved_bytes{gpu=\"0\"") == 0);
	/* owners: host and windows rows by their PID label */
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"H:4000001\",owner=\"host\"}"), 1);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"W:1234\",owner=\"windows\"}"), 1);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"5151\",process=\"ollama\",runtime=\"ollama\",owner=\"matched\""), 1);
	/* nothing from a command line, a path or a user */
	assert_null(strstr(t, "/srv/models"));
	free(t);
	snapshot_free(s);
}

/* A log segment whose GPU was only guessed by order (no bus id, no UUID, the
 * name not unique) is not exported: a series must not put a model on the
 * wrong GPU. The same segments joined by the log's bus id are. */
static void test_guessed_join_not_exported(void **state)
{
	(void)state;
	struct gtm_snapshot *s = golden_snapshot();
	struct gtm_process *p = NULL;
	for (int i = 0; i < s->n_processes; i++)
		if (s->processes[i].pid == 4242)
			p = &s->processes[i];
	assert_non_null(p);
	for (int i = 0; i < p->explain->n_segs; i++)
		if (p->explain->segs[i].src == EX_SRC_LOG && p->explain->segs[i].gpu >= 0)
			p->explain->segs[i].join = EX_JOIN_GUESS;
	char *t = render(s, 32, NULL);
	assert_int_equal(count_lines(t, "gputaskman_model_memory_bytes{gpu=\"0\",pid=\"4242\""), 2); /* the estimate's weights and KV */
	assert_null(strstr(t, "pid=\"4242\",model=\"Qwen3-8B-Q4_K_M.gguf\",segment=\"kv_cache\",source=\"log\""));
	assert_null(strstr(t, "pid=\"4242\",model=\"Qwen3-8B-Q4_K_M.gguf\",segment=\"weights\",source=\"log\""));
	free(t);
	for (int i = 0; i < p->explain->n_segs; i++)
		if (p->explain->segs[i].join == EX_JOIN_GUESS)
			p->explain->segs[i].join = EX_JOIN_PCI;
	t = render(s, 32, NULL);
	assert_int_equal(count_lines(t, "gputaskman_model_memory_bytes{gpu=\"0\",pid=\"4242\""), 4);
	free(t);
	snapshot_free(s);
}

static void test_escape(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{"plain", "plain"},
		{"a\"b", "a\\\"b"},
		{"back\\slash", "back\\\\slash"},
		{"two\nlines", "two\\nlines"},
		{"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80"}, /* valid UTF-8 kept */
		{"bad\xff" "byte", "bad\xef\xbf\xbd" "byte"},
		{"cut\xe6\x97", "cut\xef\xbf\xbd\xef\xbf\xbd"},          /* a truncated sequence: each byte replaced */
		{"over\xc0\x80long", "over\xef\xbf\xbd\xef\xbf\xbdlong"}, /* an overlong NUL */
		{"sur\xed\xa0\x80", "sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* a UTF-16 surrogate */
		{"tab\tkept", "tab\tkept"},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct prom_buf b = {0};
		prom_escape_label(&b, cases[i].in);
		assert_string_equal(b.p ? b.p : "", cases[i].out);
		prom_buf_free(&b);
	}
	struct prom_buf h = {0};
	prom_escape_help(&h, "a\\b\nc\"d");
	assert_string_equal(h.p, "a\\\\b\\nc\"d");
	prom_buf_free(&h);
	char num[40];
	assert_string_equal(prom_format_double(num, sizeof num, 0.87), "0.87");
	assert_string_equal(prom_format_double(num, sizeof num, 12), "12");
	assert_string_equal(prom_format_double(num, sizeof num, 700), "700");
	assert_string_equal(prom_format_double(num, sizeof num, 1.98e9), "1980000000");
	assert_string_equal(prom_format_double(num, sizeof num, -3), "-3");
	assert_string_equal(prom_format_double(num, sizeof num, 1e-7), "1e-07");
	assert_true(strtod(prom_format_double(num, sizeof num, 0.1 + 0.2), NULL) == 0.1 + 0.2);
}

/* 2 GPUs x 500 processes, cap 32: 32 kept on each GPU, its largest; the rest
 * summed per GPU into pid="other" and counted. */
static void test_cap(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snap_new();
	snapshot_add_device(s);
	snapshot_add_device(s);
	uint64_t total[2] = {0, 0}, kept[2] = {0, 0};
	for (int i = 0; i < 1000; i++) {
		char name[16];
		snprintf(name, sizeof name, "w%d", i);
		struct gtm_process *p = add_proc(s, (uint32_t)(1000 + i), name, GTM_OWNER_LOCAL);
		int64_t vram = (int64_t)(i + 1) << 20;
		add_use(p, i % 2, vram);
		total[i % 2] += (uint64_t)vram;
		if (i >= 1000 - 64)
			kept[i % 2] += (uint64_t)vram;
	}
	int dups;
	char *t = render(s, 32, &dups);
	assert_int_equal(dups, 0);
	assert_int_equal(count_lines(t, "gputaskman_process_info{"), 64);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"1999\""), 1); /* the largest */
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"1936\""), 1); /* GPU 0's 32nd */
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"1935\""), 0); /* GPU 1's 33rd */
	assert_true(value_of(t, "gputaskman_folded_processes{gpu=\"0\"}") == 468);
	assert_true(value_of(t, "gputaskman_folded_processes{gpu=\"1\"}") == 468);
	for (int g = 0; g < 2; g++) {
		char prefix[128];
		snprintf(prefix, sizeof prefix, "gputaskman_process_gpu_memory_bytes{gpu=\"%d\",pid=\"other\"", g);
		assert_true(value_of(t, prefix) == (double)(total[g] - kept[g]));
	}
	free(t);
	/* 0: every process folded; no process series at all */
	t = render(s, 0, NULL);
	assert_int_equal(count_lines(t, "gputaskman_process_info{"), 0);
	assert_true(value_of(t, "gputaskman_folded_processes{gpu=\"0\"}") == 500);
	assert_true(value_of(t, "gputaskman_process_gpu_memory_bytes{gpu=\"1\",pid=\"other\"") == (double)total[1]);
	free(t);
	snapshot_free(s);
}

/* The sum of the sample lines starting with prefix. */
static double sum_of(const char *text, const char *prefix)
{
	double sum = 0;
	size_t len = strlen(prefix);
	for (const char *l = text; *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, prefix, len)) {
			const char *sp = strchr(l, '\n');
			while (sp[-1] != ' ')
				sp--;
			sum += strtod(sp, NULL);
		}
	return sum;
}

/* WSL2: a 3 GiB device, the VM row 2 GiB measured, '*100' 1.5 GiB and '?101'
 * 0.5 GiB of it matched/guessed, a Windows app 100 MiB. Summing the memory
 * family by GPU never exceeds what is there: matched/guessed bytes are in the
 * inferred family only (never in the measured pid="other" fold), and the cap
 * ranks on measured VRAM alone. */
static void test_wsl_vm_parts(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snap_new();
	struct gtm_device *d = snapshot_add_device(s);
	d->mem_used = gtm_u64_of(3 * GIB, GTM_MEASURED);
	struct gtm_process *p = add_proc(s, 0, "vmwp.exe", GTM_OWNER_HOST);
	str_copy(p->label, "W:4242", sizeof p->label);
	p->wsl_vm_row = true;
	add_use(p, 0, 2 * GIB);
	const struct { uint32_t pid; enum gtm_owner owner; enum gtm_prov prov; uint64_t vram; } part[] = {
		{100, GTM_OWNER_MATCHED, GTM_MATCHED, 3 * GIB / 2}, {101, GTM_OWNER_GUESSED, GTM_GUESSED, GIB / 2}};
	for (int i = 0; i < 2; i++) {
		p = add_proc(s, part[i].pid, "llama-server", part[i].owner);
		p->vram_inferred_by = "wsl-context-match";
		add_use(p, 0, -1)->vram = gtm_u64_of(part[i].vram, part[i].prov);
	}
	p = add_proc(s, 0, "chrome.exe", GTM_OWNER_HOST);
	str_copy(p->label, "W:9000", sizeof p->label);
	add_use(p, 0, 100 * MIB);
	const char *mem = "gputaskman_process_gpu_memory_bytes{gpu=\"0\"";
	for (int cap = 0; cap <= 4; cap++) {
		char *t = render(s, cap, NULL);
		double measured = sum_of(t, mem);
		if (measured > 3.0 * GIB)
			fail_msg("cap %d: the memory family sums to %.0f on a 3 GiB device:\n%s", cap, measured, t);
		assert_true(measured == 2.0 * GIB + 100 * MIB); /* the VM and the app, each once */
		free(t);
	}
	char *t = render(s, 2, NULL); /* the two measured rows are kept, not the matched one */
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"W:9000\""), 1);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"100\""), 0);
	free(t);
	t = render(s, 4, NULL);
	assert_int_equal(count_lines(t, "gputaskman_process_gpu_memory_bytes{gpu=\"0\",pid=\"100\""), 0);
	assert_true(value_of(t, "gputaskman_process_gpu_memory_inferred_bytes{gpu=\"0\",pid=\"100\"") == 1.5 * GIB);
	assert_int_equal(count_lines(t, "gputaskman_process_gpu_memory_inferred_bytes{gpu=\"0\",pid=\"101\","
					"process=\"llama-server\",owner=\"guessed\",pool=\"device\",provenance=\"guessed\"} "),
			 1);
	assert_int_equal(count_lines(t, "gputaskman_process_gpu_memory_inferred_bytes{gpu=\"0\",pid=\"W:"), 0);
	free(t);
	snapshot_free(s);
}

/* A device and a process with nothing measured: identity only, no zeros. */
static void test_nulls_omitted(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snap_new();
	struct gtm_device *d = snapshot_add_device(s);
	d->vendor = GTM_VENDOR_INTEL;
	d->n_processes_seen = -1;
	struct gtm_process *p = add_proc(s, 99, "game", GTM_OWNER_LOCAL);
	add_use(p, 0, -1);
	char *t = render(s, 32, NULL);
	assert_int_equal(count_lines(t, "gputaskman_gpu_info{gpu=\"0\",vendor=\"intel\"} 1"), 1);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"99\",process=\"game\",owner=\"local\"} 1"), 1);
	static const char *const absent[] = {
		"gputaskman_gpu_memory", "gputaskman_gpu_utilization", "gputaskman_gpu_engine", "gputaskman_gpu_temperature",
		"gputaskman_gpu_power", "gputaskman_gpu_clock", "gputaskman_gpu_pcie", "gputaskman_gpu_fan",
		"gputaskman_gpu_driver_processes", "gputaskman_process_gpu_memory", "gputaskman_process_engine",
		"gputaskman_model_", "gputaskman_server_",
	};
	for (size_t i = 0; i < ARRAY_LEN(absent); i++)
		if (count_lines(t, absent[i]) || strstr(t, absent[i])) {
			fprintf(stderr, "%s present with nothing measured:\n%s\n", absent[i], t);
			fail();
		}
	assert_true(value_of(t, "gputaskman_folded_processes{gpu=\"0\"}") == 0);
	free(t);
	snapshot_free(s);
}

/* Two uses of one device by one process are one series (their sum); a
 * repeated model is written once and counted as dropped. */
static void test_no_series_twice(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snap_new();
	snapshot_add_device(s);
	struct gtm_process *p = add_proc(s, 10, "twice", GTM_OWNER_LOCAL);
	add_use(p, 0, 100);
	add_use(p, 0, 23);
	add_model(p, "/a/m.gguf", "m", EV(MODEL_EV_MAPPED));
	add_model(p, "/b/m.gguf", "m", EV(MODEL_EV_MAPPED));
	int dups;
	char *t = render(s, 32, &dups);
	assert_true(value_of(t, "gputaskman_process_gpu_memory_bytes{gpu=\"0\",pid=\"10\"") == 123);
	assert_int_equal(count_lines(t, "gputaskman_model_info{"), 1);
	assert_int_equal(dups, 1);
	free(t);
	/* one of the two withheld: the sum is not known */
	p->uses[1].vram = GTM_U64_NA;
	t = render(s, 32, NULL);
	assert_null(strstr(t, "gputaskman_process_gpu_memory_bytes"));
	free(t);
	snapshot_free(s);
}


/* Stable identity: gpu is the driver's index whatever the display order,
 * pci_bus_id in dcgm-exporter's form, MIG instances on process series. */
static void test_identity(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snap_new();
	struct gtm_device *d = snapshot_add_device(s);
	str_copy(d->source, "nvml", sizeof d->source);
	str_copy(d->uuid, "GPU-bbbb", sizeof d->uuid);
	str_copy(d->pci_bus_id, "0000:42:00.0", sizeof d->pci_bus_id);
	d->driver_index = 1; /* shown first, NVML's device 1 */
	d->mem_total = gtm_u64_of(1 << 30, GTM_MEASURED);
	d = snapshot_add_device(s);
	str_copy(d->source, "nvml", sizeof d->source);
	str_copy(d->uuid, "GPU-aaaa", sizeof d->uuid);
	d->driver_index = 0;
	struct gtm_process *p = add_proc(s, 100, "train", GTM_OWNER_LOCAL);
	struct gtm_gpu_use *u = add_use(p, 0, 1 << 20);
	u->mig = true;
	u->gpu_instance_id = 2;
	u->compute_instance_id = 0;
	char *t = render(s, 32, NULL);
	assert_int_equal(count_lines(t, "gputaskman_gpu_memory_total_bytes{gpu=\"1\",uuid=\"GPU-bbbb\",pci_bus_id=\"00000000:42:00.0\",pool=\"device\"} 1073741824"), 1);
	assert_int_equal(count_lines(t, "gputaskman_gpu_info{gpu=\"0\",uuid=\"GPU-aaaa\""), 1);
	assert_int_equal(count_lines(t, "gputaskman_process_gpu_memory_bytes{gpu=\"1\",pid=\"100\",process=\"train\",owner=\"local\","
					"uuid=\"GPU-bbbb\",pci_bus_id=\"00000000:42:00.0\",gpu_instance_id=\"2\",compute_instance_id=\"0\",pool=\"device\"} 1048576"), 1);
	free(t);
	snapshot_free(s);
}

/* A lost GPU: gpu_up 0 and the reason in its own series, no name taken
 * from the error, no process count; the other card and the source are up. */
static void test_lost_gpu(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snap_new();
	struct gtm_source_status *st = snapshot_add_source(s, "nvml");
	st->available = true;
	st->failed = true; /* one device failed: the source's message names it */
	for (int i = 0; i < 2; i++) {
		struct gtm_device *d = snapshot_add_device(s);
		str_copy(d->source, "nvml", sizeof d->source);
		d->driver_index = i;
		d->n_processes_seen = i ? -1 : 0;
		if (i) {
			str_copy(d->name, "NVML device 1: GPU is lost", sizeof d->name);
			d->name_unread = true;
			str_copy(d->fault_call, "nvmlDeviceGetHandleByIndex", sizeof d->fault_call);
			str_copy(d->fault_reason, "GPU is lost", sizeof d->fault_reason);
		} else {
			str_copy(d->name, "Card A", sizeof d->name);
			str_copy(d->uuid, "GPU-a", sizeof d->uuid);
		}
	}
	char *t = render(s, 32, NULL);
	assert_true(value_of(t, "gputaskman_source_up{source=\"nvml\"}") == 1);
	assert_true(value_of(t, "gputaskman_gpu_up{gpu=\"0\",uuid=\"GPU-a\"}") == 1);
	assert_true(value_of(t, "gputaskman_gpu_up{gpu=\"1\"}") == 0);
	assert_int_equal(count_lines(t, "gputaskman_gpu_error_info{gpu=\"1\",call=\"nvmlDeviceGetHandleByIndex\",reason=\"GPU is lost\"} 1"), 1);
	assert_int_equal(count_lines(t, "gputaskman_gpu_error_info{"), 1);
	assert_null(strstr(t, "GPU is lost\",vendor"));
	assert_null(strstr(t, "name=\"NVML device"));
	assert_int_equal(count_lines(t, "gputaskman_gpu_driver_processes{gpu=\"1\""), 0);
	assert_true(value_of(t, "gputaskman_gpu_driver_processes{gpu=\"0\"") == 0);
	free(t);
	/* every device failed: the source is down */
	str_copy(s->devices[0].fault_reason, "GPU is lost", sizeof s->devices[0].fault_reason);
	t = render(s, 32, NULL);
	assert_true(value_of(t, "gputaskman_source_up{source=\"nvml\"}") == 0);
	free(t);
	snapshot_free(s);
}

/* The driver's counters as counters; the throttle bitmask by name. */
static void test_counters(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snap_new();
	struct gtm_device *d = snapshot_add_device(s);
	d->energy_mj = gtm_u64_of(123456789, GTM_MEASURED);
	d->pcie_replays = gtm_u64_of(7, GTM_MEASURED);
	d->ecc_corrected = gtm_u64_of(3, GTM_MEASURED);
	d->throttle_reasons = gtm_u64_of(0x44 | 0x10000, GTM_MEASURED);
	d->power_w = gtm_f64_of(300, GTM_MEASURED);
	d = snapshot_add_device(s); /* nothing: no counter series */
	d->throttle_reasons = gtm_u64_of(0, GTM_MEASURED);
	char *t = render(s, 32, NULL);
	assert_int_equal(count_lines(t, "# TYPE gputaskman_gpu_energy_joules_total counter"), 1);
	assert_true(value_of(t, "gputaskman_gpu_energy_joules_total{gpu=\"0\"}") == 123456.789);
	assert_int_equal(count_lines(t, "gputaskman_gpu_energy_joules_total{"), 1);
	assert_true(value_of(t, "gputaskman_gpu_pcie_replays_total{gpu=\"0\"}") == 7);
	assert_true(value_of(t, "gputaskman_gpu_ecc_errors_total{gpu=\"0\",error=\"corrected\"}") == 3);
	assert_null(strstr(t, "error=\"uncorrected\""));
	assert_int_equal(count_lines(t, "gputaskman_gpu_clock_throttle_reasons_info{gpu=\"0\",mask=\"0x0000000000010044\","
					"reasons=\"sw_power_cap,hw_thermal_slowdown,other\"} 1"), 1);
	assert_int_equal(count_lines(t, "gputaskman_gpu_clock_throttle_reasons_info{gpu=\"1\",mask=\"0x0000000000000000\",reasons=\"none\"} 1"), 1);
	free(t);
	snapshot_free(s);
}

static char *render_with(const struct gtm_snapshot *s, int max_processes, struct prom_memory *m)
{
	struct prom_opts opts = {.max_processes = max_processes, .version = "0.1.0", .os = "linux", .memory = m};
	return render_opts(s, &opts, NULL);
}

/* Two processes at a cut of 1: the kept one keeps its series while the
 * other is less than a quarter larger, and loses it once clearly behind. */
static void test_hysteresis(void **state)
{
	(void)state;
	struct prom_memory *m = prom_memory_new();
	struct gtm_snapshot *s = snap_new();
	snapshot_add_device(s);
	add_use(add_proc(s, 10, "a", GTM_OWNER_LOCAL), 0, 1000ll << 20);
	add_use(add_proc(s, 11, "b", GTM_OWNER_LOCAL), 0, 900ll << 20);
	struct gtm_process *a = &s->processes[0], *b = &s->processes[1]; /* the array is grown no more */
	const int64_t b_sizes[] = {1100, 950, 1200, 1240, 1300};
	const char *kept[] = {"10", "10", "10", "10", "11"};
	char *t = render_with(s, 1, m);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"10\""), 1);
	free(t);
	for (size_t i = 0; i < ARRAY_LEN(b_sizes); i++) {
		char want[64];
		b->uses[0].vram = gtm_u64_of((uint64_t)b_sizes[i] << 20, GTM_MEASURED);
		t = render_with(s, 1, m);
		snprintf(want, sizeof want, "gputaskman_process_info{pid=\"%s\"", kept[i]);
		if (count_lines(t, want) != 1) {
			fprintf(stderr, "step %zu (b %lld MiB): expected %s kept\n%s", i, (long long)b_sizes[i], kept[i], t);
			fail();
		}
		assert_int_equal(count_lines(t, "gputaskman_process_info{"), 1);
		free(t);
	}
	/* without memory (one render) the larger wins at once */
	b->uses[0].vram = gtm_u64_of(1100ull << 20, GTM_MEASURED);
	a->uses[0].vram = gtm_u64_of(1000ull << 20, GTM_MEASURED);
	t = render(s, 1, NULL);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"11\""), 1);
	free(t);
	/* ranked per GPU: a small card's process is not folded because of a big card's */
	snapshot_add_device(s);
	add_use(add_proc(s, 12, "c", GTM_OWNER_LOCAL), 1, 1 << 20);
	t = render(s, 1, NULL);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"12\""), 1);
	assert_int_equal(count_lines(t, "gputaskman_process_info{"), 2);
	free(t);
	snapshot_free(s);
	prom_memory_free(m);
}

/* An exited owner the driver still lists is folded, never its own series:
 * neither as '*x' nor, once the pairing is forgotten, as a new H: row. */
static void test_exited_folded(void **state)
{
	(void)state;
	struct prom_memory *m = prom_memory_new();
	struct gtm_snapshot *s = snap_new();
	snapshot_add_device(s);
	struct gtm_process *p = add_proc(s, 300, "worker", GTM_OWNER_MATCHED);
	p->host_pid = 4000300;
	add_use(p, 0, 1 << 30)->source_pid = 4000300;
	char *t = render_with(s, 32, m);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"300\""), 1);
	free(t);
	snapshot_free(s);
	/* the local process exited; the driver still lists the host PID */
	s = snap_new();
	snapshot_add_device(s);
	p = add_proc(s, 0, "worker", GTM_OWNER_EXITED);
	p->exited_pid = 300;
	p->host_pid = 4000300;
	str_copy(p->label, "*x300", sizeof p->label);
	add_use(p, 0, 1 << 30)->source_pid = 4000300;
	t = render_with(s, 32, m);
	assert_int_equal(count_lines(t, "gputaskman_process_info{"), 0);
	assert_true(value_of(t, "gputaskman_process_gpu_memory_bytes{gpu=\"0\",pid=\"other\"") == 1 << 30);
	assert_true(value_of(t, "gputaskman_folded_processes{gpu=\"0\"}") == 1);
	free(t);
	snapshot_free(s);
	/* the pairing is forgotten: the same host PID as a host row, twice */
	for (int round = 0; round < 2; round++) {
		s = snap_new();
		snapshot_add_device(s);
		p = add_proc(s, 0, "", GTM_OWNER_HOST);
		p->host_pid = 4000300;
		str_copy(p->label, "H:4000300", sizeof p->label);
		add_use(p, 0, 1 << 30)->source_pid = 4000300;
		t = render_with(s, 32, m);
		assert_null(strstr(t, "H:4000300"));
		assert_true(value_of(t, "gputaskman_folded_processes{gpu=\"0\"}") == 1);
		free(t);
		snapshot_free(s);
	}
	/* the driver let it go for one collection: a host row seen afresh is its own */
	s = snap_new();
	snapshot_add_device(s);
	t = render_with(s, 32, m);
	free(t);
	snapshot_free(s);
	s = snap_new();
	snapshot_add_device(s);
	p = add_proc(s, 0, "", GTM_OWNER_HOST);
	p->host_pid = 4000300;
	str_copy(p->label, "H:4000300", sizeof p->label);
	add_use(p, 0, 1 << 20)->source_pid = 4000300;
	t = render_with(s, 32, m);
	assert_int_equal(count_lines(t, "gputaskman_process_info{pid=\"H:4000300\""), 1);
	free(t);
	snapshot_free(s);
	prom_memory_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_golden_rules),
		cmocka_unit_test(test_guessed_join_not_exported),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_nulls_omitted),
		cmocka_unit_test(test_no_series_twice),
		cmocka_unit_test(test_wsl_vm_parts),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_lost_gpu),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_hysteresis),
		cmocka_unit_test(test_exited_folded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
