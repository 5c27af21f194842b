/* The KV cache in use that a vLLM / SGLang engine's /metrics reports, joined
 * to its worker processes (rows with fake PIDs: API server -> engine core ->
 * worker, the answer from a replay server on loopback), the config-based KV
 * per 1k tokens of a PyTorch job, and the vLLM log head read once per file
 * identity (this very process, its stderr pointed at a log). The /metrics
 * answers use the metric names of vLLM's and SGLang's documentation; no real
 * vLLM or SGLang ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "explain/explain.h"
#include "explain/explain_internal.h"
#include "explain/probe.h"
#include "identify/ident.h"
#include "standin_server_http.h"
#include "st_writer.h"
#include "testutil.h"

/* 32 layers, 8 KV heads of 128, bfloat16: 2 x 8 x 128 x 2 = 4096 bytes per layer and token. */
static const char config_json[] =
	"{\"architectures\":[\"LlamaForCausalLM\"],\"model_type\":\"llama\",\"num_hidden_layers\":32,"
	"\"num_attention_heads\":32,\"num_key_value_heads\":8,\"head_dim\":128,\"hidden_size\":4096,"
	"\"max_position_embeddings\":8192,\"torch_dtype\":\"bfloat16\"}";

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
	char path[1024];
	snprintf(path, sizeof path, "%s/model", f->dir);
	tu_mkdirs(path);
	snprintf(path, sizeof path, "%s/model/config.json", f->dir);
	tu_write_file(path, config_json, sizeof config_json - 1);
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

static struct gtm_process *row(struct fixture *f, uint32_t pid, uint32_t ppid, const char *name,
			       const char *const *argv, const char *const *maps)
{
	struct gtm_process *p = snapshot_add_process(f->snap);
	p->pid = pid;
	p->ppid = ppid;
	p->start_time = 1000 + pid;
	str_copy(p->name, name, sizeof p->name);
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	while (argv[d->argc])
		d->argc++;
	d->argv = xcalloc((size_t)d->argc + 1, sizeof *d->argv);
	for (int i = 0; i < d->argc; i++)
		d->argv[i] = xstrdup(argv[i]);
	d->exe = xstrdup(argv[0]);
	d->cwd = xstrdup("/");
	proc_detail_set_environ(d, "HOME=/nonexistent", sizeof "HOME=/nonexistent");
	size_t n = 0;
	while (maps && maps[n])
		n++;
	d->maps = xcalloc(n + 1, sizeof *d->maps);
	for (size_t i = 0; i < n; i++)
		d->maps[i] = xstrdup(maps[i]);
	d->n_maps = n;
	p->detail = d;
	identify_process(f->ic, p);
	return p;
}

/* Rows move when the snapshot grows: a row by PID. */
static struct gtm_process *by_pid(struct fixture *f, uint32_t pid)
{
	for (int i = 0; i < f->snap->n_processes; i++)
		if (f->snap->processes[i].pid == pid)
			return &f->snap->processes[i];
	return NULL;
}

static bool has_note(const struct gtm_explain *e, const char *needle)
{
	for (int i = 0; i < e->n_notes; i++)
		if (strstr(e->notes[i], needle))
			return true;
	return false;
}

static void need_http(void)
{
	char why[160];
	if (!probe_available(why, sizeof why)) {
		print_message("skipped: %s\n", why);
		skip();
	}
}

static const char vllm_metrics[] =
	"# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
	"# TYPE vllm:kv_cache_usage_perc gauge\n"
	"vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.25\n"
	"vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0\n"
	"vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 1.0\n"
	"vllm:cache_config_info{block_size=\"16\",cache_dtype=\"fp8\",num_gpu_blocks=\"1000\"} 1.0\n";

/* API server (listens) -> engine core -> worker on a GPU: the worker's KV in
 * use is the API server's usage x its blocks x config.json's bytes per block
 * on one of the two tensor-parallel GPUs: 250 blocks x 16 tokens x
 * 32 layers x 4 heads x 256 x 1 byte (fp8). */
