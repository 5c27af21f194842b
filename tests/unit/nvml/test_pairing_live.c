/* Container pairing with real processes: stand-ins that map a library named
 * libcuda.so.1 (tests/fakes/cuda), the fake NVML listing host PIDs that do not
 * exist here, the real /proc scan, the NVML source and owner attribution.
 * argv[1] = cuda_standin, argv[2] = the stand-in libcuda.so.1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/attribute.h"
#include "core/sysroot.h"
#include "nvml_test_util.h"
#include "platform.h"
#include "sources/nvml.h"
#include "proc_capture.h"
#include "testutil.h"

static const char *standin_exe, *libcuda_path;

struct standin {
	pid_t pid;
	int in_fd; /* closing it ends the stand-in */
};

static struct standin start_standin(void)
{
	int in[2], out[2];
	char buf[16] = "";
	struct standin s;

	/* close-on-exec: a later stand-in must not hold this one's stdin open */
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
		abort();
	s.pid = fork();
	if (s.pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(standin_exe, standin_exe, libcuda_path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (read(out[0], buf, sizeof buf - 1) < 5 || strncmp(buf, "ready", 5) != 0)
		fail_msg("stand-in did not start");
	close(out[0]);
	s.in_fd = in[1];
	usleep(30 * 1000); /* distinct start times (clock ticks) for creation order */
	return s;
}

static void stop_standin(struct standin *s)
{
	close(s->in_fd);
	waitpid(s->pid, NULL, 0);
}

/* Host PIDs that are no process here: callers start above Linux's
 * PID_MAX_LIMIT (4194304), so none can become a process while the test runs. */
static uint32_t absent_pid(uint32_t from)
{
	for (uint32_t p = from;; p++)
		if (kill((pid_t)p, 0) != 0)
			return p;
}

static const struct gtm_process *row_of_pid(const struct gtm_snapshot *s, pid_t pid)
{
	for (int i = 0; i < s->n_processes; i++)
		if (s->processes[i].pid == (uint32_t)pid)
			return &s->processes[i];
	fail_msg("no row for pid %d", (int)pid);
	return NULL;
}

static const struct gtm_process *row_of_host(const struct gtm_snapshot *s, uint32_t host)
{
	for (int i = 0; i < s->n_processes; i++)
		if (s->processes[i].host_pid == host)
			return &s->processes[i];
	fail_msg("no row for host pid %u", host);
	return NULL;
}

/* One refresh as the collector does it, in container mode. */
static struct gtm_snapshot *refresh(void *nvml, struct proc_cache *pc, struct attribute_state *as,
				    struct gtm_raw_uses *uses)
{
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_source_status st = {0};
	s->mode = GTM_MODE_CONTAINER;
	raw_uses_clear(uses);
	assert_int_equal(nvml_source_ops.sample(nvml, s, uses, &st), 0);
	assert_int_equal(proc_cache_scan(pc, s, NULL), 0);
	attribute_uses(as, s, uses);
	return s;
}

/* The container's view of /proc: GPUTASKMAN_ROOT holds a replay of /proc's
 * system files and only the chosen PIDs (copied: a root never follows a link
 * out of itself), so other processes of this machine that map libcuda stay
 * out of the test. */
static char *view_root;

static void view_add_pid(pid_t pid)
{
	if (tu_capture_pid(view_root, (int)pid) != 0)
		fail_msg("capture PID %d", (int)pid);
}

static void view_drop_pid(pid_t pid)
{
	char path[512];
	snprintf(path, sizeof path, "%s/proc/%d", view_root, (int)pid);
	tu_rmrf(path);
}

static void make_view(void)
{
	view_root = tu_tempdir();
	tu_capture_system(view_root);
	setenv("GPUTASKMAN_ROOT", view_root, 1);
	sysroot_reset();
}

/* One container view watched over several refreshes. */
struct live {
	void *nvml;
	struct proc_cache *pc;
	struct attribute_state *as;
	struct gtm_raw_uses uses;
};

/* Opens the NVML source on the scenario text and the container's view. */
static void live_open(struct live *l, const char *scenario)
{
	struct gtm_source_status st;
	nt_write_scenario(scenario);
	l->nvml = nt_open(&st);
	assert_non_null(l->nvml);
	l->pc = proc_cache_new();
	l->as = attribute_state_new();
	l->uses = (struct gtm_raw_uses){0};
}

static void live_close(struct live *l)
{
	raw_uses_free(&l->uses);
	attribute_state_free(l->as);
	proc_cache_free(l->pc);
	nvml_source_ops.close(l->nvml);
	nt_cleanup();
	tu_rmrf(view_root);
	free(view_root);
}

static void test_pairing_with_standins(void **state)
{
	(void)state;
	char text[1024];
	struct standin a = start_standin(), b = start_standin();
	make_view();
	view_add_pid(a.pid);
	view_add_pid(b.pid);
	view_add_pid(getpid()); /* a process of the container that maps no libcuda */
	uint32_t h1 = absent_pid(4194401), h2 = absent_pid(h1 + 1), h4 = absent_pid(h2 + 1);

	/* Refresh 1: three host PIDs for two CUDA processes here → '?', '?', H:. */
	snprintf(text, sizeof text, "device name=g mem_total=1000\nprocess dev=0 pid=%u mem=100 sm=5\n"
		 "process dev=0 pid=%u mem=200\nprocess dev=0 pid=%u mem=300\n", h1, h2, h4);
	struct live l;
	live_open(&l, text);
	struct gtm_snapshot *s = refresh(l.nvml, l.pc, l.as, &l.uses);
	assert_int_equal(row_of_pid(s, getpid())->owner, GTM_OWNER_NONE);
	const struct gtm_process *p = row_of_pid(s, a.pid);
	assert_int_equal(p->owner, GTM_OWNER_GUESSED);
	assert_int_equal(p->host_pid, h1); /* creation order */
	assert_int_equal(p->uses[0].vram.v, 100);
	assert_int_equal(row_of_pid(s, b.pid)->host_pid, h2);
	assert_int_equal(row_of_host(s, h4)->owner, GTM_OWNER_HOST);
	snapshot_free(s);

	/* Refresh 2: a third stand-in and a new host PID appear together: pinned. */
	struct standin c = start_standin();
	view_add_pid(c.pid);
	uint32_t h3 = absent_pid(h4 + 1);
	snprintf(text, sizeof text, "device name=g mem_total=1000\nprocess dev=0 pid=%u mem=100 sm=5\n"
		 "process dev=0 pid=%u mem=200\nprocess dev=0 pid=%u mem=300\nprocess dev=0 pid=%u mem=400\n",
		 h1, h2, h4, h3);
	nt_write_scenario(text);
	s = refresh(l.nvml, l.pc, l.as, &l.uses);
	p = row_of_pid(s, c.pid);
	assert_int_equal(p->owner, GTM_OWNER_MATCHED);
	assert_int_equal(p->host_pid, h3);
	char label[24];
	snprintf(label, sizeof label, "*%d", (int)c.pid);
	assert_string_equal(p->label, label);
	assert_int_equal(p->uses[0].vram.v, 400);
	p = row_of_pid(s, a.pid);
	assert_int_equal(p->host_pid, h1);
	assert_true(p->uses[0].sm_pct.prov == GTM_MEASURED && p->uses[0].sm_pct.v == 5); /* load follows the match */
	assert_int_equal(row_of_host(s, h4)->pid, 0);
	snapshot_free(s);

	/* Refresh 3: stand-in a exits and NVML drops h1: counts match → '*'. */
	stop_standin(&a);
	view_drop_pid(a.pid);
	snprintf(text, sizeof text, "device name=g mem_total=1000\nprocess dev=0 pid=%u mem=200\n"
		 "process dev=0 pid=%u mem=400\n", h2, h3);
	nt_write_scenario(text);
	s = refresh(l.nvml, l.pc, l.as, &l.uses);
	assert_int_equal(row_of_pid(s, b.pid)->host_pid, h2);
	assert_int_equal(row_of_pid(s, c.pid)->host_pid, h3);
	assert_int_equal(s->n_gpu_processes, 2);
	snapshot_free(s);

	stop_standin(&b);
	stop_standin(&c);
	live_close(&l);
}

/* A host graphics process (the host's display server, no libcuda) beside two
 * CUDA stand-ins: both '*'; then one exits while NVML still lists its host
 * PID: shown exited, never handed to a stand-in started after it. */
static void test_graphics_and_exit_with_standins(void **state)
{
	(void)state;
	char text[1024], label[24];
	struct standin a = start_standin(), b = start_standin();
	make_view();
	view_add_pid(a.pid);
	view_add_pid(b.pid);
	uint32_t h1 = absent_pid(4194401), h2 = absent_pid(h1 + 1), hx = absent_pid(h2 + 1);
	const char *fmt = "device name=g mem_total=1000\nprocess dev=0 pid=%u mem=100 list=both\n"
			  "process dev=0 pid=%u mem=200\nprocess dev=0 pid=%u mem=300 list=graphics\n";

	snprintf(text, sizeof text, fmt, h1, h2, hx);
	struct live l;
	live_open(&l, text);
	struct gtm_snapshot *s = refresh(l.nvml, l.pc, l.as, &l.uses);
	const struct gtm_process *p = row_of_pid(s, a.pid);
	assert_int_equal(p->owner, GTM_OWNER_MATCHED);
	assert_int_equal(p->host_pid, h1);
	assert_true(p->uses[0].compute && p->uses[0].graphics);
	assert_int_equal(row_of_pid(s, b.pid)->owner, GTM_OWNER_MATCHED);
	assert_int_equal(row_of_pid(s, b.pid)->host_pid, h2);
	assert_int_equal(row_of_host(s, hx)->owner, GTM_OWNER_HOST);
	snapshot_free(s);

	/* b exits, c starts; NVML still lists b's host PID */
	pid_t b_pid = b.pid;
	stop_standin(&b);
	view_drop_pid(b_pid); /* the view is a copy: the exit shows when its folder goes */
	struct standin c = start_standin();
	view_add_pid(c.pid);
	s = refresh(l.nvml, l.pc, l.as, &l.uses);
	p = row_of_host(s, h2);
	assert_int_equal(p->owner, GTM_OWNER_EXITED);
	assert_int_equal(p->pid, 0);
	assert_int_equal(p->exited_pid, (uint32_t)b_pid);
	snprintf(label, sizeof label, "*x%d", (int)b_pid);
	assert_string_equal(p->label, label);
	assert_string_equal(p->name, "cuda_standin");
	assert_int_equal(p->uses[0].vram.v, 200);
	assert_int_equal(row_of_pid(s, c.pid)->owner, GTM_OWNER_NONE);
	assert_int_equal(row_of_pid(s, a.pid)->host_pid, h1);
	snapshot_free(s);

	/* NVML drops it: the row goes; c still has no host PID of its own */
	snprintf(text, sizeof text, "device name=g mem_total=1000\nprocess dev=0 pid=%u mem=100 list=both\n"
		 "process dev=0 pid=%u mem=300 list=graphics\n", h1, hx);
	nt_write_scenario(text);
	s = refresh(l.nvml, l.pc, l.as, &l.uses);
	assert_int_equal(s->n_gpu_processes, 2);
	assert_int_equal(row_of_pid(s, c.pid)->owner, GTM_OWNER_NONE);
	snapshot_free(s);

	stop_standin(&a);
	stop_standin(&c);
	live_close(&l);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_pairing_live cuda_standin libcuda.so.1\n");
		return 2;
	}
	standin_exe = argv[1];
	libcuda_path = argv[2];
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_pairing_with_standins),
					   cmocka_unit_test(test_graphics_and_exit_with_standins)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
