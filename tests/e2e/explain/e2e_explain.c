/* e2e: stand-in llama-servers listed by the fake NVML.
 *  A: maps a GGUF and libllama.so/libggml-cuda.so, logs CUDA buffer lines,
 *     serves the captured /props, /slots, /metrics, /v1/models (model_path
 *     substituted): `inspect PID --json` shows the model with api+mapped+cmdline
 *     evidence, the server facts and a breakdown with log, remainder and
 *     estimate sources.
 *  B: writes the real captured log (when ../shared/fixtures is there).
 *  C: accepts and never answers: it costs its timeout, no more.
 *  Two idle CUDA processes (the fake libcuda.so.1 mapped, not in the driver's
 *  list), as other tests or a busy machine have beside them.
 * No check depends on the machine's speed: the per-refresh probe budget is
 * lifted (on a loaded machine A's and B's explanation used up the default
 * 600 ms before C's turn, and C read "not probed"), and the per-endpoint
 * timeout is far above what a loaded machine takes to answer a loopback GET
 * (each endpoint's time is printed), so only C, which never answers, meets it.
 * Nor on what else runs here: the driver lists no PID that is not a process
 * of this test. A placeholder PID for B once stood in the list without the
 * captures; where the test runs in a container that is an unresolved host
 * PID, and with more idle CUDA processes on the machine than such PIDs
 * (other tests' stand-ins) the coincidence rule rightly took C, which maps
 * no NVIDIA compute library, for a host PID's coincidence: C's use went to
 * another process and its row left --json. The idle CUDA processes make
 * that scene certain here.
 * Every failed check prints why.
 * Args: gputaskman stand-in libllama.so libggml-cuda.so fake-nvml-dir ident-stand-in
 *       cuda-stand-in fake-libcuda.so.1 */
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

/* The probe settings of every run: a budget no refresh here reaches, and a
 * timeout that only the silent server C costs (once). */
#define PROBE_ENV "GTM_PROBE_BUDGET_MS=300000 GTM_PROBE_TIMEOUT_MS=5000"

static char tmp[] = "/tmp/gtm-e2e-explain-XXXXXX";
#define N_KIDS 5 /* A, B, C, two idle CUDA processes */
static pid_t kids[N_KIDS] = {-1, -1, -1, -1, -1};

static void cleanup(void)
{
	char cmd[128];
	for (int i = 0; i < N_KIDS; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
}

static char *run(const char *cmd, double *ms)
{
	struct timespec a, b;
	size_t len = 0, cap = 1 << 16, n;
	char *out = malloc(cap);
	clock_gettime(CLOCK_MONOTONIC, &a);
	FILE *p = popen(cmd, "r");
	if (!p || !out)
		abort();
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap && !(out = realloc(out, cap *= 2)))
			abort();
	}
	out[len] = 0;
	int st = pclose(p);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		tu_check(0, "`%s` exited with status %d", cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return out;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

static const char cuda_log[] =
	"0.00.002.443 I cmn  common_param: common_params_print_info: build 10470 (34af94cd9) with GNU 12.2.0 for Linux x86_64\n"
	"0.00.002.443 I cmn  common_param: common_params_print_info: verbosity = 4 (adjust with the `-lv N` CLI arg)\n"
	"0.00.004.073 I srv    load_model: loading model '@MODEL@'\n"
	"0.00.010.000 I llama_prepare_model_devices: using device CUDA0 (Fake GPU) (0000:01:00.0) - 8000 MiB free\n"
	"0.00.138.300 I load_tensors:        CUDA0 model buffer size =    13.78 MiB\n"
	"0.00.139.131 I llama_context:  CUDA_Host  output buffer size =     0.77 MiB\n"
	"0.00.139.177 I llama_kv_cache:      CUDA0 KV buffer size =     8.00 MiB\n"
	"0.00.143.437 I llama_kv_cache: size =    8.00 MiB (  4096 cells,   4 layers,  4/1 seqs), K (f16):    4.00 MiB, V (f16):    4.00 MiB\n"
	"0.00.144.182 I sched_reserve:      CUDA0 compute buffer size =     6.26 MiB\n"
	"0.00.147.271 I srv    load_model: initializing, n_slots = 4, n_ctx_slot = 4096, kv_unified = 'true'\n"
	"0.00.150.300 I srv  llama_server: model loaded\n";

/* Starts a stand-in in dir (created) and returns its PID once it serves. */
static pid_t start_standin(int slot, const char *standin, char *const *args, const char *dir)
{
	char ready[1024];
	struct stat st;
	mkdir(dir, 0700);
	snprintf(ready, sizeof ready, "%s/ready", dir);
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(1);
		execv(standin, args);
		_exit(127);
	}
	kids[slot] = pid;
	for (int i = 0; i < 3000; i++) { /* 60 s at most: a loaded machine's bound */
		if (stat(ready, &st) == 0 && st.st_size > 0)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			kids[slot] = -1;
			break;
		}
		usleep(20000);
	}
	fprintf(stderr, "stand-in %d did not start\n", slot);
	cleanup();
	exit(1);
}

