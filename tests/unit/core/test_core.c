/* Core: readings, formatting, the root prefix, snapshot containers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/parallel.h"
#include "core/snapshot.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "testutil.h"

static void test_na_is_not_zero(void **state)
{
	(void)state;
	char buf[32];
	assert_string_equal(fmt_bytes(buf, sizeof buf, GTM_U64_NA), "N/A");
	assert_string_equal(fmt_bytes(buf, sizeof buf, gtm_u64_of(0, GTM_MEASURED)), "0 B");
	assert_string_equal(fmt_bytes(buf, sizeof buf, gtm_u64_of(633495552, GTM_MEASURED)), "604.15 MiB");
	assert_string_equal(fmt_f64(buf, sizeof buf, GTM_F64_NA, 0, " %"), "N/A");
	assert_string_equal(gtm_prov_name(GTM_ESTIMATED), "estimated");
}

/* fmt_f64 and fmt_bytes_raw skip printf where they can: their text must be
 * printf's for every value, halfway cases (0.125 to two places is "0.12":
 * printf rounds the exact binary value to even) and buffers too small included. */
static void check_f64(double v, int decimals, const char *suffix, size_t n)
{
	char want[64], got[64];
	memset(got, 'x', sizeof got);
	snprintf(want, n, "%.*f%s", decimals, v, suffix);
	fmt_f64(got, n, gtm_f64_of(v, GTM_MEASURED), decimals, suffix);
	if (strcmp(want, got) != 0)
		fail_msg("%.17g to %d places in %zu bytes: printf \"%s\", fmt_f64 \"%s\"", v, decimals, n, want, got);
}

static void test_fmt_like_printf(void **state)
{
	(void)state;
	static const double ties[] = {0.5, 1.5, 2.5, 0.125, 0.375, 2.675, 1.005, 0.0005, 1e11 + 0.5, 4503599627370495.5,
				      -0.0, -0.001, -2.5, 1e12, 1e300, 0.0, 99.995, 0.045, 1023.995};
	uint64_t x = 0x9E3779B97F4A7C15ull;

	for (size_t i = 0; i < sizeof ties / sizeof ties[0]; i++)
		for (int d = 0; d <= 4; d++)
			check_f64(ties[i], d, " MiB", 32);
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* values of every magnitude a view shows, and exact eighths (ties) */
		double v = (double)(x >> 11) / (double)(1ull << (x % 53));
		if (i % 4 == 0)
			v = (double)(x % 100000) / 8.0;
		check_f64(v, (int)(x % 4), i % 2 ? "%" : "", i % 50 == 0 ? (size_t)(x % 12) + 1 : 32);
		char want[64], got[64];
		uint64_t b = x >> (x % 64);
		fmt_bytes_raw(got, sizeof got, b);
		double bv = (double)b;
		int u = 0;
		static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
		while (b >= 1024 && bv >= 1024.0 && u < 5)
			bv /= 1024.0, u++;
		if (b < 1024)
			snprintf(want, sizeof want, "%llu B", (unsigned long long)b);
		else
			snprintf(want, sizeof want, "%.2f %s", bv, units[u]);
		assert_string_equal(got, want);
	}
}

/* str_cat3 and str_u64 write what snprintf writes, at every size, and
 * return what it returns. */
static void test_str_join_like_snprintf(void **state)
{
	(void)state;
	static const char *const parts[] = {"", "a", "mapped", " ", "libcuda.so.1", "compute API CUDA driver"};
	static const uint64_t nums[] = {0, 7, 10, 4294967295u, 18446744073709551615ull};
	char want[40], got[40];

	for (size_t n = 0; n <= sizeof got; n++) {
		for (size_t i = 0; i < ARRAY_LEN(parts); i++)
			for (size_t j = 0; j < ARRAY_LEN(parts); j++) {
				memset(want, 'x', sizeof want);
				memset(got, 'x', sizeof got);
				int w = snprintf(want, n, "%s%s%s", parts[i], " ", parts[j]);
				size_t g = str_cat3(got, n, parts[i], " ", parts[j]);
				assert_int_equal((size_t)w, g);
				assert_memory_equal(want, got, sizeof want);
			}
		for (size_t i = 0; i < ARRAY_LEN(nums); i++) {
			memset(want, 'x', sizeof want);
			memset(got, 'x', sizeof got);
			int w = snprintf(want, n, "H:%llu", (unsigned long long)nums[i]);
			size_t g = str_u64(got, n, "H:", nums[i]);
			assert_int_equal((size_t)w, g);
			assert_memory_equal(want, got, sizeof want);
		}
	}
}

static void test_sysroot_prefix(void **state)
{
	(void)state;
	char *dir = tu_tempdir();
	char path[512], buf[64];
	snprintf(path, sizeof path, "%s/proc/42/comm", dir);
	tu_write_file(path, "llama-server\n", 13);
	setenv("GPUTASKMAN_ROOT", dir, 1);
	sysroot_reset();
	assert_int_equal(sysroot_read(buf, sizeof buf, "/proc/%d/comm", 42), 13);
	assert_string_equal(buf, "llama-server\n");
	/* bounded: never more than cap-1 bytes */
	assert_int_equal(sysroot_read(buf, 5, "/proc/%d/comm", 42), 4);
	assert_string_equal(buf, "llam");
	assert_int_equal(sysroot_read(buf, sizeof buf, "/proc/%d/comm", 43), -1);
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	assert_string_equal(sysroot_prefix(), "");
	tu_rmrf(dir);
	free(dir);
}

