/* explain_process end to end inside one test process: a snapshot row for this
 * very process (so its start time is real) with a llama-server command line,
 * a log written by the test (the real capture's lines, or crafted CUDA ones),
 * a replay server on loopback, an Ollama runner and a Handy home folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "explain/breakdown.h"
#include "explain/explain.h"
#include "llm/estimate.h"
#include "identify/ident.h"
#include "standin_server_http.h"
#include "views/explain_text.h"
#include "testutil.h"

static uint64_t self_start_time(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	unsigned long long st = 0;
	/* fields after the comm: state(3) ... starttime(22) */
	int field = 2;
	for (p++; *p && field < 21; p++)
		if (*p == ' ')
			field++;
	sscanf(p, "%llu", &st);
	return st;
}

static struct gtm_proc_detail *detail_new(const char *const *argv, const char *cwd, const char *env)
{
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	while (argv[d->argc])
		d->argc++;
	d->argv = xcalloc((size_t)d->argc + 1, sizeof *d->argv);
	for (int i = 0; i < d->argc; i++)
		d->argv[i] = xstrdup(argv[i]);
	d->exe = xstrdup(argv[0]);
	d->cwd = cwd ? xstrdup(cwd) : NULL;
	if (env) {
		size_t len = strlen(env) + 1;
		char *blob = xstrdup(env);
		for (size_t i = 0; i < len; i++)
			if (blob[i] == '\n')
				blob[i] = 0;
		proc_detail_set_environ(d, blob, len);
		free(blob);
	}
	return d;
}

/* A row for this very process; maps (NULL-terminated, may be NULL) are the
 * mapped files identification sees. */
static struct gtm_process *add_proc_maps(struct gtm_snapshot *s, struct identify_ctx *ic, const char *name,
					 const char *const *argv, const char *cwd, const char *env,
					 const char *const *maps)
{
	struct gtm_process *p = snapshot_add_process(s);
	p->pid = (uint32_t)getpid();
	p->ppid = (uint32_t)getppid();
	p->start_time = self_start_time();
	str_copy(p->name, name, sizeof p->name);
	p->detail = detail_new(argv, cwd, env);
	size_t n = 0;
	while (maps && maps[n])
		n++;
	p->detail->maps = xcalloc(n + 1, sizeof *p->detail->maps);
	for (size_t i = 0; i < n; i++)
		p->detail->maps[i] = xstrdup(maps[i]);
	p->detail->n_maps = n;
	identify_process(ic, p);
	return p;
}

static struct gtm_process *add_proc(struct gtm_snapshot *s, struct identify_ctx *ic, const char *name,
				    const char *const *argv, const char *cwd, const char *env)
{
	return add_proc_maps(s, ic, name, argv, cwd, env, NULL);
}

static const struct ex_segment *seg(const struct gtm_explain *e, enum ex_seg k, enum ex_src src, const char *dev)
{
	for (int i = 0; i < e->n_segs; i++)
		if (e->segs[i].seg == k && e->segs[i].src == src && (!dev || !strcmp(e->segs[i].device, dev)))
			return &e->segs[i];
	return NULL;
}

static bool has_note(const struct gtm_explain *e, const char *needle)
{
	for (int i = 0; i < e->n_notes; i++)
		if (strstr(e->notes[i], needle))
			return true;
	return false;
}

static const char cuda_log[] =
	"0.00.002.443 I cmn  common_param: common_params_print_info: build 10470 (34af94cd9) with GNU 12.2.0 for Linux x86_64\n"
	"0.00.002.443 I cmn  common_param: common_params_print_info: verbosity = 4 (adjust with the `-lv N` CLI arg)\n"
	"0.00.004.073 I srv    load_model: loading model '/m/qwen3-0.6b-q8_0.gguf'\n"
	"0.00.010.000 I llama_prepare_model_devices: using device CUDA0 (NVIDIA Test GPU) (0000:01:00.0) - 23000 MiB free\n"
	"0.00.138.300 I load_tensors:        CUDA0 model buffer size =   604.15 MiB\n"
	"0.00.138.301 I load_tensors:   CPU_Mapped model buffer size =   157.65 MiB\n"
	"0.00.139.131 I llama_context:  CUDA_Host  output buffer size =     2.32 MiB\n"
	"0.00.139.177 I llama_kv_cache:      CUDA0 KV buffer size =   896.00 MiB\n"
	"0.00.143.437 I llama_kv_cache: size =  896.00 MiB (  8192 cells,  28 layers,  4/1 seqs), K (f16):  448.00 MiB, V (f16):  448.00 MiB\n"
	"0.00.144.182 I sched_reserve:      CUDA0 compute buffer size =   264.04 MiB\n"
	"0.00.144.183 I sched_reserve:  CUDA_Host compute buffer size =    24.01 MiB\n"
	"0.00.147.271 I srv    load_model: initializing, n_slots = 4, n_ctx_slot = 8192, kv_unified = 'true'\n"
	"0.00.150.300 I srv  llama_server: model loaded\n";

