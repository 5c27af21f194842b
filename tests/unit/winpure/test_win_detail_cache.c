/* The Windows scan's detail cache (win_detail_cache.c): an entry is found
 * again only for the same PID and start time, within Linux's rescan rules
 * (120 s; a working set moved by 64 MiB or 10 %, never within 5 s), gives
 * only what was read, is carried once per scan, and what a scan neither
 * carries nor puts is dropped with its reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "platform/windows/win_detail_cache.h"

#define SEC 1000000000ull


static struct gtm_proc_detail *new_detail(void)
{
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	return d;
}

static int refs(struct gtm_proc_detail *d)
{
	return atomic_load(&d->refs);
}

/* One scan that reads pid afresh at now: the entry a scan puts. */
static void put(struct win_detail_cache *c, uint32_t pid, uint64_t start, struct gtm_proc_detail *d, uint64_t rss,
		uint64_t now)
{
	struct win_detail_entry e = {.pid = pid, .start_time = start, .detail = d, .ok = true, .rss = rss, .read_ns = now};
	strcpy(e.user, "alice");
	win_detail_cache_put(c, &e);
}

static void test_same_process_found_again(void **state)
{
	(void)state;
	struct win_detail_cache c = {0};
	struct gtm_proc_detail *d = new_detail();

	put(&c, 42, 1000, d, 512 * MIB, 10 * SEC);
	win_detail_cache_end_scan(&c);
	assert_int_equal(refs(d), 2); /* ours and the cache's */
	const struct win_detail_entry *e = win_detail_cache_get(&c, 42, 1000, 512 * MIB, 11 * SEC, WIN_WANT_DETAIL);
	assert_non_null(e);
	assert_ptr_equal(e->detail, d);
	assert_string_equal(e->user, "alice");
	/* carried once: a second lookup in the same scan finds the carried entry, no copy */
	assert_ptr_equal(win_detail_cache_get(&c, 42, 1000, 512 * MIB, 11 * SEC, WIN_WANT_DETAIL), e);
	win_detail_cache_end_scan(&c);
	assert_int_equal(c.n, 1);
	assert_int_equal(refs(d), 2); /* carried, not dropped */
	win_detail_cache_free(&c);
	assert_int_equal(refs(d), 1);
	proc_detail_unref(d);
}

static void test_reused_pid_and_unknown_start(void **state)
{
	(void)state;
	struct win_detail_cache c = {0};
	struct gtm_proc_detail *d = new_detail(), *z = new_detail();

	put(&c, 42, 1000, d, 0, 10 * SEC);
	put(&c, 43, 0, z, 0, 10 * SEC); /* no start time: never kept */
	win_detail_cache_end_scan(&c);
	assert_int_equal(refs(z), 1);
	/* the same PID, another start time: another process */
	assert_null(win_detail_cache_get(&c, 42, 1001, 0, 11 * SEC, WIN_WANT_DETAIL));
	assert_null(win_detail_cache_get(&c, 42, 0, 0, 11 * SEC, WIN_WANT_DETAIL));
	assert_null(win_detail_cache_get(&c, 43, 0, 0, 11 * SEC, WIN_WANT_DETAIL));
	/* not carried: dropped at the end of the scan, its reference released */
	win_detail_cache_end_scan(&c);
	assert_int_equal(refs(d), 1);
	assert_null(win_detail_cache_get(&c, 42, 1000, 0, 12 * SEC, WIN_WANT_DETAIL));
	win_detail_cache_free(&c);
	proc_detail_unref(d);
	proc_detail_unref(z);
}

/* Linux's rules: due after 120 s; a working set moved by 10 % or 64 MiB is
 * due only 5 s after the read. */
