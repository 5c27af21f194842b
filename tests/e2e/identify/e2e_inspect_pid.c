/* e2e: `gputaskman inspect PID --json` on a stand-in llama-server that maps
 * a generated GGUF (named .bin, opened relative to its cwd) and libraries
 * named libllama.so and libggml-cuda.so. Every failed check prints why.
 * Args: gputaskman stand-in libllama.so libggml-cuda.so */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static char tmp[] = "/tmp/gtm-e2e-ident-XXXXXX";
static pid_t standin = -1;

static void cleanup(void)
{
	char cmd[128];
	if (standin > 0) {
		kill(standin, SIGKILL);
		waitpid(standin, NULL, 0);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
}

/* Runs cmd, returns its stdout (malloc'd) and exit status. */
static char *run(const char *cmd, int *status, double *ms)
{
	struct timespec a, b;
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	clock_gettime(CLOCK_MONOTONIC, &a);
	FILE *p = popen(cmd, "r");
	if (!p || !out)
		abort();
	size_t n;
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap && !(out = realloc(out, cap *= 2)))
			abort();
	}
	out[len] = '\0';
	*status = pclose(p);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
	return out;
}

static json_t *find_runtime(json_t *proc, const char *id)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(proc, "runtimes"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "id")) ?: "", id))
			return r;
	return NULL;
}

static int has_evidence(json_t *r, const char *prefix)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(r, "evidence"), i, e)
		if (!strncmp(json_string_value(e) ?: "", prefix, strlen(prefix)))
			return 1;
	return 0;
}

static void check_json(const char *out)
{
	json_error_t err;
	json_t *j = json_loads(out, 0, &err);
	tu_check(j != NULL, "inspect --json is not JSON: %s (output: %.200s)", err.text, out);
	if (!j)
		return;
	json_t *rt = find_runtime(j, "llama.cpp");
	tu_check(rt && has_evidence(rt, "executable llama-server"), "llama.cpp runtime by its executable missing");
	tu_check(rt && has_evidence(rt, "mapped libllama.so"), "llama.cpp runtime by mapped libllama.so missing");
	rt = find_runtime(j, "ggml-cuda");
	tu_check(rt && has_evidence(rt, "mapped libggml-cuda.so"), "ggml CUDA backend by mapped libggml-cuda.so missing");
	tu_check(!strcmp(json_string_value(json_object_get(j, "category")) ?: "", "ai"), "category is not ai");
	json_t *models = json_object_get(j, "models");
	tu_check(json_array_size(models) == 1, "expected exactly one model, got %zu", json_array_size(models));
	json_t *m = json_array_get(models, 0);
	const char *path = json_string_value(json_object_get(m, "path")) ?: "";
	tu_check(strstr(path, tmp) && strstr(path, "/models/tiny.bin"), "model path %s is not the cwd-resolved file", path);
	json_t *ev = json_object_get(m, "evidence");
	tu_check(!strcmp(json_string_value(json_array_get(ev, 0)) ?: "", "mapped") &&
		      !strcmp(json_string_value(json_array_get(ev, 1)) ?: "", "cmdline"),
	      "model evidence is not [mapped, cmdline]");
	tu_check(json_is_true(json_object_get(m, "confirmed")), "mapped + named model is not confirmed");
	json_t *g = json_object_get(m, "gguf");
	tu_check(!strcmp(json_string_value(json_object_get(g, "arch")) ?: "", "qwen3"), "GGUF arch is not qwen3");
	tu_check(json_integer_value(json_object_get(g, "layers")) == 4, "GGUF layers is not 4");
	json_t *fl = json_object_get(j, "llama_flags");
	tu_check(json_integer_value(json_object_get(fl, "ctx_size")) == 4096, "flags: -c 4096 not parsed");
	tu_check(json_integer_value(json_object_get(fl, "n_gpu_layers")) == 99, "flags: -ngl 99 not parsed");
	tu_check(json_is_null(json_object_get(json_array_get(json_object_get(j, "memory_plans"), 0), "cpu_build")),
	      "a build with the CUDA backend mapped is called a CPU-only build");
	json_t *plan = json_object_get(json_array_get(json_object_get(j, "memory_plans"), 0), "plan");
	json_t *est = json_object_get(plan, "estimate");
	tu_check(!strcmp(json_string_value(json_object_get(est, "provenance")) ?: "", "estimated"),
	      "no estimated memory plan from the process's flags");
	/* 2 (K,V) x 4 layers x 2 KV heads x 64 dims x 2 bytes (f16) per token, 4096 cells */
	json_t *kv = json_object_get(est, "kv");
	tu_check(json_integer_value(json_object_get(kv, "bytes_per_token")) == 2048, "KV bytes per token is not 2048");
	tu_check(json_integer_value(json_object_get(kv, "bytes")) == 2048 * 4096, "KV bytes at -c 4096 is not 8 MiB");
	json_decref(j);
}