struct fixture {
	char *dir;
	struct gtm_snapshot *snap;
	struct identify_ctx *ic;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	f->dir = tu_tempdir();
	f->snap = snapshot_new();
	f->ic = identify_ctx_new();
	struct gtm_device *d = snapshot_add_device(f->snap);
	d->index = 0;
	d->vendor = GTM_VENDOR_NVIDIA;
	str_copy(d->pci_bus_id, "00000000:01:00.0", sizeof d->pci_bus_id);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	snapshot_free(f->snap);
	identify_ctx_free(f->ic);
	tu_rmrf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static void test_cuda_log_breakdown(void **state)
{
	struct fixture *f = *state;
	char path[1024];
	snprintf(path, sizeof path, "%s/server.log", f->dir);
	tu_write_file(path, cuda_log, sizeof cuda_log - 1);
	const char *argv[] = {"/opt/llama.cpp/bin/llama-server", "-m", "/m/qwen3-0.6b-q8_0.gguf", "-c", "8192",
			      "--log-file", "server.log", "-lv", "4", NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "llama-server", argv, f->dir, "HOME=/nonexistent");
	struct gtm_gpu_use *u = process_add_use(p);
	u->dev_index = 0;
	u->vram = gtm_u64_of(2000ull << 20, GTM_MEASURED);
	struct explain_ctx *c = explain_ctx_new(false);
	assert_true(ident_is_ai(p->ident));
	explain_process(c, f->snap, p);
	const struct gtm_explain *e = p->explain;
	assert_non_null(e);
	assert_string_equal(e->runtime, "llama.cpp");
	assert_true(e->log.present);
	assert_string_equal(e->log.state, "current");
	assert_string_equal(e->log.model, "/m/qwen3-0.6b-q8_0.gguf");
	assert_int_equal(e->log.n_kv, 1);
	const struct ex_segment *w = seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0");
	assert_non_null(w);
	assert_int_equal(w->gpu, 0); /* mapped through the log's PCI address */
	assert_int_equal(w->bytes.prov, GTM_REPORTED);
	const struct ex_segment *m = seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CPU_Mapped");
	assert_true(m->host);
	/* remainder = measured - (weights + KV + compute on CUDA0) */
	const struct ex_segment *o = seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, NULL);
	assert_non_null(o);
	uint64_t rep = (uint64_t)(604.15 * 1048576 + 0.5) + (896ull << 20) + (uint64_t)(264.04 * 1048576 + 0.5);
	assert_int_equal(o->bytes.v, (2000ull << 20) - rep);
	/* the measured reading itself is untouched */
	assert_int_equal(p->uses[0].vram.v, 2000ull << 20);
	assert_true(has_note(e, "allocated at load time"));
	/* the log's model became log evidence */
	bool found = false;
	for (int i = 0; i < p->ident->n_models; i++)
		if (p->ident->models[i].path && !strcmp(p->ident->models[i].path, "/m/qwen3-0.6b-q8_0.gguf")) {
			found = (p->ident->models[i].evidence & (1u << MODEL_EV_LOG)) != 0;
			/* its detail names the log ("log: log" said nothing) */
			const char *d = p->ident->models[i].evidence_detail[MODEL_EV_LOG];
			assert_non_null(d);
			assert_non_null(strstr(d, "server.log"));
		}
	assert_true(found);