static void test_vllm_worker_joined(void **state)
{
	struct fixture *f = *state;
	need_http();
	struct replay_route r[] = {{"/metrics", 200, vllm_metrics, REPLAY_NORMAL}, {NULL, 404, "", REPLAY_NORMAL}};
	struct replay_server *rs = replay_start(r, 2, false, 0);
	char model[1024];
	snprintf(model, sizeof model, "%s/model", f->dir);
	const char *api_argv[] = {"/usr/bin/python3", "/usr/local/bin/vllm", "serve", model, "--tensor-parallel-size", "2", NULL};
	row(f, 4000001, 1, "vllm", api_argv, NULL);
	const char *core_argv[] = {"VLLM::EngineCore", NULL};
	row(f, 4000002, 4000001, "VLLM::EngineCor", core_argv, NULL);
	const char *w_argv[] = {"VLLM::Worker_TP0", NULL};
	row(f, 4000003, 4000002, "VLLM::Worker_TP", w_argv, NULL);
	struct gtm_process *api = by_pid(f, 4000001), *w = by_pid(f, 4000003);
	api->ports[api->n_ports++] = replay_port(rs);
	assert_true(ident_is_ai(w->ident));
	struct explain_ctx *c = explain_ctx_new(true);
	explain_process(c, f->snap, w);
	const struct ex_kv_used *k = &w->explain->kv_used;
	assert_true(k->present);
	assert_string_equal(k->kind, "vllm");
	assert_int_equal(k->server_pid, 4000001);
	assert_int_equal(k->port, replay_port(rs));
	assert_true(k->usage.v == 0.25);
	assert_int_equal(k->used_blocks.v, 250);
	assert_int_equal(k->bytes_per_token.v, 32ull * 4 * 256);
	assert_int_equal(k->bytes_per_token.prov, GTM_ESTIMATED);
	assert_int_equal(k->used_bytes.v, 250ull * 16 * 32 * 4 * 256);
	assert_int_equal(k->used_bytes.prov, GTM_REPORTED);
	assert_int_equal(k->pool_bytes.v, 1000ull * 16 * 32 * 4 * 256);
	assert_int_equal(k->requests_running.v, 3);
	assert_non_null(strstr(k->basis, "config.json"));
	/* never a segment: nothing is added to the breakdown or any total */
	for (int i = 0; i < w->explain->n_segs; i++)
		assert_true(w->explain->segs[i].src != EX_SRC_API);
	/* the API server itself, explained next in the same refresh: its cached answer */
	int hits = replay_hits(rs);
	explain_process(c, f->snap, api);
	assert_int_equal(replay_hits(rs), hits);
	assert_true(api->explain->kv_used.present);
	assert_int_equal(api->explain->kv_used.server_pid, 4000001);
	explain_ctx_free(c);

	/* the same port answers garbage at the next probe: the last answer's
	 * gauges are not kept (N/A, not stale) */
	uint16_t port = replay_port(rs);
	setenv("GTM_PROBE_INTERVAL_MS", "1", 1);
	c = explain_ctx_new(true);
	explain_process(c, f->snap, api);
	assert_true(gtm_f64_ok(api->explain->servers[0].kv_usage));
	replay_stop(rs);
	struct replay_route junk[] = {{NULL, 200, "<html>restarted</html>", REPLAY_NORMAL}};
	rs = replay_start(junk, 1, false, port);
	usleep(5000); /* past the 1 ms interval: probed again */
	f->snap->monotonic_ns++;
	explain_process(c, f->snap, api);
	assert_false(gtm_f64_ok(api->explain->servers[0].kv_usage));
	assert_false(gtm_u64_ok(api->explain->servers[0].kv_blocks));
	assert_false(api->explain->kv_used.present);
	explain_ctx_free(c);
	unsetenv("GTM_PROBE_INTERVAL_MS");
	replay_stop(rs);
	rs = replay_start(r, 2, false, 0);
	api->ports[0] = replay_port(rs);

	/* no config.json to read: the usage only, bytes N/A */
	free(api->detail->argv[3]);
	api->detail->argv[3] = xstrdup("/nonexistent/model");
	c = explain_ctx_new(true);
	explain_process(c, f->snap, w);
	k = &w->explain->kv_used;
	assert_true(k->present);
	assert_true(k->usage.v == 0.25);
	assert_false(gtm_u64_ok(k->used_bytes));
	assert_non_null(strstr(k->basis, "usage only"));
	explain_ctx_free(c);
	replay_stop(rs);
}

/* Answers a worker cannot use: not Prometheus text, one gauge per engine
 * (data parallel), a usage out of range, a silent server. N/A and a note. */