/* An idle CUDA process: cuda_standin maps libcuda and says "ready", then
 * waits on stdin (a pipe this test holds open) until it is killed. */
static void start_idle_cuda(int slot, const char *standin, const char *libcuda)
{
	int out[2], in[2];
	char buf[8] = "";
	if (pipe(out) != 0 || pipe(in) != 0)
		abort();
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(standin, standin, libcuda, (char *)NULL);
		_exit(127);
	}
	kids[slot] = pid;
	close(in[0]); /* in[1] stays open: the stand-in's stdin never closes */
	close(out[1]);
	ssize_t n = read(out[0], buf, sizeof buf - 1);
	close(out[0]);
	if (n <= 0 || strncmp(buf, "ready", 5) != 0) {
		fprintf(stderr, "idle CUDA stand-in %d did not start\n", slot);
		cleanup();
		exit(1);
	}
}

static json_t *find_seg(json_t *bd, const char *segment, const char *device, const char *source)
{
	size_t i;
	json_t *s;
	json_array_foreach(bd, i, s)
		if (!strcmp(json_string_value(json_object_get(s, "segment")) ?: "", segment) &&
		    (!device || !strcmp(json_string_value(json_object_get(s, "device")) ?: "", device)) &&
		    !strcmp(json_string_value(json_object_get(s, "source")) ?: "", source))
			return s;
	return NULL;
}

static json_t *find_ep(json_t *server, const char *path)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(server, "endpoints"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "path")) ?: "", path))
			return e;
	return NULL;
}