	/* the same file unchanged: the cached parse gives the same answer */
	explain_process(c, f->snap, p);
	assert_string_equal(p->explain->log.state, "current");
	/* appended lines are parsed on from the cached state: a reload becomes current */
	FILE *fp = fopen(path, "a");
	fputs("0.09.000.000 I srv    load_model: loading model '/m/other.gguf'\n"
	      "0.09.001.000 I load_tensors:        CUDA0 model buffer size =   100.00 MiB\n", fp);
	fclose(fp);
	explain_process(c, f->snap, p);
	assert_string_equal(p->explain->log.model, "/m/other.gguf");
	assert_int_equal(seg(p->explain, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0")->bytes.v, 100ull << 20);
	assert_string_equal(p->explain->log.history[0].model, "/m/qwen3-0.6b-q8_0.gguf");
	/* a log last written before the process started is history only */
	struct timeval tv[2] = {{1000000000, 0}, {1000000000, 0}};
	utimes(path, tv);
	explain_process(c, f->snap, p);
	assert_string_equal(p->explain->log.state, "history-only");
	assert_null(seg(p->explain, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0"));
	assert_true(p->explain->log.n_history >= 1);
	explain_ctx_free(c);
}

/* A long-running server: its load block is at the start of its log, more
 * than 512 KiB of request lines ago. The figures are still found. */
static void test_load_block_beyond_the_tail(void **state)
{
	struct fixture *f = *state;
	char path[1024];
	snprintf(path, sizeof path, "%s/server.log", f->dir);
	tu_write_file(path, cuda_log, sizeof cuda_log - 1);
	FILE *fp = fopen(path, "a");
	assert_non_null(fp);
	for (int i = 0; i < 9000; i++)
		fprintf(fp, "0.01.000.000 I slot launch_slot_: id  3 | task %d | processing task, is_child = 0\n", i);
	fclose(fp);
	const char *argv[] = {"/opt/llama.cpp/bin/llama-server", "-m", "/m/qwen3-0.6b-q8_0.gguf", "-c", "8192",
			      "--log-file", "server.log", "-lv", "4", NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "llama-server", argv, f->dir, "HOME=/nonexistent");
	struct gtm_gpu_use *u = process_add_use(p);
	u->dev_index = 0;
	u->vram = gtm_u64_of(2000ull << 20, GTM_MEASURED);
	struct explain_ctx *c = explain_ctx_new(false);
	explain_process(c, f->snap, p);
	const struct gtm_explain *e = p->explain;
	assert_non_null(e);
	assert_string_equal(e->log.state, "current");
	const struct ex_segment *w = seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0");
	assert_non_null(w);
	assert_int_equal(w->bytes.v, (uint64_t)(604.15 * 1048576 + 0.5));
	explain_ctx_free(c);
}

static void test_default_verbosity_hint(void **state)
{
	struct fixture *f = *state;
	const char *dir = tu_shared_fixture("llama");
	if (!dir)
		skip();
	char src[1024], dst[1024];
	snprintf(src, sizeof src, "%s/llama-f16-c4096-defaultverbosity/server.log", dir);
	size_t n;
	char *log = tu_read_file(src, &n);
	snprintf(dst, sizeof dst, "%s/dv.log", f->dir);
	tu_write_file(dst, log, n);
	free(log);
	const char *argv[] = {"/opt/llama.cpp/bin/llama-server", "-m", "/srv/models/tiny-llama-f16.gguf", "--log-file", dst, NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "llama-server", argv, "/", NULL);
	struct explain_ctx *c = explain_ctx_new(false);
	explain_process(c, f->snap, p);
	const struct gtm_explain *e = p->explain;
	assert_string_equal(e->log.state, "current");
	assert_false(e->log.has_buffers);
	assert_int_equal(e->log.n_slots, 4);
	assert_int_equal(e->log.verbosity, 3);
	assert_true(has_note(e, "-lv 4"));
	assert_int_equal(e->n_segs, 0);
	explain_ctx_free(c);
}

static void test_probe_api_evidence_and_budget(void **state)
{
	struct fixture *f = *state;
	const char *dir = tu_shared_fixture("llama");
	if (!dir)
		skip();
	char path[1024];
	snprintf(path, sizeof path, "%s/qwen3-f16-c4096/props.json", dir);
	char *props = tu_read_file(path, NULL);
	struct replay_route r[] = {{"/props", 200, props, REPLAY_NORMAL}, {"/slots", 501, "{\"error\":{\"code\":501,\"type\":\"not_supported_error\"}}", REPLAY_NORMAL}};
	struct replay_server *rs = replay_start(r, 2, false, 0);
	const char *argv[] = {"/opt/llama.cpp/bin/llama-server", "-m", "/srv/models/tiny-qwen3-f16.gguf", NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "llama-server", argv, "/", NULL);
	p->ports[p->n_ports++] = replay_port(rs);
	struct explain_ctx *c = explain_ctx_new(true);
	explain_process(c, f->snap, p);
	const struct gtm_explain *e = p->explain;
	assert_int_equal(e->n_servers, 1);
	assert_string_equal(e->servers[0].kind, "llama-server");
	assert_int_equal(e->servers[0].slots_total.v, 4);
	unsigned ev = 0;
	for (int i = 0; i < p->ident->n_models; i++)
		if (p->ident->models[i].path && !strcmp(p->ident->models[i].path, "/srv/models/tiny-qwen3-f16.gguf"))
			ev = p->ident->models[i].evidence;
	assert_true(ev & (1u << MODEL_EV_API));
	assert_true(ev & (1u << MODEL_EV_CMDLINE));
	int hits = replay_hits(rs);
	/* the next refresh inside the interval reuses the cached facts */
	f->snap->monotonic_ns++;
	explain_process(c, f->snap, p);
	assert_int_equal(replay_hits(rs), hits);
	assert_int_equal(p->explain->servers[0].slots_total.v, 4);
	explain_ctx_free(c);
	replay_stop(rs);
	free(props);

	/* a silent server: the refresh pays one timeout, the next process is deferred */
	struct replay_route hang[] = {{NULL, 0, NULL, REPLAY_HANG}};
	rs = replay_start(hang, 1, false, 0);
	setenv("GTM_PROBE_TIMEOUT_MS", "200", 1);
	setenv("GTM_PROBE_BUDGET_MS", "200", 1);
	c = explain_ctx_new(true);
	p->ports[0] = replay_port(rs);
	struct gtm_process *q = add_proc(f->snap, f->ic, "llama-server", argv, "/", NULL);
	q->start_time++; /* another process for the cache */
	q->ports[q->n_ports++] = replay_port(rs);
	f->snap->monotonic_ns++;
	uint64_t t0 = now_monotonic_ns();
	explain_process(c, f->snap, &f->snap->processes[0]);
	explain_process(c, f->snap, q);
	uint64_t ms = (now_monotonic_ns() - t0) / 1000000u;
	print_message("two processes behind a silent server: %llu ms (budget 200)\n", (unsigned long long)ms);
	assert_true(ms < 30000); /* a hang guard: the deferral below is the check, not the time */
	assert_true(has_note(q->explain, "deferred") || q->explain->servers[0].eps[0].state == EP_NOT_PROBED);
	unsetenv("GTM_PROBE_TIMEOUT_MS");
	unsetenv("GTM_PROBE_BUDGET_MS");
	explain_ctx_free(c);
	replay_stop(rs);
}

/* A port that answers bytes that are not HTTP, and one whose HTTP answers
 * are not the runtime's JSON: every figure N/A, each endpoint's state
 * "garbage", and a note naming the port; the log's breakdown goes on. */
static void test_probe_garbage(void **state)
{
	struct fixture *f = *state;
	struct replay_route junk[] = {{NULL, 0, NULL, REPLAY_GARBAGE}};
	struct replay_route html[] = {{NULL, 200, "<html>not json</html>", REPLAY_NORMAL}};
	const char *argv[] = {"/opt/llama.cpp/bin/llama-server", "-m", "/srv/models/tiny-qwen3-f16.gguf", NULL};
	struct replay_server *rs[] = {replay_start(junk, 1, false, 0), replay_start(html, 1, false, 0)};
	const char *why[] = {"not HTTP", "not the runtime's JSON"};
	for (int k = 0; k < 2; k++) {
		struct gtm_process *p = add_proc(f->snap, f->ic, "llama-server", argv, "/", NULL);
		p->start_time += (uint64_t)k + 1;
		p->ports[p->n_ports++] = replay_port(rs[k]);
		struct explain_ctx *c = explain_ctx_new(true);
		explain_process(c, f->snap, p);
		const struct gtm_explain *e = p->explain;
		assert_int_equal(e->n_servers, 1);
		const struct ex_server *s = &e->servers[0];
		assert_false(gtm_u64_ok(s->slots_total));
		assert_false(gtm_u64_ok(s->n_ctx_slot));
		assert_int_equal(s->eps[0].state, EP_GARBAGE);
		char note[64];
		snprintf(note, sizeof note, "local API :%u:", replay_port(rs[k]));
		assert_true(has_note(e, note));
		assert_true(has_note(e, why[k]));
		assert_true(has_note(e, "figures are N/A"));
		/* the text view says what answered, not that nothing did */
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		explain_text_print(out, e, "");
		fclose(out);
		assert_non_null(strstr(text, k == 0 ? "unknown (answers not HTTP)" : "unknown;"));
		assert_null(strstr(text, "(no answer)"));
		free(text);
		explain_ctx_free(c);
		replay_stop(rs[k]);
	}
}

static void test_ollama_runner(void **state)
{
	struct fixture *f = *state;
	char logdir[1024], path[1100], env[2048], line[1024];
	snprintf(logdir, sizeof logdir, "%s/home/.ollama/logs", f->dir);
	tu_mkdirs(logdir);
	snprintf(path, sizeof path, "%s/server.log", logdir);
	/* times after this process started */
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];
	gmtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
	FILE *fp = fopen(path, "w");
	fprintf(fp, "time=%s level=INFO source=server.go:383 msg=\"starting runner\" cmd=\"/usr/bin/ollama runner --ollama-engine --model /h/blobs/sha256-aa --port 40111\"\n", ts);
	fprintf(fp, "time=%s level=INFO source=backend.go:310 msg=\"model weights\" device=CUDA0 size=\"1.5 GiB\"\n", ts);
	fprintf(fp, "time=%s level=INFO source=backend.go:321 msg=\"kv cache\" device=CUDA0 size=\"512.0 MiB\"\n", ts);
	fprintf(fp, "time=%s level=INFO source=backend.go:332 msg=\"compute graph\" device=CUDA0 size=\"100.0 MiB\"\n", ts);
	fclose(fp);
	snprintf(env, sizeof env, "HOME=%s/home\nOLLAMA_HOST=127.0.0.1:1", f->dir);
	const char *argv[] = {"/usr/bin/ollama", "runner", "--ollama-engine", "--model", "/h/blobs/sha256-aa", "--port", "40111", NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "ollama", argv, "/", env);
	struct gtm_gpu_use *u = process_add_use(p);
	u->dev_index = 0;
	u->vram = gtm_u64_of(3ull << 30, GTM_MEASURED);
	struct explain_ctx *c = explain_ctx_new(false);
	explain_process(c, f->snap, p);
	const struct gtm_explain *e = p->explain;
	assert_string_equal(e->runtime, "ollama");
	assert_string_equal(e->log.kind, "ollama");
	assert_string_equal(e->log.state, "current");
	const struct ex_segment *kv = seg(e, EX_SEG_KV, EX_SRC_LOG, "CUDA0");
	assert_non_null(kv);
	assert_true(kv->approx);
	assert_int_equal(kv->gpu, 0);
	assert_non_null(seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, NULL));
	(void)line;
	explain_ctx_free(c);
}

static void test_handy_adapter(void **state)
{
	struct fixture *f = *state;
	char d[1024], p1[1100], env[1100];
	snprintf(d, sizeof d, "%s/hh/.local/share/com.pais.handy/logs", f->dir);
	tu_mkdirs(d);
	snprintf(p1, sizeof p1, "%s/hh/.local/share/com.pais.handy/settings_store.json", f->dir);
	const char *settings = "{\"settings\":{\"selected_model\":\"parakeet-tdt-0.6b-v3\",\"push_to_talk\":true}}";
	tu_write_file(p1, settings, strlen(settings));
	snprintf(p1, sizeof p1, "%s/handy.log", d);
	const char *log =
		"[2026-11-30][06:00:01][handy_app_lib::managers::transcription][DEBUG] Starting to load model: parakeet-tdt-0.6b-v3\n"
		"[2026-11-30][06:00:03][handy_app_lib::managers::transcription][DEBUG] Successfully loaded transcription model: parakeet-tdt-0.6b-v3 (took 1800ms)\n"
		"[2026-11-30][06:01:00][handy_app_lib::actions][INFO] Transcription result: my secret dictation, Model unloaded preview\n"
		"[2026-11-30][06:07:00][handy_app_lib::managers::transcription][INFO] Model unloaded due to inactivity (took 3ms)\n";
	tu_write_file(p1, log, strlen(log));
	snprintf(env, sizeof env, "HOME=%s/hh", f->dir);
	const char *argv[] = {"/usr/bin/handy", NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "handy", argv, "/", env);
	/* Handy between loads maps no AI runtime: the adapter still runs */
	assert_false(ident_is_ai(p->ident));
	struct explain_ctx *c = explain_ctx_new(false);
	explain_process(c, f->snap, p);
	const struct ex_app *a = &p->explain->app;
	assert_true(a->present);
	assert_string_equal(a->selected_model, "parakeet-tdt-0.6b-v3");
	assert_int_equal(a->n_events, 3);
	assert_string_equal(a->events[0].kind, "load");
	assert_string_equal(a->events[0].detail, "parakeet-tdt-0.6b-v3");
	assert_int_equal(a->events[0].at_s, 1796018401);
	assert_string_equal(a->events[2].kind, "unload");
	/* no transcription text anywhere in the result */
	assert_null(memmem(p->explain, sizeof *p->explain, "secret", 6));
	/* selection is not load evidence */
	for (int i = 0; i < p->ident->n_models; i++)
		assert_true(p->ident->models[i].name == NULL || strcmp(p->ident->models[i].name, "parakeet-tdt-0.6b-v3") != 0);
	explain_process(c, f->snap, p); /* cached: unchanged log */
	assert_int_equal(p->explain->app.n_events, 3);
	explain_ctx_free(c);
}

/* A model path the runtime printed relative to its cwd (as -m was given) is
 * the file under the process's cwd. */
static void test_relative_model_path(void **state)
{
	struct fixture *f = *state;
	char path[1024], want[1200];
	snprintf(path, sizeof path, "%s/rel.log", f->dir);
	const char *log = "srv load_model: loading model 'models/rel.gguf'\nload_tensors: CPU_Mapped model buffer size = 1.00 MiB\n";
	tu_write_file(path, log, strlen(log));
	const char *argv[] = {"/opt/llama.cpp/bin/llama-server", "-m", "models/rel.gguf", "--log-file", "rel.log", NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "llama-server", argv, f->dir, NULL);
	struct explain_ctx *c = explain_ctx_new(false);
	explain_process(c, f->snap, p);
	snprintf(want, sizeof want, "%s/models/rel.gguf", f->dir);
	bool found = false;
	for (int i = 0; i < p->ident->n_models; i++)
		found |= p->ident->models[i].path && !strcmp(p->ident->models[i].path, want) &&
			 (p->ident->models[i].evidence & (1u << MODEL_EV_LOG));
	assert_true(found);
	explain_ctx_free(c);
}

/* Ollama's /api/ps through the runner's OLLAMA_HOST: evidence for the runner
 * when one model is listed; never for `ollama serve` itself. */
static void test_ollama_api(void **state)
{
	struct fixture *f = *state;
	struct replay_route r[] = {
		{"/api/ps", 200, "{\"models\":[{\"name\":\"qwen3:0.6b\",\"model\":\"qwen3:0.6b\",\"size\":1073741824,\"size_vram\":805306368,\"context_length\":4096}]}", REPLAY_NORMAL},
	};
	struct replay_server *rs = replay_start(r, 1, false, 0);
	char env[256];
	snprintf(env, sizeof env, "HOME=/nonexistent\nOLLAMA_HOST=127.0.0.1:%u", replay_port(rs));
	const char *runner_argv[] = {"/usr/bin/ollama", "runner", "--model", "/h/blobs/sha256-aa", "--port", "40112", NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "ollama", runner_argv, "/", env);
	struct gtm_gpu_use *u = process_add_use(p);
	u->dev_index = 0;
	u->vram = gtm_u64_of(1ull << 30, GTM_MEASURED);
	struct explain_ctx *c = explain_ctx_new(true);
	explain_process(c, f->snap, p);
	const struct gtm_explain *e = p->explain;
	assert_int_equal(e->n_servers, 1);
	assert_string_equal(e->servers[0].kind, "ollama");
	const struct ex_segment *g = seg(e, EX_SEG_RUNTIME_TOTAL, EX_SRC_API, "GPU");
	assert_non_null(g);
	assert_int_equal(g->bytes.v, 805306368);
	assert_int_equal(seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, NULL)->bytes.v, (1ull << 30) - 805306368);
	bool api = false;
	for (int i = 0; i < p->ident->n_models; i++)
		api |= p->ident->models[i].name && !strcmp(p->ident->models[i].name, "qwen3:0.6b") &&
		       (p->ident->models[i].evidence & (1u << MODEL_EV_API));
	assert_true(api);

	const char *serve_argv[] = {"/usr/bin/ollama", "serve", NULL};
	struct gtm_process *q = add_proc(f->snap, f->ic, "ollama", serve_argv, "/", env);
	q->start_time++;
	q->ports[q->n_ports++] = replay_port(rs);
	explain_process(c, f->snap, q);
	assert_int_equal(q->explain->n_servers, 1);
	assert_int_equal(q->explain->servers[0].n_models, 1);
	for (int i = 0; i < q->ident->n_models; i++)
		assert_false(q->ident->models[i].evidence & (1u << MODEL_EV_API));

	/* a runner whose parent (`ollama serve`) is in the snapshot: the parent's own port, not OLLAMA_HOST */
	struct gtm_process *parent = snapshot_add_process(f->snap);
	parent->pid = (uint32_t)getppid();
	parent->ports[parent->n_ports++] = replay_port(rs);
	const char *env2 = "HOME=/nonexistent\nOLLAMA_HOST=127.0.0.1:1";
	struct gtm_process *r2 = add_proc(f->snap, f->ic, "ollama", runner_argv, "/", env2);
	r2->start_time += 7;
	f->snap->monotonic_ns++;
	explain_process(c, f->snap, r2);
	assert_int_equal(r2->explain->n_servers, 1);
	assert_int_equal(r2->explain->servers[0].port, replay_port(rs));
	assert_string_equal(r2->explain->servers[0].kind, "ollama");
	explain_ctx_free(c);
	replay_stop(rs);
}

/* The real CPU-only build's log (qwen3-f16-c4096: CPU_Mapped weights, CPU
 * KV) against the estimate, which with llama-server's default -ngl puts them
 * on the GPU: the log wins and says why; every GPU the process uses gets its
 * runtime overhead/unknown line (N/A without a measurement). */
static void test_log_on_host_wins(void **state)
{
	struct fixture *f = *state;
	char src[1024], logp[1024], gguf[1024], model[PATH_MAX];
	const char *fx = tu_shared_fixture("llama"); /* a static buffer: copied before the next call */
	if (!fx)
		skip();
	snprintf(src, sizeof src, "%s/qwen3-f16-c4096/server.log", fx);
	const char *gg = tu_shared_fixture("gguf");
	if (!gg)
		skip();
	snprintf(gguf, sizeof gguf, "%s/tiny-qwen3-f16.gguf", gg);
	assert_non_null(realpath(gguf, model)); /* the process's cwd is "/" */
	size_t n;
	char *log = tu_read_file(src, &n);
	assert_non_null(log);
	snprintf(logp, sizeof logp, "%s/cpu.log", f->dir);
	tu_write_file(logp, log, n);
	free(log);
	const char *argv[] = {"/opt/llama.cpp/bin/llama-server", "-m", model, "--log-file", logp, "-lv", "4",
			      "-c", "4096", NULL};
	/* the libraries the real process mapped (proc_maps.txt) */
	const char *cpu_maps[] = {"/opt/llama.cpp/bin/libggml-base.so.0.20.1", "/opt/llama.cpp/bin/libggml-cpu.so.0.20.1",
				  "/opt/llama.cpp/bin/libggml.so.0.20.1", "/opt/llama.cpp/bin/libllama.so.0.0.10470", NULL};
	struct explain_ctx *c = explain_ctx_new(false);

	/* 0. the CPU-only build on no GPU at default verbosity (no log read): the
	 * runtime evidence alone keeps the estimate off the GPU, and says why */
	const char *argv0[] = {"/opt/llama.cpp/bin/llama-server", "-m", model, "-c", "4096", "-ngl", "99", NULL};
	struct gtm_process *p = add_proc_maps(f->snap, f->ic, "llama-server", argv0, "/", NULL, cpu_maps);
	explain_process(c, f->snap, p);
	const struct gtm_explain *e = p->explain;
	assert_non_null(e);
	assert_null(seg(e, EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, "GPU"));
	assert_null(seg(e, EX_SEG_KV, EX_SRC_ESTIMATE, "GPU"));
	assert_true(seg(e, EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, "Host")->host);
	assert_true(seg(e, EX_SEG_KV, EX_SRC_ESTIMATE, "Host")->host);
	assert_true(has_note(e, "a CPU-only build (no GPU backend library mapped, the driver lists it on no GPU): "
				"the estimate puts the weights and KV cache in host memory"));

	/* 1. the same with its log: log and estimate agree on host memory */
	p = add_proc_maps(f->snap, f->ic, "llama-server", argv, "/", NULL, cpu_maps);
	explain_process(c, f->snap, p);
	e = p->explain;
	assert_non_null(e);
	assert_string_equal(e->log.state, "current");
	assert_true(seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CPU_Mapped")->host);
	assert_null(seg(e, EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, "GPU"));
	assert_true(seg(e, EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, "Host")->host);
	assert_false(has_note(e, "the log wins"));
	assert_true(has_note(e, "a CPU-only build"));
	assert_null(seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, NULL)); /* no GPU row: no overhead line */

	/* 2. a GPU build (CUDA backend mapped) that still allocated everything on
	 * the host, and holds 300 MiB of measured VRAM nothing reported explains */
	const char *cuda_maps[] = {"/opt/llama.cpp/bin/libggml-cpu.so", "/opt/llama.cpp/bin/libggml-cuda.so",
				   "/usr/lib/x86_64-linux-gnu/libcuda.so.1", NULL};
	struct gtm_process *q = add_proc_maps(f->snap, f->ic, "llama-server", argv, "/", NULL, cuda_maps);
	struct gtm_gpu_use *u = process_add_use(q);
	u->dev_index = 0;
	u->vram = gtm_u64_of(300ull << 20, GTM_MEASURED);
	explain_process(c, f->snap, q);
	e = q->explain;
	assert_true(has_note(e, "the log wins: it is what was allocated"));
	const struct ex_segment *o = seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, "GPU0");
	assert_non_null(o);
	assert_int_equal(o->bytes.v, 300ull << 20);
	/* nothing subtracted: the measurement itself, as its note says */
	assert_int_equal(o->bytes.prov, GTM_MEASURED);
	assert_non_null(strstr(o->note, "measured, nothing reported on this GPU"));
	/* the text names the GPU once ("GPU 0", not "GPU 0 GPU0") */
	char *txt = NULL;
	size_t txt_n = 0;
	FILE *mem = tu_memstream(&txt, &txt_n);
	explain_text_print(mem, e, "");
	tu_memclose(mem);
	assert_non_null(strstr(txt, "GPU 0  "));
	assert_null(strstr(txt, "GPU 0 GPU0"));
	free(txt);

