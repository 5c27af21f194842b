/* The /proc fd scan: link classification, start times, the per-process
 * cache, PID reuse, unreadable fd folders, and the refresh budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drm_case.h"
#include "drm_tree.h"
#include "sources/drm.h"
#include "sources/drm_attrib.h"
#include "sources/drm_scan.h"
#include "testutil.h"

static void test_classify(void **state)
{
	(void)state;
	char node[16];
	assert_int_equal(drm_fd_classify("/dev/dri/renderD128", node, sizeof node), DRM_FD_RENDER);
	assert_string_equal(node, "renderD128");
	assert_int_equal(drm_fd_classify("/dev/dri/card1", node, sizeof node), DRM_FD_PRIMARY);
	assert_string_equal(node, "card1");
	assert_int_equal(drm_fd_classify("/dev/kfd", node, sizeof node), DRM_FD_KFD);
	assert_int_equal(drm_fd_classify("/dev/dri/card0 (deleted)", node, sizeof node), DRM_FD_NONE);
	assert_int_equal(drm_fd_classify("/dev/dri/by-path/pci-0000:03:00.0-render", node, sizeof node), DRM_FD_NONE);
	assert_int_equal(drm_fd_classify("/dev/dri/renderD", node, sizeof node), DRM_FD_NONE);
	assert_int_equal(drm_fd_classify("/dev/dri/card12345678", node, sizeof node), DRM_FD_NONE);
	assert_int_equal(drm_fd_classify("socket:[1]", node, sizeof node), DRM_FD_NONE);
	assert_int_equal(drm_fd_classify("/dev/kfd2", node, sizeof node), DRM_FD_NONE);
}

static void test_stat_start_time(void **state)
{
	(void)state;
	uint64_t t;
	uint32_t f;
	const char *s = "42 (a) b) (c) S 1 42 42 0 -1 4194560 1 0 0 0 5 3 0 0 20 0 4 0 987654 1 2\n";
	assert_true(proc_stat_identity(s, strlen(s), &t, &f));
	assert_int_equal(t, 987654);
	assert_int_equal(f, 4194560);
	const char *shortline = "42 (x) S 1 2 3";
	assert_false(proc_stat_identity(shortline, strlen(shortline), &t, &f));
	assert_false(proc_stat_identity("no paren", 8, &t, &f));
	const char *neg = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 1\n";
	assert_false(proc_stat_identity(neg, strlen(neg), &t, &f));
}

static const struct drm_proc *find(const struct drm_scan *s, uint32_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static void test_cache_and_reuse(void **state)
{
	(void)state;
	struct drm_case c;
	struct drm_scan s;
	dc_begin(&c);
	drm_scan_init(&s);
	dt_proc(c.root, 100, 5, "a");
	dt_plain_fds(c.root, 100, 0, 30);
	dt_fd(c.root, 100, 30, "/dev/dri/renderD128", NULL);
	dt_fd(c.root, 100, 31, "/dev/kfd", NULL);
	dt_proc(c.root, 200, 6, "b");
	dt_plain_fds(c.root, 200, 0, 30);

	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.n_listed, 2);
	const struct drm_proc *a = find(&s, 100);
	assert_int_equal(a->n_fds, 2);
	assert_true(a->kfd);
	assert_int_equal(a->start_time, 5);
	assert_int_equal(find(&s, 200)->n_fds, 0);

	/* steady: nothing is listed again, the cached fds are re-checked */
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(s.n_listed, 0);
	assert_int_equal(find(&s, 100)->n_fds, 2);

	/* a cached fd that moved is dropped and the process listed again */
	dt_close_fd(c.root, 100, 31);
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(s.n_listed, 1); /* in the same refresh */
	assert_int_equal(find(&s, 100)->n_fds, 1);
	assert_false(find(&s, 100)->kfd);
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(s.n_listed, 0);

	/* the same PID, a new process: nothing cached survives */
	dt_proc(c.root, 200, 999, "b2");
	dt_fd(c.root, 200, 3, "/dev/dri/card0", NULL);
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(find(&s, 200)->start_time, 999);
	assert_int_equal(find(&s, 200)->n_fds, 1);

	/* a new fd in a cached process shows at the latest after the re-list period */
	dt_fd(c.root, 100, 40, "/dev/dri/renderD129", NULL);
	int seen_after = -1;
	for (int i = 0; i < 12 && seen_after < 0; i++) {
		assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
		if (find(&s, 100)->n_fds == 2)
			seen_after = i;
	}
	assert_true(seen_after >= 0);
	/* one-shot always lists everything */
	assert_int_equal(drm_scan_refresh(&s, true, 0), 0);
	assert_int_equal(s.n_listed, 2);

	/* a process that exits leaves the table */
	char gone[512];
	snprintf(gone, sizeof gone, "%s/proc/200", c.root);
	tu_rmrf(gone);
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(s.n, 1);
	drm_scan_free(&s);
	dc_end(&c);
}