static void test_snapshot_growth(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	for (int i = 0; i < 100; i++) {
		struct gtm_process *p = snapshot_add_process(s);
		p->pid = (uint32_t)i;
		for (int k = 0; k < 3; k++)
			process_add_use(p)->vram = gtm_u64_of(1, GTM_MEASURED);
	}
	for (int i = 0; i < 20; i++)
		snapshot_add_device(s)->mem_total = GTM_U64_NA;
	assert_int_equal(s->processes[99].pid, 99);
	assert_int_equal(s->devices[19].index, 19);
	assert_int_equal(process_vram_total(&s->processes[5]).v, 3);
	struct gtm_process *p = snapshot_add_process(s);
	assert_false(gtm_u64_ok(process_vram_total(p)));
	snapshot_add_note(s, "note %d", 1);
	assert_string_equal(s->notes[0], "note 1");
	snapshot_free(s);
}

struct visits {
	int count[1000];
	int bad_worker;
	int workers;
};

static void visit(void *ctx, size_t i, int worker)
{
	struct visits *v = ctx;
	__atomic_add_fetch(&v->count[i], 1, __ATOMIC_RELAXED);
	if (worker < 0 || worker >= v->workers)
		__atomic_store_n(&v->bad_worker, 1, __ATOMIC_RELAXED);
}

/* Every index exactly once, worker numbers in range, for any worker count. */
static void test_parallel_for(void **state)
{
	(void)state;
	static struct visits v;
	for (int w = 1; w <= PARALLEL_MAX_WORKERS + 1; w++) {
		for (size_t n = 0; n <= 1000; n += 333) {
			memset(&v, 0, sizeof v);
			v.workers = w > PARALLEL_MAX_WORKERS ? PARALLEL_MAX_WORKERS : w;
			parallel_for(n, w, visit, &v);
			for (size_t i = 0; i < 1000; i++)
				assert_int_equal(v.count[i], i < n ? 1 : 0);
			assert_int_equal(v.bad_worker, 0);
		}
	}
	/* GPUTASKMAN_THREADS sets the count; too few items per worker lowers it */
	setenv("GPUTASKMAN_THREADS", "3", 1);
	assert_int_equal(parallel_workers(300, 100), 3);
	assert_int_equal(parallel_workers(299, 100), 2);
	assert_int_equal(parallel_workers(50, 100), 1);
	setenv("GPUTASKMAN_THREADS", "1", 1);
	assert_int_equal(parallel_workers(100000, 1), 1);
	setenv("GPUTASKMAN_THREADS", "99", 1); /* out of range: the CPUs decide, capped */
	assert_true(parallel_workers(100000, 1) <= PARALLEL_MAX_WORKERS);
	unsetenv("GPUTASKMAN_THREADS");
	assert_true(parallel_workers(100000, 1) >= 1);
}

/* The libm-free rounding gives what libm's does: halves away from zero, the
 * sign of a zero kept, NaN, infinities and large whole values as they are. */
static void test_rounding_as_libm(void **state)
{
	(void)state;
	static const double v[] = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
				   -0.49999999999999994, 0.3, -0.3, 68.1235 * 1000.0, 1e15 + 0.5, -1e15 - 0.5,
				   4503599627370495.5, 4503599627370497.0, 9007199254740993.0, 1e18, -1e18, 1e300,
				   -1e300, 5e-324};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		double r = gtm_round(v[i]);
		assert_true(r == round(v[i]));
		assert_int_equal(!!signbit(r), !!signbit(round(v[i])));
		if (fabs(v[i]) < 9e18) {
			assert_int_equal(gtm_llround(v[i]), llround(v[i]));
			assert_int_equal(gtm_llroundl((long double)v[i]), llroundl((long double)v[i]));
		}
	}
	for (int k = -200000; k <= 200000; k++) { /* every thousandth, and the halves between */
		double x = k / 1000.0, h = k / 2.0;
		assert_true(gtm_round(x) == round(x));
		assert_int_equal(gtm_llround(h), llround(h));
	}
	assert_true(isnan(gtm_round(NAN)));
	assert_true(isinf(gtm_round(INFINITY)) && gtm_round(-INFINITY) < 0);
	/* beyond long long's range: saturated, not undefined */
	assert_true(gtm_llround(1e300) == INT64_MAX && gtm_llround(-1e300) == INT64_MIN && gtm_llround(NAN) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rounding_as_libm),
		cmocka_unit_test(test_na_is_not_zero),
		cmocka_unit_test(test_fmt_like_printf),
		cmocka_unit_test(test_str_join_like_snprintf),
		cmocka_unit_test(test_sysroot_prefix),
		cmocka_unit_test(test_snapshot_growth),
		cmocka_unit_test(test_parallel_for),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
