/* platform/platform_time.h, the same test on every OS (tests/windows runs it
 * under Wine): a timed wait and a sleep last at least until their deadline,
 * a wake or a stop flag ends them early. Only lower bounds on time are
 * asserted (a wait cannot end early on a slow machine); the upper bounds
 * are a minute, there only so a broken wake fails instead of hanging. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util.h"
#include "platform/platform_time.h"

#define MS 1000000ull
#define MINUTE (60000ull * MS)

static void test_clock_never_goes_back(void **state)
{
	(void)state;
	uint64_t prev = now_monotonic_ns();
	assert_true(prev > 0);
	for (int i = 0; i < 100000; i++) {
		uint64_t t = now_monotonic_ns();
		assert_true(t >= prev);
		prev = t;
	}
}

static void test_wait_lasts_until_deadline(void **state)
{
	(void)state;
	char why[128];
	struct os_monitor *m = os_monitor_new(why, sizeof why);
	assert_non_null(m);
	os_monitor_lock(m);
	for (int round = 0; round < 3; round++) {
		uint64_t start = now_monotonic_ns(), deadline = start + 120 * MS;
		int calls = 0;
		while (!os_monitor_wait_until(m, deadline))
			calls++; /* spurious wakes only: nobody wakes it */
		uint64_t end = now_monotonic_ns();
		assert_true(end >= deadline);
		/* a wait that returned at once would come back here thousands of times */
		assert_true(calls < 20);
	}
	/* a deadline already past: true at once */
	assert_true(os_monitor_wait_until(m, now_monotonic_ns() - 1));
	os_monitor_unlock(m);
	os_monitor_free(m);
}

struct waker {
	struct os_monitor *m;
	bool flag;
	volatile sig_atomic_t stop;
};

static void *wake_later(void *arg)
{
	struct waker *w = arg;
	uint64_t t = now_monotonic_ns() + 50 * MS;
	volatile sig_atomic_t never = 0;
	os_sleep_until(t, &never);
	os_monitor_lock(w->m);
	w->flag = true;
	os_monitor_wake(w->m);
	os_monitor_unlock(w->m);
	return NULL;
}

static void test_wake_ends_wait(void **state)
{
	(void)state;
	char why[128];
	struct waker w = {.m = os_monitor_new(why, sizeof why)};
	pthread_t t;
	assert_non_null(w.m);
	uint64_t start = now_monotonic_ns();
	os_monitor_lock(w.m);
	assert_int_equal(pthread_create(&t, NULL, wake_later, &w), 0);
	bool passed = false;
	while (!w.flag && !passed)
		passed = os_monitor_wait_until(w.m, start + MINUTE);
	os_monitor_unlock(w.m);
	assert_false(passed);
	assert_true(w.flag);
	assert_true(now_monotonic_ns() - start >= 50 * MS);
	pthread_join(t, NULL);

	/* and without a deadline */
	w.flag = false;
	os_monitor_lock(w.m);
	assert_int_equal(pthread_create(&t, NULL, wake_later, &w), 0);
	while (!w.flag)
		assert_false(os_monitor_wait_until(w.m, OS_WAIT_FOREVER));
	os_monitor_unlock(w.m);
	pthread_join(t, NULL);
	os_monitor_free(w.m);
}

static void test_sleep_lasts_until_deadline(void **state)
{
	(void)state;
	volatile sig_atomic_t stop = 0;
	for (int round = 0; round < 3; round++) {
		uint64_t deadline = now_monotonic_ns() + 120 * MS;
		assert_true(os_sleep_until(deadline, &stop));
		assert_true(now_monotonic_ns() >= deadline);
	}
	/* a sleep of 250 ms spans several of Windows's 100 ms slices */
	uint64_t deadline = now_monotonic_ns() + 250 * MS;
	assert_true(os_sleep_until(deadline, &stop));
	assert_true(now_monotonic_ns() >= deadline);
	stop = 1;
	assert_false(os_sleep_until(now_monotonic_ns() + MINUTE, &stop));
}

static void *stop_later(void *arg)
{
	struct waker *w = arg;
	volatile sig_atomic_t never = 0;
	os_sleep_until(now_monotonic_ns() + 50 * MS, &never);
	w->stop = 1; /* as a Windows console handler does, from its own thread */
	return NULL;
}

static void test_stop_ends_sleep(void **state)
{
	(void)state;
	struct waker w = {0};
	pthread_t t;
	uint64_t start = now_monotonic_ns();
	assert_int_equal(pthread_create(&t, NULL, stop_later, &w), 0);
	assert_false(os_sleep_until(start + MINUTE, &w.stop));
	assert_true(now_monotonic_ns() - start >= 50 * MS);
	pthread_join(t, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_never_goes_back),
		cmocka_unit_test(test_wait_lasts_until_deadline),
		cmocka_unit_test(test_wake_ends_wait),
		cmocka_unit_test(test_sleep_lasts_until_deadline),
		cmocka_unit_test(test_stop_ends_sleep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