static void test_vllm_hostile_answers(void **state)
{
	struct fixture *f = *state;
	need_http();
	static const struct {
		const char *body;
		enum replay_mode mode;
		const char *note; /* NULL: no note; present with usage N/A */
		bool present;
	} cases[] = {
		{"<html>not metrics</html>", REPLAY_NORMAL, "garbage, KV in use N/A", false},
		{"vllm:kv_cache_usage_perc{engine=\"0\"} 0.5\nvllm:kv_cache_usage_perc{engine=\"1\"} 0.25\n", REPLAY_NORMAL,
		 "one per data-parallel engine", true},
		{"vllm:kv_cache_usage_perc 7\nvllm:cache_config_info{num_gpu_blocks=\"None\",block_size=\"16\"} 1\n",
		 REPLAY_NORMAL, NULL, true},
		{NULL, REPLAY_HANG, "timeout, KV in use N/A", false},
		{NULL, REPLAY_GARBAGE, "KV in use N/A", false},
	};
	setenv("GTM_PROBE_TIMEOUT_MS", "200", 1);
	const char *api_argv[] = {"vllm", "serve", "/nonexistent", NULL};
	row(f, 4100001, 1, "vllm", api_argv, NULL);
	const char *w_argv[] = {"VLLM::Worker_TP0", NULL};
	row(f, 4100002, 4100001, "VLLM::Worker_TP", w_argv, NULL);
	struct gtm_process *api = by_pid(f, 4100001), *w = by_pid(f, 4100002);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct replay_route r[] = {{NULL, 200, cases[i].body, cases[i].mode}};
		struct replay_server *rs = replay_start(r, 1, false, 0);
		api->n_ports = 0;
		api->ports[api->n_ports++] = replay_port(rs);
		struct explain_ctx *c = explain_ctx_new(true);
		explain_process(c, f->snap, w);
		const struct gtm_explain *e = w->explain;
		print_message("case %zu: present %d, notes %d%s%s\n", i, e->kv_used.present, e->n_notes,
			      e->n_notes ? ": " : "", e->n_notes ? e->notes[e->n_notes - 1] : "");
		assert_int_equal(e->kv_used.present, cases[i].present);
		if (cases[i].present) {
			assert_false(gtm_f64_ok(e->kv_used.usage));
			assert_false(gtm_u64_ok(e->kv_used.used_bytes));
			assert_false(gtm_u64_ok(e->kv_used.blocks));
		}
		if (cases[i].note)
			assert_true(has_note(e, cases[i].note));
		explain_ctx_free(c);
		replay_stop(rs);
	}
	unsetenv("GTM_PROBE_TIMEOUT_MS");
}

/* SGLang: launch_server listens, a scheduler per GPU: used tokens x bytes per
 * token of config.json at --tp-size 2 (bfloat16 KV: 32 x 4 x 256 x 2). */
static void test_sglang_worker_joined(void **state)
{
	struct fixture *f = *state;
	need_http();
	static const char sg[] = "sglang:token_usage{model_name=\"m\"} 0.28\n"
				 "sglang:num_used_tokens{model_name=\"m\"} 1000.0\n"
				 "sglang:max_total_num_tokens{model_name=\"m\"} 4000\n"
				 "sglang:num_running_reqs{model_name=\"m\"} 2.0\n"
				 "sglang:num_queue_reqs{model_name=\"m\"} 0.0\n";
	struct replay_route r[] = {{"/metrics", 200, sg, REPLAY_NORMAL}, {NULL, 404, "", REPLAY_NORMAL}};
	struct replay_server *rs = replay_start(r, 2, false, 0);
	char model[1024];
	snprintf(model, sizeof model, "%s/model", f->dir);
	const char *api_argv[] = {"python3", "-m", "sglang.launch_server", "--model-path", model, "--tp-size", "2", NULL};
	row(f, 4200001, 1, "python3", api_argv, NULL);
	const char *w_argv[] = {"sglang::scheduler_TP1", NULL};
	row(f, 4200002, 4200001, "sglang::schedul", w_argv, NULL);
	struct gtm_process *api = by_pid(f, 4200001), *w = by_pid(f, 4200002);
	api->ports[api->n_ports++] = replay_port(rs);
	struct explain_ctx *c = explain_ctx_new(true);
	explain_process(c, f->snap, w);
	const struct ex_kv_used *k = &w->explain->kv_used;
	assert_true(k->present);
	assert_string_equal(k->kind, "sglang");
	assert_int_equal(k->server_pid, 4200001);
	assert_int_equal(k->used_tokens.v, 1000);
	assert_int_equal(k->bytes_per_token.v, 32ull * 4 * 256 * 2);
	assert_int_equal(k->used_bytes.v, 1000ull * 32 * 4 * 256 * 2);
	assert_int_equal(k->pool_bytes.v, 4000ull * 32 * 4 * 256 * 2);
	assert_true(k->usage.v == 0.28);
	explain_ctx_free(c);
	replay_stop(rs);
}

/* A PyTorch job mapping the weights of a folder with config.json: KV bytes
 * per 1k tokens, estimated (4096 x 32 layers x 1000). */