static void check_a(json_t *j, const char *model, bool captured)
{
	json_t *m = json_array_get(json_object_get(j, "models"), 0);
	const char *path = json_string_value(json_object_get(m, "path")) ?: "";
	tu_check(!strcmp(path, model), "model path %s, expected %s", path, model);
	json_t *ev = json_object_get(m, "evidence");
	const char *want[] = {"api", "mapped", "cmdline"};
	for (int i = 0; i < 3; i++)
		tu_check(!strcmp(json_string_value(json_array_get(ev, (size_t)i)) ?: "", want[i]),
		      "model evidence[%d] is not %s (api+mapped+cmdline expected)", i, want[i]);
	json_t *x = json_object_get(j, "explain");
	tu_check(json_is_object(x), "no explain object");
	json_t *srv = json_array_get(json_object_get(x, "servers"), 0);
	tu_check(!strcmp(json_string_value(json_object_get(srv, "kind")) ?: "", "llama-server"), "server kind is not llama-server");
	tu_check(json_integer_value(json_object_get(srv, "slots_total")) == 4, "slots_total is not 4");
	tu_check(json_integer_value(json_object_get(srv, "n_ctx_per_slot")) == 4096, "n_ctx_per_slot is not 4096");
	tu_check(!strcmp(json_string_value(json_object_get(find_ep(srv, "/props"), "state")) ?: "", "ok"), "/props not ok");
	tu_check(!strcmp(json_string_value(json_object_get(find_ep(srv, "/metrics"), "state")) ?: "", "ok"), "/metrics not ok");
	if (captured) {
		tu_check(json_integer_value(json_object_get(srv, "slots_busy")) == 0, "captured slots: 0 busy expected");
		/* one probe of the captured /metrics: the server's own average, 8 tokens in 0.00386 s;
		 * no interval yet, so no current or wall-clock rate (null, not 0) */
		double avg = json_number_value(json_object_get(srv, "generation_tokens_per_s_avg"));
		tu_check(avg > 8 / 0.00386 - 0.01 && avg < 8 / 0.00386 + 0.01, "generation avg %f is not 8/0.00386 s", avg);
		tu_check(json_is_null(json_object_get(srv, "generation_tokens_per_s")), "a current rate from one sample");
		tu_check(json_is_null(json_object_get(srv, "wall_generation_tokens_per_s")), "a wall rate from one sample");
	}
	json_t *log = json_object_get(x, "log");
	tu_check(!strcmp(json_string_value(json_object_get(log, "state")) ?: "", "current"), "log state is not current");
	const char *lp = json_string_value(json_object_get(log, "path")) ?: "";
	tu_check(strstr(lp, tmp) == lp && strstr(lp, "/a/server.log"), "log path %s is not the process's cwd-resolved --log-file", lp);
	json_t *bd = json_object_get(x, "breakdown");
	json_t *w = find_seg(bd, "weights", "CUDA0", "log");
	tu_check(w && json_integer_value(json_object_get(w, "bytes")) == (json_int_t)(13.78 * 1048576 + 0.5),
	      "no log weights segment on CUDA0 of 13.78 MiB");
	tu_check(w && json_integer_value(json_object_get(w, "gpu")) == 0, "CUDA0 not mapped to GPU 0");
	tu_check(w && !strcmp(json_string_value(json_object_get(w, "provenance")) ?: "", "reported"), "log segment not reported");
	json_t *o = find_seg(bd, "overhead", NULL, "remainder");
	json_int_t rep = (json_int_t)(13.78 * 1048576 + 0.5) + (8 << 20) + (json_int_t)(6.26 * 1048576 + 0.5);
	tu_check(o && json_integer_value(json_object_get(o, "bytes")) == (200 << 20) - rep,
	      "remainder is not measured 200 MiB minus the reported CUDA0 segments");
	tu_check(find_seg(bd, "kv_cache", NULL, "estimate") != NULL, "no estimate segment beside the log");
	/* the measured core is untouched by reported figures */
	json_t *g = json_array_get(json_object_get(j, "gpus"), 0);
	tu_check(json_integer_value(json_object_get(g, "vram_bytes")) == 200 << 20, "measured vram changed");
	tu_check(json_integer_value(json_object_get(j, "vram_total_bytes")) == 200 << 20, "vram total includes reported bytes");
}

static json_t *proc_of(json_t *snap, pid_t pid)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(snap, "processes"), i, p)
		if (json_integer_value(json_object_get(p, "pid")) == pid)
			return p;
	return NULL;
}

/* What a failed check about C prints: the explanation's notes, one string. */
static const char *notes_of(json_t *explain)
{
	static char buf[1024];
	size_t i, len = 0;
	json_t *n;
	buf[0] = 0;
	json_array_foreach(json_object_get(explain, "notes"), i, n) {
		int w = snprintf(buf + len, sizeof buf - len, "%s%s", i ? "; " : "", json_string_value(n) ?: "");
		if (w < 0 || (size_t)w >= sizeof buf - len)
			break; /* truncated: what fitted is enough to say why */
		len += (size_t)w;
	}
	return buf[0] ? buf : "none";
}

