/* The matcher over the replay scenarios of ../shared/platforms.md 2.6, a WSL
 * VM restart and PID reuse (the random property test is test_wsl_property.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "wsl_tick.h"

#define CTX(...) ((const long[]){__VA_ARGS__, -1})
#define NONE ((const long[]){-1})
#define SELF 100

struct fx {
	struct wsl_matcher *m;
	struct tk k;
	struct wsl_result r;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	f->m = wsl_matcher_new();
	tk_init(&f->k, 4242, "boot-a");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	wsl_matcher_free(f->m);
	free(f);
	return 0;
}

static void tick(struct fx *f, const long *mib)
{
	tk_ctx(&f->k, mib);
	wsl_match_tick(f->m, &f->k.t, &f->r);
}

/* The monitor's first tick sees nothing; then its own NVML context appears
 * with it (a new process and a new context pin each other): '*'. */
static void monitor_start(struct fx *f)
{
	tick(f, NONE);
	tk_proc(&f->k, SELF, 3, true);
	tick(f, CTX(0));
}

static void expect(const struct fx *f, uint32_t pid, enum wsl_owner o, bool matched, int ctx)
{
	const struct wsl_row *r = row_of(&f->r, pid, 0);
	assert_non_null(r);
	assert_int_equal(r->owner, o);
	assert_int_equal(r->matched, matched);
	assert_int_equal(r->ctx, ctx);
}

/* 1. The monitor alone: its own 0-byte context, '*', nothing foreign. Seen
 * already there at start-up, the same context is only a guess ('?'): another
 * NVML-only process may have made it. */
static void monitor_alone(void **state)
{
	struct fx *f = *state;
	tk_proc(&f->k, SELF, 3, true);
	tick(f, CTX(0));
	expect(f, SELF, WSL_OWNER_PROC, false, 0);
	assert_true(f->r.reset);
	wsl_matcher_free(f->m);
	f->m = wsl_matcher_new();
	tk_drop(&f->k, SELF);
	monitor_start(f);
	expect(f, SELF, WSL_OWNER_PROC, true, 0);
	assert_int_equal(count_owner(&f->r, WSL_OWNER_FOREIGN), 0);
	assert_false(f->r.reset);
}

/* 2. One new CUDA process and one new head context pin each other; growth keeps it. */
static void one_new_process(void **state)
{
	struct fx *f = *state;
	monitor_start(f);
	tk_proc(&f->k, 200, 50, false);
	tick(f, CTX(300, 0));
	expect(f, 200, WSL_OWNER_PROC, true, 0);
	tick(f, CTX(2048, 0));
	tick(f, CTX(9000, 0));
	expect(f, 200, WSL_OWNER_PROC, true, 0);
	assert_true(row_of(&f->r, 200, 0)->established);
	expect(f, SELF, WSL_OWNER_PROC, true, 1);
}

/* 3. Processes running before the monitor: start order is only a guess of
 * context order (a job may open the GPU long after it starts): the guess is
 * shown, '?', and stays '?' while nothing happens. */
static void preexisting_in_order(void **state)
{
	struct fx *f = *state;
	tk_proc(&f->k, 11, 1, false);
	tk_proc(&f->k, 12, 2, false);
	tk_proc(&f->k, SELF, 3, true);
	for (int i = 0; i < 5; i++) {
		tick(f, CTX(0, 500, 1024));
		expect(f, 11, WSL_OWNER_PROC, false, 2);
		expect(f, 12, WSL_OWNER_PROC, false, 1);
		expect(f, SELF, WSL_OWNER_PROC, false, 0);
	}
}

/* 3a. Three jobs whose contexts were made in another order than they
 * started (12, then 13, then 11): the start-order guess is wrong and says
 * '?'. 12 exits and the oldest context vanishes with it: that was 12's, so 12
 * is shown on nothing else; 13 exits, the 50 GiB one goes: 11 is left with
 * the one context it can own, its own. */
static void startup_out_of_order(void **state)
{
	struct fx *f = *state;
	tk_proc(&f->k, 11, 1, false);
	tk_proc(&f->k, 12, 2, false);
	tk_proc(&f->k, 13, 3, false);
	tick(f, CTX(2048, 51200, 26624)); /* newest first: 11's, 13's, 12's */
	for (int i = 0; i < f->r.n_rows; i++)
		assert_false(f->r.rows[i].matched);
	expect(f, 11, WSL_OWNER_PROC, false, 2); /* the guess: wrong */
	tk_drop(&f->k, 12);
	tick(f, CTX(2048, 51200, 26624));
	for (int i = 0; i < f->r.n_rows; i++)
		assert_false(f->r.rows[i].matched);
	tick(f, CTX(2048, 51200));
	for (int i = 0; i < f->r.n_rows; i++)
		assert_false(f->r.rows[i].matched && f->r.rows[i].pid == 11 && f->r.rows[i].ctx != 0);
	assert_null(row_of(&f->r, 12, 0));
	tick(f, CTX(2048, 51200));
	tk_drop(&f->k, 13);
	tick(f, CTX(2048, 51200));
	tick(f, CTX(2048));
	assert_null(row_of(&f->r, 13, 0));
	expect(f, 11, WSL_OWNER_PROC, false, 0); /* right now; '?': it may be foreign and 11 still to come */
}