	/* 3. the same GPU row without a measurement: the line is there, N/A */
	u->vram = GTM_U64_NA;
	explain_process(c, f->snap, q);
	o = seg(q->explain, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, "GPU0");
	assert_non_null(o);
	assert_false(gtm_u64_ok(o->bytes));
	explain_ctx_free(c);
}

/* explain_process for a llama-server row of this process whose --log-file is flag (cwd may be NULL). */
static const struct gtm_explain *explain_with_log_flag(struct fixture *f, struct explain_ctx *c, const char *flag,
						       const char *cwd)
{
	const char *argv[] = {"/opt/llama.cpp/bin/llama-server", "-m", "/m/qwen3-0.6b-q8_0.gguf", "--log-file", flag,
			      "-lv", "4", NULL};
	struct gtm_process *p = add_proc(f->snap, f->ic, "llama-server", argv, cwd, "HOME=/nonexistent");
	explain_process(c, f->snap, p);
	assert_non_null(p->explain);
	return p->explain;
}

/* The same with this process's stderr replaced by err_fd meanwhile. */
static const struct gtm_explain *explain_with_stderr(struct fixture *f, struct explain_ctx *c, const char *flag,
						     int err_fd)
{
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0 && dup2(err_fd, 2) == 2);
	const struct gtm_explain *e = explain_with_log_flag(f, c, flag, "/");
	dup2(saved, 2);
	close(saved);
	return e;
}

