/* inspect PID on a process holding a model with a Qwen-sized vocabulary
 * (151,936 tokens and merges, about 6 MB of header): the e2e stand-in
 * llama-server maps it. Measures, median of several runs:
 *   - identify_process on that process's row, cold (first header parse) and
 *     warm (headers cached), plus the memory plan from its flags;
 *   - the whole `gputaskman inspect PID --json` command, whose collector scans
 *     every process on the machine (reported with the process count).
 * Args: gputaskman stand-in libllama.so libggml-cuda.so */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/cmd_inspect.h"
#include "core/util.h"
#include "identify/ident.h"
#include "proc_parse.h"

#define RUNS 21

static uint64_t now_ns(void)
{
	return now_monotonic_ns();
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double median_ms(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_u64);
	return (double)v[n / 2] / 1e6;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, r;
	char *buf = xmalloc(cap);
	if (!f) {
		free(buf);
		return NULL;
	}
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0)
		if ((n += r) + 1 == cap)
			buf = xrealloc(buf, cap *= 2);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void push(char ***v, size_t *n, const char *s, size_t len)
{
	*v = xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = xstrndup(s, len);
	(*v)[*n] = NULL;
}

/* The row the collector would build for pid, read straight from /proc. */
static struct gtm_process *row_of(pid_t pid)
{
	struct gtm_process *p = xcalloc(1, sizeof *p);
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	char path[64], link[PATH_MAX];
	size_t len, argc = 0;
	ssize_t n;

	atomic_init(&d->refs, 1);
	p->pid = (uint32_t)pid;
	str_copy(p->name, "llama-server", sizeof p->name);
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	char *cmd = slurp(path, &len);
	for (size_t i = 0; cmd && i < len; i += strlen(cmd + i) + 1)
		push(&d->argv, &argc, cmd + i, strlen(cmd + i));
	d->argc = (int)argc;
	free(cmd);
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, link, sizeof link - 1)) > 0)
		d->exe = xstrndup(link, (size_t)n);
	snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
	if ((n = readlink(path, link, sizeof link - 1)) > 0)
		d->cwd = xstrndup(link, (size_t)n);
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	char *maps = slurp(path, &len), *save = NULL;
	for (char *line = maps ? strtok_r(maps, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		size_t pl;
		const char *f = proc_maps_line_path(line, strlen(line), &pl);
		if (f)
			push(&d->maps, &d->n_maps, f, pl);
	}
	free(maps);
	p->detail = d;
	return p;
}

static uint64_t identify_once(struct identify_ctx *c, struct gtm_process *p, bool plan)
{
	uint64_t t0 = now_ns();
	identify_process(c, p);
	for (int i = 0; plan && i < p->ident->n_models; i++) {
		struct inspect_model im;
		char err[256];
		if (p->ident->models[i].have_info &&
		    inspect_model_load(&im, p->ident->models[i].path, true, NULL, p->ident->flags, err, sizeof err))
			inspect_model_release(&im);
	}
	return now_ns() - t0;
}

static int count_procs(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		n += de->d_name[0] >= '1' && de->d_name[0] <= '9';
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/gtm-bench-ident-XXXXXX", model[128], ready[128], cmd[8192];
	uint64_t t[RUNS];

	if (argc != 5 || !mkdtemp(tmp)) {
		fprintf(stderr, "usage: %s gputaskman stand-in libllama.so libggml-cuda.so\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < 5; i++)
		argv[i] = realpath(argv[i], NULL);
	snprintf(model, sizeof model, "%s/qwen-vocab.gguf", tmp);
	snprintf(ready, sizeof ready, "%s/ready", tmp);
	snprintf(cmd, sizeof cmd, "'%s' --write-gguf '%s' 151936", argv[2], model);
	if (system(cmd) != 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		execl(argv[2], argv[2], "-m", model, "-c", "8192", "--lib", argv[3], "--lib", argv[4], "--ready", ready,
		      (char *)NULL);
		_exit(127);
	}
	struct stat st;
	for (int i = 0; i < 200 && stat(ready, &st) != 0; i++)
		usleep(20000);

	struct identify_ctx *c = identify_ctx_new();
	struct gtm_process *p = row_of(pid);
	stat(model, &st);
	printf("model header ~6 MB (151936 tokens + merges), file %.1f MiB\n", (double)st.st_size / 1048576.0);
	printf("identify_process, cold (header parsed)     %.2f ms\n", (double)identify_once(c, p, false) / 1e6);
	for (int i = 0; i < RUNS; i++)
		t[i] = identify_once(c, p, false);
	printf("identify_process, warm (median of %d)      %.3f ms\n", RUNS, median_ms(t, RUNS));
	for (int i = 0; i < RUNS; i++)
		t[i] = identify_once(c, p, true);
	printf("identify + memory plan, warm (median)      %.3f ms\n", median_ms(t, RUNS));

	snprintf(cmd, sizeof cmd, "'%s' inspect %d --json >/dev/null", argv[1], (int)pid);
	for (int i = 0; i < 11; i++) {
		uint64_t t0 = now_ns();
		if (system(cmd) != 0)
			fprintf(stderr, "inspect failed\n");
		t[i] = now_ns() - t0;
	}
	printf("gputaskman inspect PID --json (median of 11) %.1f ms wall, %d processes on this machine\n",
	       median_ms(t, 11), count_procs());

	ident_free(p->ident);
	proc_detail_unref(p->detail);
	free(p);
	identify_ctx_free(c);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : 1;
}