static void test_unlistable(void **state)
{
	(void)state;
	struct drm_case c;
	struct drm_scan s;
	char path[512];
	dc_begin(&c);
	drm_scan_init(&s);
	dt_proc(c.root, 300, 1, "root-owned");
	/* a fd folder we cannot read (a file stands in for EACCES when tests run as root) */
	snprintf(path, sizeof path, "%s/proc/300/fd", c.root);
	tu_rmrf(path);
	tu_write_file(path, "", 0);
	dt_proc(c.root, 301, 1, "mine");
	/* a kernel thread's fd folder is closed too, but it holds no fds: not counted */
	dt_proc(c.root, 2, 0, "kthreadd");
	snprintf(path, sizeof path, "%s/proc/2/stat", c.root);
	const char *kstat = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 0 0 0\n";
	tu_write_file(path, kstat, strlen(kstat));
	snprintf(path, sizeof path, "%s/proc/2/fd", c.root);
	tu_rmrf(path);
	tu_write_file(path, "", 0);
	assert_int_equal(drm_scan_refresh(&s, true, 0), 0);
	assert_int_equal(s.n_unlistable, 1);
	assert_true(find(&s, 300)->unlistable);
	assert_false(find(&s, 2)->unlistable);
	assert_true(find(&s, 2)->kthread);
	/* live refreshes read stat first and never try a kernel thread's fds */
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(s.n_unlistable, 1);
	drm_scan_free(&s);
	dc_end(&c);
}

/* Many processes, a budget too small to list them: what was skipped is
 * marked, VRAM is N/A "partial scan", and the next refreshes catch up. */
static void test_budget_partial(void **state)
{
	(void)state;
	struct drm_case c;
	dc_begin(&c);
	dt_device(c.root, 0, 128, "0000:03:00.0", "amdgpu", 0x1002, 0x744c);
	const char *body = "drm-driver:\tamdgpu\ndrm-client-id:\t%u\ndrm-resident-vram:\t4 KiB\ndrm-shared-vram:\t0\n";
	for (uint32_t p = 1000; p < 1150; p++) {
		char b[256];
		snprintf(b, sizeof b, body, p);
		dt_proc(c.root, p, p, "worker");
		dt_plain_fds(c.root, p, 0, 3);
		dt_fd(c.root, p, 3, "/dev/dri/renderD128", b);
	}
	struct drm_scan s;
	drm_scan_init(&s);
	assert_int_equal(drm_scan_refresh(&s, false, 1), 0);
	assert_true(s.n_skipped > 0);
	assert_int_equal(s.n_skipped + s.n_listed, 150);
	int skipped = 0;
	for (size_t i = 0; i < s.n; i++)
		skipped += s.procs[i].skipped;
	assert_int_equal(skipped, s.n_skipped);
	/* one-shot ignores the budget */
	assert_int_equal(drm_scan_refresh(&s, true, 1), 0);
	assert_int_equal(s.n_skipped, 0);
	assert_int_equal(s.n_listed, 150);
	for (size_t i = 0; i < s.n; i++) {
		assert_int_equal(s.procs[i].n_fds, 1);
		assert_int_equal(s.procs[i].fds[0].fd, 3);
		assert_int_equal(s.procs[i].start_time, s.procs[i].pid);
	}
	drm_scan_free(&s);

	/* the source with a tiny budget: partial, said so, nothing guessed */
	void *priv;
	struct gtm_source_opts o = {.one_shot = false, .scan_budget_ns = 1};
	struct gtm_source_status st = {0};
	struct gtm_raw_uses uses = {0};
	priv = c.priv = drm_source_ops.open(&o, &st);
	assert_non_null(priv);
	c.snap = snapshot_new();
	assert_int_equal(drm_source_ops.sample(priv, c.snap, &uses, &st), 0);
	assert_true(c.snap->partial_scan);
	assert_true(dc_note(&c, "not scanned yet"));
	for (size_t i = 0; i < uses.n; i++) {
		assert_false(gtm_u64_ok(uses.v[i].use.vram) && uses.v[i].pid != 0);
		if (uses.v[i].pid)
			assert_string_equal(uses.v[i].use.na_reason, DRM_NA_PARTIAL);
	}
	raw_uses_free(&uses);
	dc_end(&c);
}

/* A one-shot scan spread over threads (GPUTASKMAN_THREADS=4, whatever the
 * CPUs) finds exactly what one thread finds: each process's DRM fds, in fd
 * order, a KFD holder, and a process without any. */
