/* footprint(1)'s schedule (src/platform/darwin/fp_sched.c), on Linux: new
 * processes at once, busy ones every 2 s, idle ones every 30 s, a failure
 * keeps the last size, three in a row back off for a minute, a reused PID
 * starts over, unwanted ones are forgotten. Times are given, never read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "platform/darwin/footprint.h"
#include "platform/darwin/fp_sched.h"
#include "darwin_fixture.h"

#define S 1000000000ull

static size_t due(struct fp_sched *s, uint64_t now, uint32_t *pids)
{
	return fp_sched_due(s, now, pids, 16);
}

static void schedule(void **state)
{
	(void)state;
	struct fp_sched *s = calloc(1, sizeof *s);
	uint32_t pids[16];
	uint64_t size;
	bool denied;

	fp_sched_want(s, 10, 100, true, 0);  /* busy */
	fp_sched_want(s, 20, 200, false, 0); /* idle */
	assert_false(fp_sched_get(s, 10, 100, &size, &denied)); /* not read yet: N/A */
	assert_int_equal(due(s, 0, pids), 2);                    /* new ones at once */
	assert_int_equal(due(s, 0, pids), 0);                    /* in flight: not asked twice */
	fp_sched_done(s, 10, FP_OK, 5000, 1 * S);
	fp_sched_done(s, 20, FP_OK, 7000, 1 * S);
	assert_true(fp_sched_get(s, 10, 100, &size, &denied));
	assert_int_equal(size, 5000);
	assert_false(fp_sched_get(s, 10, 101, &size, &denied)); /* another start: not its size */
	fp_sched_want(s, 10, 100, true, 2 * S);
	fp_sched_want(s, 20, 200, false, 2 * S);
	assert_int_equal(due(s, 2 * S, pids), 0);
	assert_int_equal(due(s, 3 * S, pids), 1); /* the busy one, 2 s after its answer */
	assert_int_equal(pids[0], 10);
	/* three failures in a row: the last size stays; then a minute's rest */
	fp_sched_done(s, 10, FP_FAILED, 0, 3 * S);
	assert_true(fp_sched_get(s, 10, 100, &size, &denied));
	assert_int_equal(size, 5000);
	assert_int_equal(due(s, 5 * S, pids), 1);
	fp_sched_done(s, 10, FP_FAILED, 0, 5 * S);
	assert_int_equal(due(s, 7 * S, pids), 1);
	fp_sched_done(s, 10, FP_FAILED, 0, 7 * S);
	fp_sched_want(s, 10, 100, true, 8 * S);
	fp_sched_want(s, 20, 200, true, 8 * S); /* idle one woke up: due within 2 s, not at 31 s */
	assert_int_equal(due(s, 10 * S, pids), 1);
	assert_int_equal(pids[0], 20);
	fp_sched_done(s, 20, FP_OK, 8000, 10 * S);
	for (uint64_t t = 11; t < 67; t++) {
		fp_sched_want(s, 10, 100, true, t * S);
		size_t k = due(s, t * S, pids);
		for (size_t i = 0; i < k; i++)
			assert_int_not_equal(pids[i], 10); /* resting */
		fp_sched_done(s, 20, FP_OK, 8000, t * S);
	}
	fp_sched_want(s, 10, 100, true, 67 * S);
	size_t n = due(s, 67 * S, pids);
	bool again = false;
	for (size_t i = 0; i < n; i++)
		again |= pids[i] == 10;
	assert_true(again); /* asked again after the minute */
	free(s);
}

static void reuse_denied_forget(void **state)
{
	(void)state;
	struct fp_sched *s = calloc(1, sizeof *s);
	uint32_t pids[16];
	uint64_t size;
	bool denied;

	fp_sched_want(s, 30, 300, false, 0);
	assert_int_equal(due(s, 0, pids), 1);
	fp_sched_done(s, 30, FP_DENIED, 0, 0);
	assert_false(fp_sched_get(s, 30, 300, &size, &denied));
	assert_true(denied); /* another user's: said why */
	fp_sched_want(s, 30, 301, false, 1 * S); /* the PID reused by a new process */
	assert_false(fp_sched_get(s, 30, 301, &size, &denied));
	assert_false(denied);
	assert_int_equal(due(s, 1 * S, pids), 1); /* new: at once, not after the old one's wait */
	fp_sched_done(s, 30, FP_OK, 42, 1 * S);
	assert_true(fp_sched_get(s, 30, 301, &size, &denied));
	assert_int_equal(size, 42);
	assert_int_equal(due(s, 200 * S, pids), 0); /* not wanted for a minute: forgotten */
	assert_false(fp_sched_get(s, 30, 301, &size, &denied));
	for (uint32_t p = 0; p < FP_SCHED_MAX + 10; p++) /* full: the rest get none, nothing breaks */
		fp_sched_want(s, 1000 + p, 1, false, 300 * S);
	assert_int_equal(fp_sched_due(s, 300 * S, pids, 16), 16);
	free(s);
}

/* One run over three PIDs (the quoted -f bytes capture: 418 refused, 640 and
 * 900 read) and a fourth it never named: each answer to its own PID. */
static void record_run(void **state)
{
	(void)state;
	size_t len;
	char *t = fixture("footprint-bytes-two-pids-one-denied.txt", &len);
	if (!t)
		skip();
	struct fp_sched *s = calloc(1, sizeof *s);
	struct fp_result *r = malloc(sizeof *r);
	uint32_t pids[16], asked[] = {418, 640, 900, 77};
	uint64_t size;
	bool denied;

	assert_true(footprint_parse(t, len, r) >= 2);
	for (size_t i = 0; i < 4; i++)
		fp_sched_want(s, asked[i], 1, false, 0);
	assert_int_equal(due(s, 0, pids), 4);
	fp_sched_record(s, asked, 4, r, 1 * S);
	assert_false(fp_sched_get(s, 418, 1, &size, &denied));
	assert_true(denied);
	assert_true(fp_sched_get(s, 640, 1, &size, &denied));
	assert_int_equal(size, r->procs[0].graphics_dirty); /* no categories in this capture: 0 B of graphics */
	assert_true(fp_sched_get(s, 900, 1, &size, &denied));
	assert_false(fp_sched_get(s, 77, 1, &size, &denied)); /* not in the output: no size, not denied */
	assert_false(denied);
	fp_sched_want(s, 640, 1, false, 2 * S);
	fp_sched_record(s, asked + 1, 1, NULL, 2 * S); /* not in flight: ignored */
	assert_true(fp_sched_get(s, 640, 1, &size, &denied));
	free(r);
	free(s);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(schedule), cmocka_unit_test(reuse_denied_forget),
					   cmocka_unit_test(record_run)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