/* 3b. The same with a foreign context interleaved: all '?'. */
static void preexisting_with_foreign(void **state)
{
	struct fx *f = *state;
	tk_proc(&f->k, 11, 1, false);
	tk_proc(&f->k, 12, 2, false);
	tk_proc(&f->k, SELF, 3, true);
	tick(f, CTX(0, 200, 500, 1024));
	expect(f, SELF, WSL_OWNER_PROC, false, 0);
	assert_false(row_of(&f->r, 11, 0)->matched);
	assert_false(row_of(&f->r, 12, 0)->matched);
	assert_int_equal(count_owner(&f->r, WSL_OWNER_FOREIGN), 1);
}

/* 4. A exits while B starts; A's context is held aside, then vanishes; nothing reassigned. */
static void exit_and_start(void **state)
{
	struct fx *f = *state;
	monitor_start(f);
	tk_proc(&f->k, 11, 1, false);
	tick(f, CTX(1024, 0));
	tick(f, CTX(1024, 0));
	tk_drop(&f->k, 11);
	tk_proc(&f->k, 13, 90, false);
	tick(f, CTX(300, 1024, 0));
	expect(f, 11, WSL_OWNER_EXITED, true, 1);
	expect(f, 13, WSL_OWNER_PROC, true, 0);
	expect(f, SELF, WSL_OWNER_PROC, true, 2);
	tick(f, CTX(500, 0));
	assert_null(row_of(&f->r, 11, 0));
	expect(f, 13, WSL_OWNER_PROC, true, 0);
	expect(f, SELF, WSL_OWNER_PROC, true, 1);
}

/* 5. A context with nobody pending is foreign and its size a hint; later one
 * process and two new contexts: it gets the one that is not the hinted size, '?'. */
static void foreign_hinted(void **state)
{
	struct fx *f = *state;
	const uint64_t *h;
	const char *boot;
	monitor_start(f);
	tick(f, CTX(128, 0));
	assert_int_equal(count_owner(&f->r, WSL_OWNER_FOREIGN), 1);
	assert_int_equal(wsl_hints(f->m, &h, &boot), 1);
	assert_int_equal(h[0], 128 * MB);
	assert_string_equal(boot, "boot-a");
	assert_true(wsl_hints_dirty(f->m));
	tk_proc(&f->k, 20, 80, false);
	tick(f, CTX(128, 700, 128, 0));
	expect(f, 20, WSL_OWNER_PROC, false, 1);
	assert_int_equal(wsl_hints(f->m, &h, &boot), 1); /* a '?' foreign is no hint */
}

/* 6. Two processes first seen together, two 0-byte contexts: both '?', growth
 * adds nothing; one exits, a context vanishes: one explanation left. */
static void same_size(void **state)
{
	struct fx *f = *state;
	monitor_start(f);
	tk_proc(&f->k, 21, 80, false);
	tk_proc(&f->k, 22, 81, false);
	tick(f, CTX(0, 0, 0));
	assert_false(row_of(&f->r, 21, 0)->matched);
	assert_false(row_of(&f->r, 22, 0)->matched);
	tick(f, CTX(24576, 0, 0));
	assert_false(row_of(&f->r, 21, 0)->matched);
	assert_false(row_of(&f->r, 22, 0)->matched);
	tk_drop(&f->k, 21);
	tick(f, CTX(24576, 0, 0));
	assert_false(row_of(&f->r, 22, 0)->matched);
	tick(f, CTX(24576, 0)); /* the 0-byte one went with 21: 24 GiB are not 0 B grown in a tick */
	expect(f, 22, WSL_OWNER_PROC, true, 0);
	assert_null(row_of(&f->r, 21, 0));
}

/* 7. Weights uploading: 0.3 GiB to 18 GiB in one tick, same owner. */
static void weights_upload(void **state)
{
	struct fx *f = *state;
	monitor_start(f);
	tk_proc(&f->k, 30, 90, false);
	tick(f, CTX(300, 0));
	tick(f, CTX(300, 0));
	tick(f, CTX(300, 0));
	assert_true(row_of(&f->r, 30, 0)->established);
	tick(f, CTX(18432, 0));
	expect(f, 30, WSL_OWNER_PROC, true, 0);
	assert_int_equal(row_of(&f->r, 30, 0)->v.local, 18432 * MB);
}