static void test_threads_agree(void **state)
{
	(void)state;
	struct drm_case c;
	dc_begin(&c);
	for (uint32_t p = 2000; p < 2300; p++) {
		dt_proc(c.root, p, p + 7, "w");
		dt_plain_fds(c.root, p, 0, 5);
		if (p % 3 == 0)
			dt_fd(c.root, p, 7, "/dev/dri/renderD128", NULL);
		if (p % 5 == 0)
			dt_fd(c.root, p, 9, "/dev/dri/card0", NULL);
		if (p % 7 == 0)
			dt_fd(c.root, p, 11, "/dev/kfd", NULL);
	}
	struct drm_scan by[2];
	static const char *const threads[2] = {"1", "4"};
	for (int k = 0; k < 2; k++) {
		setenv("GPUTASKMAN_THREADS", threads[k], 1);
		drm_scan_init(&by[k]);
		assert_int_equal(drm_scan_refresh(&by[k], true, 0), 0);
	}
	unsetenv("GPUTASKMAN_THREADS");
	assert_int_equal(by[0].n, 300);
	assert_int_equal(by[1].n, by[0].n);
	assert_int_equal(by[1].n_listed, 300);
	for (size_t i = 0; i < by[0].n; i++) {
		const struct drm_proc *a = &by[0].procs[i], *b = &by[1].procs[i];
		uint32_t pid = a->pid;
		assert_int_equal(b->pid, pid);
		assert_int_equal(a->n_fds, (pid % 3 == 0) + (pid % 5 == 0) + (pid % 7 == 0));
		assert_int_equal(b->n_fds, a->n_fds);
		assert_int_equal(b->kfd, pid % 7 == 0);
		assert_int_equal(b->start_time, a->start_time);
		for (int f = 0; f < a->n_fds; f++) {
			assert_int_equal(b->fds[f].fd, a->fds[f].fd);
			assert_int_equal(b->fds[f].kind, a->fds[f].kind);
			assert_string_equal(b->fds[f].node, a->fds[f].node);
		}
	}
	drm_scan_free(&by[0]);
	drm_scan_free(&by[1]);
	dc_end(&c);
}

/* A re-list the budget cuts keeps the previous list instead of an empty or
 * half one; the next unbudgeted refresh completes it. */
static void test_relist_cut_keeps_list(void **state)
{
	(void)state;
	struct drm_case c;
	struct drm_scan s;
	dc_begin(&c);
	drm_scan_init(&s);
	dt_proc(c.root, 500, 9, "server");
	dt_fd(c.root, 500, 5, "/dev/dri/renderD128", NULL);
	dt_fd(c.root, 500, 6, "/dev/dri/card0", NULL);
	dt_plain_fds(c.root, 500, 7, 1500);
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(find(&s, 500)->n_fds, 2);

	dt_close_fd(c.root, 500, 5);                       /* a cached DRM fd moved: re-list due */
	dt_fd(c.root, 500, 9000, "/dev/dri/renderD129", NULL); /* listed last */
	assert_int_equal(drm_scan_refresh(&s, false, 50000), 0); /* 50 µs: far too little */
	const struct drm_proc *p = find(&s, 500);
	assert_int_equal(s.n_listed, 0);
	assert_int_equal(p->n_fds, 1);                     /* the verified cached fd, nothing lost */
	assert_int_equal(p->fds[0].fd, 6);
	assert_int_equal(s.n_skipped, 0);                  /* known before: not a partial scan */

	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	p = find(&s, 500);
	assert_int_equal(s.n_listed, 1);
	assert_int_equal(p->n_fds, 2);
	drm_scan_free(&s);
	dc_end(&c);
}

/* A process started at start with n plain fds, then a render node. */
static void one_render_client(const char *root, uint32_t pid, uint64_t start, int n)
{
	dt_proc(root, pid, start, "a");
	dt_plain_fds(root, pid, 0, n);
	dt_fd(root, pid, n, "/dev/dri/renderD128", NULL);
}

/* Keys that settled (files older than the racy margin) stand in for the
 * start time; an fd added in the tree, or a stat rewritten in place (the PID
 * reused, the same size), still shows at the next refresh. */
static void test_settled_keys(void **state)
{
	struct drm_case c;
	struct drm_scan s;
	(void)state;
	dc_begin(&c);
	drm_scan_init(&s);
	one_render_client(c.root, 100, 5, 4);
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	usleep(150000); /* past the racy margin */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
		assert_int_equal(find(&s, 100)->n_fds, 1);
	}
	assert_true(find(&s, 100)->key.trusted);
	assert_int_equal(s.n_listed, 0);

	dt_fd(c.root, 100, 5, "/dev/dri/card0", NULL); /* the fd folder changes */
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(s.n_listed, 1);
	assert_int_equal(find(&s, 100)->n_fds, 2);

	usleep(150000);
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_true(find(&s, 100)->key.trusted);
	dt_proc(c.root, 100, 6, "a"); /* in place, same length */
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(find(&s, 100)->start_time, 6);
	assert_int_equal(s.n_listed, 1); /* a new process: listed again */
	/* rewritten again at once, within any timestamp's tick: not trusted, so read */
	assert_false(find(&s, 100)->key.trusted);
	dt_proc(c.root, 100, 7, "a");
	assert_int_equal(drm_scan_refresh(&s, false, 0), 0);
	assert_int_equal(find(&s, 100)->start_time, 7);
	drm_scan_free(&s);
	dc_end(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_stat_start_time),
		cmocka_unit_test(test_cache_and_reuse),
		cmocka_unit_test(test_unlistable),
		cmocka_unit_test(test_budget_partial),
		cmocka_unit_test(test_threads_agree),
		cmocka_unit_test(test_relist_cut_keeps_list),
		cmocka_unit_test(test_settled_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