static int wait_ready(const char *ready)
{
	struct stat st;
	for (int i = 0; i < 1200; i++) { /* 60 s at most: a loaded machine's bound */
		if (stat(ready, &st) == 0)
			return 0;
		if (waitpid(standin, NULL, WNOHANG) == standin) {
			standin = -1;
			return -1;
		}
		usleep(50000);
	}
	return -1;
}

/* A model known only through the environment: `-hfd org/repo:Q8_0` resolves in
 * the HF cache that LLAMA_CACHE names. The collector defers every process's
 * environ and reads it only for one in which a runtime is found: this is
 * that path, end to end. */
static void check_env_resolved_model(char **argv)
{
	char dir[512], file[600], ready[256], env_cache[600], cmd[2048];
	int status;
	double ms;

	snprintf(dir, sizeof dir, "%s/hf/models--org--repo/snapshots/abc123", tmp);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s/hf/models--org--repo/refs' && printf abc123 > '%s/hf/models--org--repo/refs/main'",
		 dir, tmp, tmp);
	tu_check(system(cmd) == 0, "could not lay out the HF cache");
	snprintf(file, sizeof file, "%s/draft-Q8_0.gguf", dir);
	snprintf(cmd, sizeof cmd, "'%s' --write-gguf '%s'", argv[2], file);
	tu_check(system(cmd) == 0, "stand-in could not write the draft GGUF");
	snprintf(ready, sizeof ready, "%s/ready-env", tmp);
	snprintf(env_cache, sizeof env_cache, "LLAMA_CACHE=%s/hf", tmp);
	pid_t pid = fork();
	if (pid == 0) {
		char *envp[] = {env_cache, "HOME=/nonexistent", NULL};
		if (chdir(tmp) != 0)
			_exit(1);
		execle(argv[2], argv[2], "-m", "models/tiny.bin", "-hfd", "org/repo:Q8_0", "--lib", argv[3], "--ready", ready,
		       (char *)NULL, envp);
		_exit(127);
	}
	pid_t first = standin;
	standin = pid;
	if (pid < 0 || wait_ready(ready) != 0) {
		tu_check(0, "the stand-in with LLAMA_CACHE did not start");
		standin = first;
		return;
	}
	snprintf(cmd, sizeof cmd, "'%s' inspect %d --json --no-probe", argv[1], (int)pid);
	char *out = run(cmd, &status, &ms);
	json_t *j = json_loads(out, 0, NULL);
	json_t *m, *found = NULL;
	size_t i;
	json_array_foreach(json_object_get(j, "models"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "path")) ?: "", file))
			found = m;
	tu_check(found != NULL, "the draft in LLAMA_CACHE's HF cache was not found through the environment: %.400s", out);
	tu_check(found && !strcmp(json_string_value(json_object_get(found, "role")) ?: "", "draft"), "the HF model is not the draft");
	json_decref(j);
	free(out);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	standin = first;
}

/* A CPU-only build (libllama mapped, no GPU backend, no driver listing it)
 * with -ngl 99: its estimate and plan put nothing on a GPU and say why;
 * -ctk Q8_0 is shown as llama.cpp spells it. */