static void test_torch_estimate(void **state)
{
	struct fixture *f = *state;
	char st[1024], lib[1024];
	snprintf(st, sizeof st, "%s/model/model.safetensors", f->dir);
	struct stw *sw = stw_new();
	uint64_t dims[2] = {4, 4};
	stw_tensor(sw, "w", "BF16", 2, dims);
	assert_int_equal(stw_write_file(sw, st, 0), 0);
	stw_free(sw);
	snprintf(lib, sizeof lib, "%s/libtorch_cuda.so", f->dir);
	tu_write_file(lib, "x", 1);
	const char *argv[] = {"python3", "train.py", NULL};
	const char *maps[] = {lib, st, NULL};
	struct gtm_process *p = row(f, 4300001, 1, "python3", argv, maps);
	assert_true(ident_is_ai(p->ident));
	struct explain_ctx *c = explain_ctx_new(false);
	explain_process(c, f->snap, p);
	const struct ex_kv_estimate *x = &p->explain->kv_est;
	assert_true(x->present);
	assert_int_equal(x->bytes_per_1k_tokens.v, 4096ull * 32 * 1000);
	assert_int_equal(x->bytes_per_1k_tokens.prov, GTM_ESTIMATED);
	assert_int_equal(x->n_full, 32);
	assert_string_equal(x->dtype, "bfloat16");
	assert_false(p->explain->kv_used.present);
	explain_ctx_free(c);
}

/* The vLLM log head (this process's stderr): parsed once while the file is
 * unchanged, read again when it grows and when the process's fd 2 is another
 * file (a rotated or replaced log). */
static void test_log_head_cached_by_identity(void **state)
{
	struct fixture *f = *state;
	char path[1024], path2[1024], line[256];
	int saved = dup(2);
	assert_true(saved >= 0);
	snprintf(path, sizeof path, "%s/vllm.log", f->dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	assert_true(fd >= 0);
	int n = snprintf(line, sizeof line, "(Worker_TP0 pid=%d) INFO 12-11 00:06:53 [gpu_worker.py:359] Available KV cache memory: 52.25 GiB\n",
			 (int)getpid());
	assert_int_equal(write(fd, line, (size_t)n), n);
	assert_int_equal(dup2(fd, 2), 2);
	const char *argv[] = {"VLLM::Worker_TP0", NULL};
	struct gtm_process *p = row(f, (uint32_t)getpid(), (uint32_t)getppid(), "VLLM::Worker_TP", argv, NULL);
	struct explain_ctx *c = explain_ctx_new(false);
	explain_process(c, f->snap, p);
	uint64_t reads = c->head_reads;
	assert_int_equal(reads, 1);
	assert_true(p->explain->log.present);
	for (int r = 0; r < 3; r++) {
		f->snap->monotonic_ns++;
		explain_process(c, f->snap, p);
	}
	assert_int_equal(c->head_reads, 1); /* unchanged: not read again */
	assert_true(p->explain->log.present);
	/* grown: read again */
	n = snprintf(line, sizeof line, "(Worker_TP0 pid=%d) INFO 12-11 00:06:50 Model loading took 7.50 GiB memory and 3.2 seconds\n",
		     (int)getpid());
	assert_int_equal(write(fd, line, (size_t)n), n);
	f->snap->monotonic_ns++;
	explain_process(c, f->snap, p);
	assert_int_equal(c->head_reads, 2);
	/* replaced: fd 2 now another file (a restarted redirection), with another pool */
	snprintf(path2, sizeof path2, "%s/vllm.log.new", f->dir);
	int fd2 = open(path2, O_WRONLY | O_CREAT | O_APPEND, 0600);
	n = snprintf(line, sizeof line, "(Worker_TP0 pid=%d) INFO [gpu_worker.py:359] Available KV cache memory: 10.0 GiB\n", (int)getpid());
	assert_int_equal(write(fd2, line, (size_t)n), n);
	assert_int_equal(dup2(fd2, 2), 2);
	f->snap->monotonic_ns++;
	explain_process(c, f->snap, p);
	assert_int_equal(c->head_reads, 3);
	const struct gtm_explain *e = p->explain;
	bool ten = false;
	for (int i = 0; i < e->n_segs; i++)
		ten |= e->segs[i].seg == EX_SEG_KV && e->segs[i].bytes.v == 10ull << 30;
	assert_true(ten);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	close(fd2);
	explain_ctx_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vllm_worker_joined, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vllm_hostile_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sglang_worker_joined, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torch_estimate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_head_cached_by_identity, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