static void test_rescan_rules(void **state)
{
	(void)state;
	static const struct {
		uint64_t rss, after_ns;
		bool found;
	} cases[] = {
		{500 * MIB, 119 * SEC, true}, {500 * MIB, 120 * SEC, false}, /* the age */
		{549 * MIB, 30 * SEC, true},  {550 * MIB, 30 * SEC, false},  /* 10 % */
		{550 * MIB, 4 * SEC, true},   {450 * MIB, 30 * SEC, false},  /* not within 5 s; down too */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct win_detail_cache c = {0};
		struct gtm_proc_detail *d = new_detail();
		put(&c, 7, 99, d, 500 * MIB, 100 * SEC);
		win_detail_cache_end_scan(&c);
		const struct win_detail_entry *e =
			win_detail_cache_get(&c, 7, 99, cases[i].rss, 100 * SEC + cases[i].after_ns, WIN_WANT_DETAIL);
		if ((e != NULL) != cases[i].found)
			fail_msg("case %zu: rss %llu MiB after %llu s: found %d, want %d", i,
				 (unsigned long long)(cases[i].rss / MIB), (unsigned long long)(cases[i].after_ns / SEC),
				 e != NULL, cases[i].found);
		win_detail_cache_free(&c);
		proc_detail_unref(d);
	}
	/* 64 MiB is due on a large process even under 10 % */
	struct win_detail_cache c = {0};
	put(&c, 7, 99, NULL, 8192 * MIB, 0);
	win_detail_cache_end_scan(&c);
	assert_null(win_detail_cache_get(&c, 7, 99, 8256 * MIB, 30 * SEC, WIN_WANT_USER));
	win_detail_cache_free(&c);
}

/* An entry gives what was read: a refusal is no detail, a user-only entry
 * serves a parent's row only. */
static void test_wants(void **state)
{
	(void)state;
	struct win_detail_cache c = {0};
	struct win_detail_entry refused = {.pid = 5, .start_time = 50, .refused = true, .read_ns = 0};
	struct win_detail_entry user = {.pid = 6, .start_time = 60, .ok = true, .read_ns = 0};

	win_detail_cache_put(&c, &refused);
	win_detail_cache_put(&c, &user);
	win_detail_cache_end_scan(&c);
	assert_null(win_detail_cache_get(&c, 5, 50, 0, SEC, WIN_WANT_DETAIL));
	assert_non_null(win_detail_cache_get(&c, 5, 50, 0, SEC, WIN_WANT_DETAIL_OR_REFUSAL));
	assert_null(win_detail_cache_get(&c, 6, 60, 0, SEC, WIN_WANT_DETAIL_OR_REFUSAL));
	assert_non_null(win_detail_cache_get(&c, 6, 60, 0, SEC, WIN_WANT_USER));
	win_detail_cache_free(&c);
}

/* A detail read between scans (proc_detail_load, for a runner's parent, after
 * the scan ended) is what the next scan finds, and a PID keeps one entry. */
static void test_read_between_scans(void **state)
{
	(void)state;
	struct win_detail_cache c = {0};
	struct win_detail_entry parent = {.pid = 7, .start_time = 70, .ok = true, .read_ns = 0};
	struct gtm_proc_detail *d = new_detail(), *d2 = new_detail();

	win_detail_cache_put(&c, &parent); /* a parent's row: its user only */
	win_detail_cache_end_scan(&c);
	assert_null(win_detail_cache_get(&c, 7, 70, 0, SEC, WIN_WANT_DETAIL_OR_REFUSAL));
	put(&c, 7, 70, d, 0, SEC); /* the load, between scans */
	/* the next scan */
	const struct win_detail_entry *e = win_detail_cache_get(&c, 7, 70, 0, 2 * SEC, WIN_WANT_DETAIL_OR_REFUSAL);
	assert_non_null(e);
	assert_ptr_equal(e->detail, d);
	win_detail_cache_end_scan(&c);
	assert_int_equal(c.n, 1);
	/* read again in one scan (a reused PID): the newer read replaces the older */
	assert_null(win_detail_cache_get(&c, 7, 71, 0, 3 * SEC, WIN_WANT_DETAIL));
	put(&c, 7, 71, d2, 0, 3 * SEC);
	put(&c, 7, 71, d2, 0, 3 * SEC);
	win_detail_cache_end_scan(&c);
	assert_int_equal(c.n, 1);
	assert_int_equal(refs(d), 1);  /* dropped with the old generation */
	assert_int_equal(refs(d2), 2); /* one held, once */
	win_detail_cache_free(&c);
	assert_int_equal(refs(d2), 1);
	proc_detail_unref(d);
	proc_detail_unref(d2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_process_found_again),
		cmocka_unit_test(test_reused_pid_and_unknown_start),
		cmocka_unit_test(test_rescan_rules),
		cmocka_unit_test(test_wants),
		cmocka_unit_test(test_read_between_scans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