/* Each endpoint's state and time, so a slow machine shows how far it is from the timeout. */
static void print_endpoints(const char *who, json_t *proc)
{
	size_t i;
	json_t *e;
	json_t *srv = json_array_get(json_object_get(json_object_get(proc, "explain"), "servers"), 0);
	printf("%s's endpoints:", who);
	json_array_foreach(json_object_get(srv, "endpoints"), i, e)
		printf(" %s %s %lld ms;", json_string_value(json_object_get(e, "path")) ?: "?",
		       json_string_value(json_object_get(e, "state")) ?: "?", (long long)json_integer_value(json_object_get(e, "ms")));
	printf("\n");
}

int main(int argc, char **argv)
{
	if (argc != 9) {
		fprintf(stderr, "usage: e2e_explain gputaskman stand-in libllama libggml-cuda fake-nvml-dir ident-stand-in "
				"cuda-stand-in libcuda.so.1\n");
		return 1;
	}
	/* meson passes build-relative paths; the stand-ins run elsewhere */
	for (int i = 1; i < argc; i++) {
		char *abs = realpath(argv[i], NULL);
		if (!abs) {
			fprintf(stderr, "no such file: %s\n", argv[i]);
			return 1;
		}
		argv[i] = abs;
	}
	const char *gtm = argv[1], *standin = argv[2], *fake = argv[5];
	const char *fx = getenv("GTM_SHARED_FIXTURES");
	char model[1024], capdir[1024], caplog[1024], logsrc[1024], dir[1100], scn[1100], cmd[8192], ready[1100];
	struct stat st;
	if (!mkdtemp(tmp))
		return 1;
	snprintf(capdir, sizeof capdir, "%s/llama/qwen3-f16-c4096", fx ? fx : "/nonexistent");
	snprintf(caplog, sizeof caplog, "%s/server.log", capdir);
	bool captured = stat(caplog, &st) == 0;
	snprintf(model, sizeof model, "%s/gguf/tiny-qwen3-f16.gguf", fx ? fx : "/nonexistent");
	if (stat(model, &st) != 0) { /* a fresh clone: a generated GGUF */
		snprintf(model, sizeof model, "%s/tiny.gguf", tmp);
		snprintf(cmd, sizeof cmd, "'%s' --write-gguf '%s'", argv[6], model);
		if (system(cmd) != 0) {
			fprintf(stderr, "cannot write a GGUF\n");
			cleanup();
			return 1;
		}
	}
	snprintf(logsrc, sizeof logsrc, "%s/cuda.log.src", tmp);
	write_file(logsrc, cuda_log);

	snprintf(dir, sizeof dir, "%s/a", tmp);
	char *a_args[] = {"llama-server", "-m", model, "-c", "4096", "--log-file", "server.log", "-lv", "4",
			  "--lib", argv[3], "--lib", argv[4], "--log-source", logsrc, "--ready", "ready",
			  captured ? "--replay" : NULL, capdir, NULL};
	pid_t a = start_standin(0, standin, a_args, dir);
	pid_t b = -1, c;
	if (captured) {
		snprintf(dir, sizeof dir, "%s/b", tmp);
		char *b_args[] = {"llama-server", "-m", model, "--log-file", "server.log", "--lib", argv[3],
				  "--log-source", caplog, "--replay", capdir, "--ready", "ready", NULL};
		b = start_standin(1, standin, b_args, dir);
	}
	snprintf(dir, sizeof dir, "%s/c", tmp);
	char *c_args[] = {"llama-server", "-m", model, "--lib", argv[3], "--hang", "--ready", "ready", NULL};
	c = start_standin(2, standin, c_args, dir);
	(void)ready;
	start_idle_cuda(3, argv[7], argv[8]);
	start_idle_cuda(4, argv[7], argv[8]);

	/* B's line only where B runs (see the head of this file) */
	char b_line[64] = "";
	if (b > 0)
		snprintf(b_line, sizeof b_line, "process dev=0 pid=%d mem=%d\n", (int)b, 100 << 20);
	snprintf(scn, sizeof scn, "%s/scenario", tmp);
	snprintf(cmd, sizeof cmd,
		 "device name=\"Fake GPU\" uuid=GPU-e2e-explain bus=00000000:01:00.0 mem_total=8589934592 mem_used=1073741824\n"
		 "process dev=0 pid=%d mem=%d\n%sprocess dev=0 pid=%d mem=%d\n",
		 (int)a, 200 << 20, b_line, (int)c, 50 << 20);
	write_file(scn, cmd);

	double ms;
	snprintf(cmd, sizeof cmd, PROBE_ENV " LD_LIBRARY_PATH='%s' GTM_FAKE_NVML_SCENARIO='%s' '%s' inspect %d --json", fake, scn, gtm, (int)a);
	char *out = run(cmd, &ms);
	json_error_t err;
	json_t *j = json_loads(out, 0, &err);
	tu_check(j != NULL, "inspect --json is not JSON: %s (%.200s)", err.text, out);
	if (j)
		check_a(j, model, captured);
	json_decref(j);
	free(out);

	snprintf(cmd, sizeof cmd, PROBE_ENV " LD_LIBRARY_PATH='%s' GTM_FAKE_NVML_SCENARIO='%s' '%s' --json", fake, scn, gtm);
	out = run(cmd, &ms);
	printf("--json with a silent server among three stand-ins: %.0f ms\n", ms);
	j = json_loads(out, 0, &err);
	tu_check(j != NULL, "--json is not JSON: %s", err.text);
	json_t *pa = proc_of(j, a), *pc = proc_of(j, c);
	tu_check(pa && json_is_object(json_object_get(pa, "explain")), "--json: stand-in A has no explain");
	if (pa)
		check_a(pa, model, captured);
	if (captured) {
		json_t *pb = proc_of(j, b), *x = json_object_get(pb, "explain");
		json_t *lg = json_object_get(x, "log");
		tu_check(!strcmp(json_string_value(json_object_get(lg, "state")) ?: "", "current"), "B: captured log not current");
		json_t *w = find_seg(json_object_get(x, "breakdown"), "weights", "CPU_Mapped", "log");
		tu_check(w && json_is_true(json_object_get(w, "host_memory")), "B: CPU_Mapped weights not a host segment");
		tu_check(json_integer_value(json_object_get(lg, "n_slots")) == 4, "B: captured log n_slots is not 4");
	}
	if (pa)
		print_endpoints("A", pa);
	json_t *xc = json_object_get(pc, "explain");
	json_t *sc = json_array_get(json_object_get(xc, "servers"), 0);
	json_t *first = json_array_get(json_object_get(sc, "endpoints"), 0);
	const char *first_state = json_string_value(json_object_get(first, "state"));
	bool c_ok = first_state && !strcmp(first_state, "timeout");
	tu_check(c_ok, "C: the silent server's first endpoint is not a timeout but %s (notes: %s)",
	      first_state ? first_state : sc ? "absent" : "no server probed", notes_of(xc));
	if (!c_ok) {
		char *row = pc ? json_dumps(pc, JSON_COMPACT) : NULL; /* what C's row held instead */
		fprintf(stderr, "C's row (pid %d): %.3000s\n", (int)c, row ? row : "absent from --json");
		free(row);
		size_t k;
		json_t *p;
		json_array_foreach(json_object_get(j, "processes"), k, p) /* the rows there were */
			fprintf(stderr, "  row %s pid %lld\n", json_string_value(json_object_get(p, "label")) ?: "?",
				(long long)json_integer_value(json_object_get(p, "pid")));
	}
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(sc, "endpoints"), i, e)
		if (i > 0)
			tu_check(!strcmp(json_string_value(json_object_get(e, "state")) ?: "", "not-probed"),
			      "C: endpoint %zu was probed after a timeout", i);
	json_decref(j);
	free(out);
	cleanup();
	if (tu_failures())
		fprintf(stderr, "%d check(s) failed\n", tu_failures());
	return tu_failures() ? 1 : 0;
}