static void check_cpu_build(char **argv)
{
	char ready[256], cmd[2048];
	int status;
	double ms;

	snprintf(ready, sizeof ready, "%s/ready-cpu", tmp);
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(tmp) != 0)
			_exit(1);
		execl(argv[2], argv[2], "-m", "models/tiny.bin", "-c", "4096", "-ngl", "99", "-ctk", "Q8_0", "-fa", "on",
		      "--lib", argv[3], "--ready", ready, (char *)NULL);
		_exit(127);
	}
	pid_t first = standin;
	standin = pid;
	if (pid < 0 || wait_ready(ready) != 0) {
		tu_check(0, "the CPU-only stand-in did not start");
		standin = first;
		return;
	}
	snprintf(cmd, sizeof cmd, "'%s' inspect %d --json --no-probe", argv[1], (int)pid);
	char *out = run(cmd, &status, &ms);
	json_t *j = json_loads(out, 0, NULL);
	json_t *plan = json_array_get(json_object_get(j, "memory_plans"), 0);
	tu_check(json_is_string(json_object_get(plan, "cpu_build")), "CPU-only build: no cpu_build caveat: %.400s", out);
	json_t *fl = json_object_get(j, "llama_flags");
	tu_check(!strcmp(json_string_value(json_object_get(fl, "cache_type_k")) ?: "", "q8_0"),
	      "-ctk Q8_0 is not named q8_0 as llama.cpp does");
	json_t *s, *bd = json_object_get(json_object_get(j, "explain"), "breakdown");
	size_t i;
	int host = 0;
	json_array_foreach(bd, i, s) {
		if (strcmp(json_string_value(json_object_get(s, "source")) ?: "", "estimate"))
			continue;
		tu_check(json_is_true(json_object_get(s, "host_memory")), "CPU-only build: an estimate segment on a GPU");
		host++;
	}
	tu_check(host >= 2, "CPU-only build: no host estimate segments (%d)", host);
	json_decref(j);
	free(out);
	snprintf(cmd, sizeof cmd, "'%s' inspect %d --no-probe", argv[1], (int)pid);
	out = run(cmd, &status, &ms);
	tu_check(strstr(out, "a CPU-only build (no GPU backend library mapped") != NULL, "text: no CPU-build caveat:\n%s", out);
	tu_check(strstr(out, "-ngl 0") != NULL, "text: the plan is not made with -ngl 0:\n%s", out);
	tu_check(strstr(out, "-ngl 99 -ctk q8_0 -ctv f16") != NULL, "text: -ctk not as llama.cpp spells it:\n%s", out);
	free(out);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	standin = first;
}

int main(int argc, char **argv)
{
	char cmd[8192], model[256], ready[256];
	int status;
	double ms;

	if (argc != 5) {
		fprintf(stderr, "usage: %s gputaskman stand-in libllama.so libggml-cuda.so\n", argv[0]);
		return 2;
	}
	/* meson passes paths relative to the build folder; the stand-in runs elsewhere */
	for (int i = 1; i < 5; i++) {
		char *abs = realpath(argv[i], NULL);
		if (!abs) {
			fprintf(stderr, "FAIL: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		argv[i] = abs;
	}
	if (!mkdtemp(tmp))
		return 1;
	atexit(cleanup);
	snprintf(model, sizeof model, "%s/models", tmp);
	mkdir(model, 0755);
	snprintf(model, sizeof model, "%s/models/tiny.bin", tmp);
	snprintf(ready, sizeof ready, "%s/ready", tmp);
	snprintf(cmd, sizeof cmd, "'%s' --write-gguf '%s'", argv[2], model);
	tu_check(system(cmd) == 0, "stand-in could not write the GGUF");
	standin = fork();
	if (standin == 0) {
		if (chdir(tmp) != 0)
			_exit(1);
		execl(argv[2], argv[2], "-m", "models/tiny.bin", "-c", "4096", "-ngl", "99", "--lib", argv[3], "--lib",
		      argv[4], "--ready", ready, (char *)NULL);
		_exit(127);
	}
	if (standin < 0 || wait_ready(ready) != 0) {
		fprintf(stderr, "FAIL: the stand-in did not start\n");
		return 1;
	}

	snprintf(cmd, sizeof cmd, "'%s' inspect %d --json", argv[1], (int)standin);
	char *out = run(cmd, &status, &ms);
	tu_check(status == 0, "inspect PID --json exited %d", status);
	check_json(out);
	printf("inspect %d --json: %.1f ms wall (informational)\n", (int)standin, ms);
	free(out);

	snprintf(cmd, sizeof cmd, "'%s' inspect %d", argv[1], (int)standin);
	out = run(cmd, &status, &ms);
	tu_check(status == 0, "inspect PID exited %d", status);
	tu_check(strstr(out, "[mapped+cmdline, confirmed]") != NULL, "text: model evidence line missing:\n%s", out);
	tu_check(strstr(out, "Memory plan of tiny.bin") != NULL, "text: memory plan missing:\n%s", out);
	free(out);

	check_env_resolved_model(argv);
	check_cpu_build(argv);

	/* a PID that is no process: one line, exit 2 */
	kill(standin, SIGKILL);
	waitpid(standin, NULL, 0);
	snprintf(cmd, sizeof cmd, "'%s' inspect %d 2>&1", argv[1], (int)standin);
	out = run(cmd, &status, &ms);
	tu_check(status == 2, "inspect of an exited PID exited %d, not 2", status);
	tu_check(strstr(out, "no process with PID") && strchr(out, '\n') == out + strlen(out) - 1,
	      "inspect of an exited PID did not print one clear line: %s", out);
	free(out);
	standin = -1;
	if (tu_failures())
		fprintf(stderr, "%d check(s) failed\n", tu_failures());
	return tu_failures() ? 1 : 0;
}
