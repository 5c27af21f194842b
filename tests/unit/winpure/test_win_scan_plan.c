/* The Windows scan's plan (src/platform/windows/win_scan_plan.c): which
 * listed processes get a full row, a basic one, a count or nothing, under
 * details_priority_only, pair_if_missing and only_pid, as the Linux scan
 * decides them (tests/unit/proc/test_proc_scan.c). Wine lists no GPU user,
 * so this is where priority_only is tested for Windows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "platform/windows/win_scan_plan.h"

/* explorer 100 → ollama 200 → runner 300; 400 a GPU user whose parent 4
 * (System) is listed; 500, 600 unrelated */
static const struct win_listed listed[] = {{4, 0}, {100, 4}, {200, 100}, {300, 200}, {400, 4}, {500, 100}, {600, 0}};
#define N (sizeof listed / sizeof listed[0])

static void expect(const uint8_t *rows, const char *want)
{
	static const char code[] = {[WIN_ROW_SKIP] = '-', [WIN_ROW_COUNT] = 'c', [WIN_ROW_BASIC] = 'b', [WIN_ROW_FULL] = 'F'};
	char got[N + 1];
	for (size_t i = 0; i < N; i++)
		got[i] = code[rows[i]];
	got[N] = '\0';
	assert_string_equal(got, want);
}

static void test_everything(void **state)
{
	(void)state;
	uint8_t rows[N];
	assert_false(win_scan_plan(listed, N, NULL, rows));
	expect(rows, "FFFFFFF");
	struct proc_scan_opts o = {.budget_ns = 1};
	assert_false(win_scan_plan(listed, N, &o, rows));
	expect(rows, "FFFFFFF");
}

static void test_priority_only(void **state)
{
	(void)state;
	uint8_t rows[N];
	static const uint32_t prio[] = {300, 400};
	struct proc_scan_opts o = {.priority_pids = prio, .n_priority = 2, .details_priority_only = true};
	assert_true(win_scan_plan(listed, N, &o, rows));
	/* the GPU users in full, their parents (200, 4) for what ps shows, the rest counted */
	expect(rows, "bcbFFcc");
	assert_true(win_is_priority(&o, 400));
	assert_false(win_is_priority(&o, 200));
	/* no priority PID at all: every process only counted */
	o.n_priority = 0;
	assert_true(win_scan_plan(listed, N, &o, rows));
	expect(rows, "ccccccc");
	/* without details_priority_only the priority list only orders the budget */
	o.n_priority = 2;
	o.details_priority_only = false;
	assert_false(win_scan_plan(listed, N, &o, rows));
	expect(rows, "FFFFFFF");
}

static void test_pair_if_missing(void **state)
{
	(void)state;
	uint8_t rows[N];
	static const uint32_t prio[] = {300, 9999};
	struct proc_scan_opts o = {.priority_pids = prio, .n_priority = 2, .details_priority_only = true};
	/* a PID the listing lacks changes nothing unless pairing asks */
	assert_true(win_scan_plan(listed, N, &o, rows));
	expect(rows, "ccbFccc");
	rows[3] = 0;
	o.pair_if_missing = true;
	assert_false(win_scan_plan(listed, N, &o, rows));
	expect(rows, "FFFFFFF");
	/* every priority PID listed: pairing keeps priority_only */
	o.n_priority = 1;
	assert_true(win_scan_plan(listed, N, &o, rows));
	expect(rows, "ccbFccc");
}

static void test_only_pid(void **state)
{
	(void)state;
	uint8_t rows[N];
	struct proc_scan_opts o = {.only_pid = 300, .details_priority_only = true};
	/* inspect PID: it and its parent, nothing else looked at */
	assert_false(win_scan_plan(listed, N, &o, rows));
	expect(rows, "--FF---");
	o.only_pid = 600; /* parent 0: none */
	win_scan_plan(listed, N, &o, rows);
	expect(rows, "------F");
	o.only_pid = 7; /* not listed */
	win_scan_plan(listed, N, &o, rows);
	expect(rows, "-------");
	assert_false(win_scan_plan(listed, 0, &o, rows));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_everything),
		cmocka_unit_test(test_priority_only),
		cmocka_unit_test(test_pair_if_missing),
		cmocka_unit_test(test_only_pid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
