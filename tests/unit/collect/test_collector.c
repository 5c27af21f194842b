/* The collector on a fixture tree: an amdgpu card, an Ollama runner holding a
 * render node (the GPU user), its `ollama serve` parent, and a shell that
 * uses no GPU. By default only the GPU user and the parent it serves through
 * get more than ps reads; --all (collector_set_all, the live view's a) reads
 * every process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/collector.h"
#include "core/snapshot.h"
#include "core/sysroot.h"
#include "drm_tree.h"
#include "testutil.h"
#include "views/json.h"

static char *root;

static void put(const char *rel, const void *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	tu_write_file(path, data, len);
}

/* A process: stat (with its parent), comm, status, cmdline (NUL-separated). */
static void proc(uint32_t pid, uint32_t ppid, const char *comm, const char *cmdline, size_t len)
{
	char rel[64], stat[512];
	dt_proc(root, pid, 1000 + pid, comm);
	snprintf(stat, sizeof stat,
		 "%u (%s) S %u %u %u 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 4 0 %u 123456789 2048 "
		 "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n",
		 pid, comm, ppid, pid, pid, 1000 + pid);
	snprintf(rel, sizeof rel, "proc/%u/stat", pid);
	put(rel, stat, strlen(stat));
	snprintf(rel, sizeof rel, "proc/%u/cmdline", pid);
	put(rel, cmdline, len);
}

static const char fdinfo[] = "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t614\ndrm-driver:\tamdgpu\n"
			     "drm-pdev:\t0000:03:00.0\ndrm-client-id:\t7\ndrm-memory-vram:\t4096 KiB\n"
			     "drm-memory-gtt:\t512 KiB\ndrm-engine-gfx:\t1000 ns\n";

static int setup(void **state)
{
	(void)state;
	root = tu_tempdir();
	dt_device(root, 0, 128, "0000:03:00.0", "amdgpu", 0x1002, 0x744c);
	static const char init[] = "/sbin/init\0", serve[] = "/usr/bin/ollama\0serve\0",
			  runner[] = "/usr/bin/ollama\0runner\0--model\0/srv/m.gguf\0--port\0" "40000\0",
			  bash[] = "-bash\0";
	proc(1, 0, "init", init, sizeof init - 1);
	proc(50, 1, "ollama", serve, sizeof serve - 1);
	proc(60, 50, "ollama", runner, sizeof runner - 1);
	proc(70, 1, "bash", bash, sizeof bash - 1);
	dt_plain_fds(root, 60, 0, 3);
	dt_fd(root, 60, 3, "/dev/dri/renderD128", fdinfo);
	setenv("GPUTASKMAN_ROOT", root, 1);
	sysroot_reset();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	tu_rmrf(root);
	free(root);
	return 0;
}

static const struct gtm_process *row(const struct gtm_snapshot *s, uint32_t pid, int *index)
{
	for (int i = 0; i < s->n_processes; i++)
		if (s->processes[i].pid == pid) {
			if (index)
				*index = i;
			return &s->processes[i];
		}
	return NULL;
}

static void test_only_what_matters(void **state)
{
	(void)state;
	struct collector_opts o = {.one_shot = true, .gpu_filter = -1, .no_probe = true};
	struct collector *c = collector_new(&o);
	struct gtm_snapshot *s = collector_refresh(c);
	const struct gtm_process *gpu, *parent;
	int gi = -1, pi = -1;

	assert_int_equal(s->n_procs_total, 4);
	assert_non_null(gpu = row(s, 60, &gi));
	assert_true(gi < s->n_gpu_processes); /* (beside it, the card's unattributed row) */
	assert_non_null(gpu->detail);
	assert_non_null(gpu->ident);
	/* the parent the runner serves through: read, identified, listed */
	assert_non_null(parent = row(s, 50, &pi));
	assert_true(parent->runner_parent);
	assert_non_null(parent->detail);
	assert_int_equal(parent->detail->argc, 2);
	assert_true(view_lists_process(s, gi, false));
	assert_true(view_lists_process(s, pi, false));
	/* a shell that uses no GPU: what ps reads at most, and no view lists it */
	const struct gtm_process *sh = row(s, 70, NULL);
	assert_true(sh == NULL || sh->detail == NULL);
	snapshot_free(s);

	/* --all, or the live view's a: every process, details read */
	collector_set_all(c, true);
	s = collector_refresh(c);
	assert_non_null(sh = row(s, 70, NULL));
	assert_non_null(sh->detail);
	assert_string_equal(sh->detail->argv[0], "-bash");
	assert_non_null(sh->ident);
	snapshot_free(s);

	collector_set_all(c, false);
	s = collector_refresh(c);
	sh = row(s, 70, NULL);
	assert_true(sh == NULL || sh->detail == NULL);
	snapshot_free(s);
	collector_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_only_what_matters, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
