/* Engine busy percentages between two samples: ns against wall time, cycles
 * against total cycles, capacity, counters that go backwards, forgetting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sources/drm_engines.h"

static void set_engine(struct drm_fdinfo *fi, int i, const char *name, unsigned have, uint64_t ns, uint64_t cyc,
		       uint64_t total, uint32_t cap)
{
	struct drm_fdinfo_engine *e = &fi->engines[i];
	memset(e, 0, sizeof *e);
	snprintf(e->name, sizeof e->name, "%s", name);
	e->have = have;
	e->busy_ns = ns;
	e->cycles = cyc;
	e->total_cycles = total;
	e->capacity = cap;
	if (fi->n_engines <= i)
		fi->n_engines = i + 1;
}

#define SEC 1000000000ull

static void test_ns_between_samples(void **state)
{
	(void)state;
	struct drm_engine_state *s = drm_engine_state_new();
	struct drm_engine_pct out[DRM_FDINFO_MAX_ENGINES];
	struct drm_fdinfo fi = {0};

	set_engine(&fi, 0, "gfx", DRM_EK_NS, 1000, 0, 0, 1);
	drm_engine_state_begin(s);
	assert_false(drm_engine_update(s, 0, 7, 10 * SEC, &fi, out));
	assert_false(out[0].ok); /* one sample: no load yet, and not 0 */
	drm_engine_state_end(s);

	set_engine(&fi, 0, "gfx", DRM_EK_NS, 1000 + SEC / 4, 0, 0, 1);
	drm_engine_state_begin(s);
	assert_true(drm_engine_update(s, 0, 7, 11 * SEC, &fi, out));
	assert_true(out[0].ok);
	assert_float_equal(out[0].pct, 25.0, 1e-9);
	/* the same client twice in one refresh (a dup'ed fd) gives the same answer */
	assert_true(drm_engine_update(s, 0, 7, 11 * SEC + 5, &fi, out));
	assert_float_equal(out[0].pct, 25.0, 1e-9);
	drm_engine_state_end(s);

	/* a counter that goes backwards holds its larger previous value */
	set_engine(&fi, 0, "gfx", DRM_EK_NS, 500, 0, 0, 1);
	drm_engine_state_begin(s);
	drm_engine_update(s, 0, 7, 12 * SEC, &fi, out);
	assert_true(out[0].ok);
	assert_float_equal(out[0].pct, 0.0, 1e-9);
	drm_engine_state_end(s);
	set_engine(&fi, 0, "gfx", DRM_EK_NS, 1000 + SEC / 4 + SEC / 2, 0, 0, 1);
	drm_engine_state_begin(s);
	drm_engine_update(s, 0, 7, 13 * SEC, &fi, out);
	assert_float_equal(out[0].pct, 50.0, 1e-9);
	drm_engine_state_end(s);
	drm_engine_state_free(s);
}

static void test_cycles_and_capacity(void **state)
{
	(void)state;
	struct drm_engine_state *s = drm_engine_state_new();
	struct drm_engine_pct out[DRM_FDINFO_MAX_ENGINES];
	struct drm_fdinfo fi = {0};
	const unsigned cyc = DRM_EK_CYCLES | DRM_EK_TOTAL_CYCLES | DRM_EK_CAPACITY;

	/* xe: wall time does not matter, total cycles do */
	set_engine(&fi, 0, "ccs", cyc, 0, 326, 24339816184ull, 2);
	set_engine(&fi, 1, "rcs", cyc & ~DRM_EK_CAPACITY, 0, 0, 24339816184ull, 1);
	drm_engine_state_begin(s);
	drm_engine_update(s, 1, 173, 1 * SEC, &fi, out);
	drm_engine_state_end(s);
	set_engine(&fi, 0, "ccs", cyc, 0, 326 + 1500, 24339816184ull + 1000, 2);
	set_engine(&fi, 1, "rcs", cyc & ~DRM_EK_CAPACITY, 0, 100, 24339816184ull + 1000, 1);
	drm_engine_state_begin(s);
	drm_engine_update(s, 1, 173, 1 * SEC, &fi, out);
	drm_engine_state_end(s);
	assert_true(out[0].ok);
	assert_float_equal(out[0].pct, 75.0, 1e-9); /* 1500 of 2 x 1000 */
	assert_float_equal(out[1].pct, 10.0, 1e-9);
	/* the same client id on another device is another client */
	drm_engine_state_begin(s);
	assert_false(drm_engine_update(s, 2, 173, 2 * SEC, &fi, out));
	assert_false(out[0].ok);
	drm_engine_state_end(s);
	drm_engine_state_free(s);
}

static void test_forgets_closed_clients(void **state)
{
	(void)state;
	struct drm_engine_state *s = drm_engine_state_new();
	struct drm_engine_pct out[DRM_FDINFO_MAX_ENGINES];
	struct drm_fdinfo fi = {0};

	set_engine(&fi, 0, "render", DRM_EK_NS, 1, 0, 0, 1);
	drm_engine_state_begin(s);
	for (uint64_t id = 0; id < 1000; id++)
		drm_engine_update(s, 0, id, SEC, &fi, out);
	drm_engine_state_end(s);
	assert_int_equal(drm_engine_state_size(s), 1000);
	drm_engine_state_begin(s);
	drm_engine_update(s, 0, 5, 2 * SEC, &fi, out);
	assert_true(out[0].ok);
	drm_engine_state_end(s);
	assert_int_equal(drm_engine_state_size(s), 1);
	/* a client that comes back after being forgotten starts over */
	drm_engine_state_begin(s);
	assert_false(drm_engine_update(s, 0, 6, 3 * SEC, &fi, out));
	drm_engine_state_end(s);
	drm_engine_state_free(s);
}

static void test_engine_appearing_later(void **state)
{
	(void)state;
	struct drm_engine_state *s = drm_engine_state_new();
	struct drm_engine_pct out[DRM_FDINFO_MAX_ENGINES];
	struct drm_fdinfo fi = {0};

	/* amdgpu prints an engine only once it has run */
	set_engine(&fi, 0, "gfx", DRM_EK_NS, 100, 0, 0, 1);
	drm_engine_state_begin(s);
	drm_engine_update(s, 0, 1, SEC, &fi, out);
	drm_engine_state_end(s);
	set_engine(&fi, 1, "dma", DRM_EK_NS, 900000000ull, 0, 0, 1);
	drm_engine_state_begin(s);
	drm_engine_update(s, 0, 1, 2 * SEC, &fi, out);
	drm_engine_state_end(s);
	assert_true(out[0].ok);
	assert_false(out[1].ok); /* first sight of dma: no interval yet */
	set_engine(&fi, 1, "dma", DRM_EK_NS, 900000000ull + SEC / 10, 0, 0, 1);
	drm_engine_state_begin(s);
	drm_engine_update(s, 0, 1, 3 * SEC, &fi, out);
	drm_engine_state_end(s);
	assert_float_equal(out[1].pct, 10.0, 1e-9);
	drm_engine_state_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ns_between_samples),
		cmocka_unit_test(test_cycles_and_capacity),
		cmocka_unit_test(test_forgets_closed_clients),
		cmocka_unit_test(test_engine_appearing_later),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