/* The log file is open in this process (the server): when its path cannot be
 * read, it is read through /proc/self/fd: deleted, in a folder that is gone
 * from the path's view, relative to a working directory the process left;
 * else through stderr when that is a file. */
static void test_log_through_fd(void **state)
{
	struct fixture *f = *state;
	char path[1024], flag[1024], dir[1024];
	struct explain_ctx *c = explain_ctx_new(false);

	/* 1. deleted after opening (logrotate without copytruncate, rm) */
	snprintf(path, sizeof path, "%s/gone.log", f->dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	assert_true(fd > 2);
	assert_int_equal(write(fd, cuda_log, sizeof cuda_log - 1), (ssize_t)(sizeof cuda_log - 1));
	assert_int_equal(unlink(path), 0);
	const struct gtm_explain *e = explain_with_log_flag(f, c, path, "/");
	assert_string_equal(e->log.state, "current");
	assert_true(e->log.read_via_fd);
	assert_int_equal(e->log.read_fd, fd);
	assert_string_equal(e->log.path, path); /* shown as the process names it */
	assert_non_null(strstr(e->log.message, "the process holds it deleted"));
	assert_non_null(seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0"));
	close(fd);

	/* 2. a relative path opened in a folder the process has since left: its cwd is another one */
	snprintf(dir, sizeof dir, "%s/run/logs", f->dir);
	tu_mkdirs(dir);
	snprintf(path, sizeof path, "%s/run/logs/rel.log", f->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	assert_true(fd > 2);
	assert_int_equal(write(fd, cuda_log, sizeof cuda_log - 1), (ssize_t)(sizeof cuda_log - 1));
	snprintf(flag, sizeof flag, "./logs/rel.log");
	e = explain_with_log_flag(f, c, flag, f->dir); /* f->dir/logs/rel.log does not exist */
	assert_string_equal(e->log.state, "current");
	assert_true(e->log.read_via_fd);
	assert_int_equal(e->log.read_fd, fd);
	assert_non_null(strstr(e->log.message, "No such file or directory"));
	/* the working directory not known at all */
	e = explain_with_log_flag(f, c, flag, NULL);
	assert_int_equal(e->log.read_fd, fd);
	assert_non_null(strstr(e->log.message, "working directory unknown"));
	/* a readable path is read as it is, not through the fd */
	e = explain_with_log_flag(f, c, path, "/");
	assert_false(e->log.read_via_fd);
	close(fd);

	/* 3. a missing folder and no descriptor of it: stderr, when it is a file */
	snprintf(path, sizeof path, "%s/stderr.txt", f->dir);
	int err_file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(err_file > 2);
	assert_int_equal(write(err_file, cuda_log, sizeof cuda_log - 1), (ssize_t)(sizeof cuda_log - 1));
	e = explain_with_stderr(f, c, "/nonexistent-folder/server.log", err_file);
	close(err_file);
	assert_string_equal(e->log.state, "current");
	assert_true(e->log.read_via_fd);
	assert_int_equal(e->log.read_fd, 2);
	/* with stderr no file either, it stays unreadable, with the path's reason */
	int null_fd = open("/dev/null", O_WRONLY);
	e = explain_with_stderr(f, c, "/nonexistent-folder/server.log", null_fd);
	close(null_fd);
	assert_string_equal(e->log.state, "unreadable");
	assert_false(e->log.read_via_fd);
	assert_non_null(strstr(e->log.message, "No such file or directory"));

	/* 4. renamed while the server writes it (mv, logrotate's server.log.1): read through its fd */
	snprintf(dir, sizeof dir, "%s/rot", f->dir);
	tu_mkdirs(dir);
	snprintf(path, sizeof path, "%s/rot/server.log", f->dir);
	snprintf(flag, sizeof flag, "%s/rot/server.log.1", f->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	assert_true(fd > 2);
	assert_int_equal(write(fd, cuda_log, sizeof cuda_log - 1), (ssize_t)(sizeof cuda_log - 1));
	assert_int_equal(rename(path, flag), 0);
	e = explain_with_log_flag(f, c, path, "/");
	assert_string_equal(e->log.state, "current");
	assert_true(e->log.read_via_fd);
	assert_int_equal(e->log.read_fd, fd);
	assert_non_null(strstr(e->log.message, "renamed to"));
	assert_non_null(strstr(e->log.message, "server.log.1"));
	close(fd);
	explain_ctx_free(c);
}

/* Device names to snapshot devices: the log's PCI address, a single GPU, the
 * n-th of the process's GPUs; host buffers never map to a GPU. */
static void test_device_mapping_and_disagreement(void **state)
{
	struct fixture *f = *state;
	struct gtm_device *d1 = snapshot_add_device(f->snap);
	d1->index = 1;
	str_copy(d1->pci_bus_id, "00000000:02:00.0", sizeof d1->pci_bus_id);
	struct gtm_process *p = snapshot_add_process(f->snap);
	struct llog_load l;
	memset(&l, 0, sizeof l);
	str_copy(l.devices[0].name, "CUDA0", sizeof l.devices[0].name);
	str_copy(l.devices[0].pci, "0000:02:00.0", sizeof l.devices[0].pci);
	l.n_devices = 1;
	process_add_use(p)->dev_index = 0;
	process_add_use(p)->dev_index = 1;
	assert_int_equal(breakdown_map_device(f->snap, p, &l, "CUDA0"), 1); /* by PCI, not by number */
	assert_int_equal(breakdown_map_device(f->snap, p, NULL, "CUDA1"), 1);
	assert_int_equal(breakdown_map_device(f->snap, p, NULL, "ROCm0"), 0);
	assert_int_equal(breakdown_map_device(f->snap, p, NULL, "CUDA7"), -1);
	assert_int_equal(breakdown_map_device(f->snap, p, NULL, "CPU_Mapped"), -1);
	assert_int_equal(breakdown_map_device(f->snap, p, NULL, "CUDA_Host"), -1);
	assert_int_equal(breakdown_map_device(f->snap, p, NULL, "Vulkan"), -1);
	/* one GPU in use: a device index no visible GPU could have maps to none */
	struct gtm_process *q = snapshot_add_process(f->snap);
	p = &f->snap->processes[f->snap->n_processes - 2]; /* adding a row may move the array */
	process_add_use(q)->dev_index = 1;
	assert_int_equal(breakdown_map_device(f->snap, q, NULL, "CUDA0"), 1);
	assert_int_equal(breakdown_map_device(f->snap, q, NULL, "CUDA9999999999"), -1);
	assert_int_equal(breakdown_map_device(f->snap, q, NULL, "CUDA5"), -1);
	assert_true(breakdown_disagree(100ull << 20, 110ull << 20));
	assert_false(breakdown_disagree(100ull << 20, 101ull << 20));   /* within 2 % */
	assert_false(breakdown_disagree(10ull << 20, (10ull << 20) + 900000)); /* within 1 MiB */

	/* log and estimate far apart: both kept, a note says so */
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	struct estimate est;
	memset(&est, 0, sizeof est);
	est.weights_gpu = 500ull << 20;
	est.kv_bytes = est.kv_gpu = 64ull << 20;
	l.n_buffers = 2;
	l.buffers[0] = (struct llog_buffer){LLOG_WEIGHTS, "CUDA0", 600ull << 20, false};
	l.buffers[1] = (struct llog_buffer){LLOG_KV, "CUDA0", 64ull << 20, false};
	struct bd_input in = {f->snap, p, &l, NULL, &est};
	breakdown_build(e, &in);
	assert_true(e->estimate_disagrees);
	assert_true(has_note(e, "weights on the GPU: the log says 600.00 MiB, the estimate 500.00 MiB"));
	assert_false(has_note(e, "KV cache: the log says"));
	assert_false(has_note(e, "the log wins")); /* the log is on the GPU too */
	assert_false(seg(e, EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, "GPU")->superseded);
	assert_non_null(seg(e, EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, "GPU"));
	assert_non_null(seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0"));
	/* no measured VRAM: the overhead/unknown line of each GPU is there, N/A (never 0, never invented) */
	const struct ex_segment *o0 = seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, "GPU0");
	const struct ex_segment *o1 = seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, "GPU1");
	assert_non_null(o0);
	assert_non_null(o1);
	assert_false(gtm_u64_ok(o0->bytes));
	assert_false(gtm_u64_ok(o1->bytes));
	assert_non_null(strstr(o1->note, "not measured"));
	free(e);

	/* no buffer lines, only the memory-breakdown table: its device rows, in whole MiB */
	e = xcalloc(1, sizeof *e);
	struct llog_load t;
	memset(&t, 0, sizeof t);
	t.bd_final.n_rows = 2;
	t.bd_final.rows[0] = (struct llog_bd_row){"CUDA0", "RTX", 32606, 1057, 29365, 28609, 397, 358, 2183};
	t.bd_final.rows[1] = (struct llog_bd_row){"Host", "", -1, -1, 30956, 30940, 0, 16, -1};
	struct bd_input tin = {f->snap, p, &t, NULL, NULL};
	breakdown_build(e, &tin);
	const struct ex_segment *tw = seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "CUDA0");
	assert_non_null(tw);
	assert_int_equal(tw->bytes.v, 28609ull << 20);
	assert_true(tw->approx);
	assert_int_equal(seg(e, EX_SEG_KV, EX_SRC_LOG, "CUDA0")->bytes.v, 397ull << 20);
	assert_true(seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, "Host")->host);
	assert_null(seg(e, EX_SEG_KV, EX_SRC_LOG, "Host")); /* a 0 is not a segment */
	free(e);

	/* two models in one process: the per-model KV note */
	e = xcalloc(1, sizeof *e);
	e->n_models = 2;
	in.est = NULL;
	breakdown_build(e, &in);
	assert_true(has_note(e, "per-model KV accounting inside one process is not known"));
	free(e);

	/* Ollama's API figures when the log has none: size_vram on the GPU, the rest on the host */
	e = xcalloc(1, sizeof *e);
	struct ex_server_model m;
	memset(&m, 0, sizeof m);
	str_copy(m.name, "qwen3:14b", sizeof m.name);
	m.size = gtm_u64_of(10ull << 30, GTM_REPORTED);
	m.size_vram = gtm_u64_of(8ull << 30, GTM_REPORTED);
	struct bd_input api = {f->snap, p, NULL, &m, NULL};
	p->uses[0].vram = gtm_u64_of(9ull << 30, GTM_MEASURED);
	p->n_uses = 1;
	breakdown_build(e, &api);
	const struct ex_segment *g = seg(e, EX_SEG_RUNTIME_TOTAL, EX_SRC_API, "GPU");
	assert_non_null(g);
	assert_int_equal(g->gpu, 0);
	assert_int_equal(seg(e, EX_SEG_RUNTIME_TOTAL, EX_SRC_API, "Host")->bytes.v, 2ull << 30);
	assert_int_equal(seg(e, EX_SEG_OVERHEAD, EX_SRC_REMAINDER, NULL)->bytes.v, 1ull << 30);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cuda_log_breakdown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_block_beyond_the_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_verbosity_hint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_api_evidence_and_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ollama_runner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handy_adapter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_mapping_and_disagreement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_on_host_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_through_fd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ollama_api, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_model_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_garbage, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