/* 8. /dev/dxg open, no context yet: pending (N/A); a later context goes to it '?'. */
static void pending_then_context(void **state)
{
	struct fx *f = *state;
	monitor_start(f);
	tk_proc(&f->k, 40, 90, false);
	tick(f, CTX(0));
	expect(f, 40, WSL_OWNER_PENDING, false, -1);
	tick(f, CTX(0));
	expect(f, 40, WSL_OWNER_PENDING, false, -1);
	tick(f, CTX(500, 0));
	expect(f, 40, WSL_OWNER_PROC, false, 0);
}

/* 8b. ... unless rule (c) excludes it: an NVML-only process owns no 500 MiB context. */
static void pending_nvml_only(void **state)
{
	struct fx *f = *state;
	monitor_start(f);
	tk_proc(&f->k, 40, 90, true);
	tick(f, CTX(0));
	tick(f, CTX(500, 0));
	expect(f, 40, WSL_OWNER_PENDING, false, -1);
	assert_int_equal(f->r.rows[0].owner, WSL_OWNER_FOREIGN);
	assert_true(f->r.rows[0].matched);
}

/* The WSL VM restarted: boot id and vmwp PID change; state and hints reset. */
static void vm_restart(void **state)
{
	struct fx *f = *state;
	const uint64_t *h;
	const char *boot;
	monitor_start(f);
	tick(f, CTX(64, 0));
	assert_int_equal(wsl_hints(f->m, &h, &boot), 1);
	tk_init(&f->k, 5151, "boot-b");
	tk_proc(&f->k, 50, 2, false);
	tk_proc(&f->k, SELF, 3, true);
	tick(f, CTX(0, 700));
	assert_true(f->r.reset);
	assert_int_equal(wsl_hints(f->m, &h, &boot), 0);
	assert_string_equal(boot, "boot-b");
	expect(f, 50, WSL_OWNER_PROC, false, 1); /* a start-up tick again: guesses */
	expect(f, SELF, WSL_OWNER_PROC, false, 0);
}

/* Cached hints of another boot are not used. */
static void hints_other_boot(void **state)
{
	struct fx *f = *state;
	const uint64_t *h;
	const char *boot;
	uint64_t old[] = {128 * MB};
	wsl_hints_load(f->m, "boot-z", old, 1);
	monitor_start(f);
	assert_int_equal(wsl_hints(f->m, &h, &boot), 0);
	wsl_hints_load(f->m, "boot-a", old, 1);
	tick(f, CTX(0));
	assert_int_equal(wsl_hints(f->m, &h, &boot), 1);
}

/* PID reuse: same PID, new start time: a new process; the old one's context exited. */
static void pid_reuse(void **state)
{
	struct fx *f = *state;
	monitor_start(f);
	tk_proc(&f->k, 60, 10, false);
	tick(f, CTX(800, 0));
	tick(f, CTX(800, 0));
	tk_drop(&f->k, 60);
	tk_proc(&f->k, 60, 99, false);
	tick(f, CTX(200, 800, 0));
	const struct wsl_row *old = row_of(&f->r, 60, 10), *now = row_of(&f->r, 60, 99);
	assert_non_null(old);
	assert_non_null(now);
	assert_int_equal(old->owner, WSL_OWNER_EXITED);
	assert_int_equal(old->ctx, 1);
	assert_int_equal(now->owner, WSL_OWNER_PROC);
	assert_true(now->matched);
	assert_int_equal(now->ctx, 0);
}

/* A live owner's context vanishing returns it to pending (N/A), never to 0. */
static void context_vanishes_owner_lives(void **state)
{
	struct fx *f = *state;
	monitor_start(f);
	tk_proc(&f->k, 70, 90, false);
	tick(f, CTX(400, 0));
	tick(f, CTX(0));
	expect(f, 70, WSL_OWNER_PENDING, false, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(monitor_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(one_new_process, setup, teardown),
		cmocka_unit_test_setup_teardown(preexisting_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(startup_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(preexisting_with_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(exit_and_start, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_hinted, setup, teardown),
		cmocka_unit_test_setup_teardown(same_size, setup, teardown),
		cmocka_unit_test_setup_teardown(weights_upload, setup, teardown),
		cmocka_unit_test_setup_teardown(pending_then_context, setup, teardown),
		cmocka_unit_test_setup_teardown(pending_nvml_only, setup, teardown),
		cmocka_unit_test_setup_teardown(vm_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(hints_other_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(context_vanishes_owner_lives, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
