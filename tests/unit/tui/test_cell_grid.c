/* The curses backend's cell grid: what counts as changed, runs that keep a
 * two-column character whole, short gaps joined, a new size showing all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "views/tui/backend/curses/cell_grid.h"

static void put(struct cell_grid *g, int y, int x, const char *s)
{
	for (; *s; s++, x++)
		*grid_at(g, y, x) = (struct grid_cell){(uint32_t)(unsigned char)*s, 0};
}

/* Runs of line y as "x-end" pairs, then the line marked shown. */
static int runs(struct cell_grid *g, int y, int *out, int cap)
{
	int n = 0;
	for (int x = 0, end; grid_next_change(g, y, &x, &end) && n + 2 <= cap; x = end) {
		out[n++] = x;
		out[n++] = end;
	}
	grid_shown(g, y);
	return n;
}

static void test_first_frame_all_then_changes_only(void **state)
{
	struct cell_grid g = {0};
	int r[16];
	(void)state;
	grid_resize(&g, 2, 20);
	grid_erase(&g);
	put(&g, 0, 0, "hello");
	assert_int_equal(runs(&g, 0, r, 16), 2); /* the first frame: the whole line */
	assert_int_equal(r[0], 0);
	assert_int_equal(r[1], 20);
	grid_erase(&g);
	put(&g, 0, 0, "hello");
	assert_int_equal(runs(&g, 0, r, 16), 0); /* drawn again the same: nothing */
	grid_erase(&g);
	put(&g, 0, 0, "hellO   x");
	assert_int_equal(runs(&g, 0, r, 16), 2); /* O and x, 3 unchanged cells apart: one run */
	assert_int_equal(r[0], 4);
	assert_int_equal(r[1], 9);
	grid_erase(&g);
	put(&g, 0, 0, "jellO       y");
	assert_int_equal(runs(&g, 0, r, 16), 4); /* j; then x blanked and y, joined */
	assert_int_equal(r[0], 0);
	assert_int_equal(r[1], 1);
	assert_int_equal(r[2], 8);
	assert_int_equal(r[3], 13);
	grid_free(&g);
}

static void test_gaps_joined_and_wide_kept_whole(void **state)
{
	struct cell_grid g = {0};
	int r[16];
	(void)state;
	grid_resize(&g, 1, 20);
	grid_erase(&g);
	runs(&g, 0, r, 16);
	put(&g, 0, 2, "a");
	put(&g, 0, 5, "b"); /* two unchanged cells between: one run */
	assert_int_equal(runs(&g, 0, r, 16), 2);
	assert_int_equal(r[0], 2);
	assert_int_equal(r[1], 6);
	/* a two-column character whose right half alone changes */
	*grid_at(&g, 0, 10) = (struct grid_cell){0x4E2D, 0};
	*grid_at(&g, 0, 11) = (struct grid_cell){GRID_CONT, 0};
	runs(&g, 0, r, 16);
	*grid_at(&g, 0, 11) = (struct grid_cell){GRID_CONT, 1};
	assert_int_equal(runs(&g, 0, r, 16), 2);
	assert_int_equal(r[0], 10);
	assert_int_equal(r[1], 12);
	/* an attribute alone is a change */
	put(&g, 0, 2, "a");
	grid_at(&g, 0, 2)->attr = 2;
	assert_int_equal(runs(&g, 0, r, 16), 2);
	assert_int_equal(r[0], 2);
	grid_free(&g);
}

static void test_resize_shows_all_and_clips(void **state)
{
	struct cell_grid g = {0};
	int r[16];
	(void)state;
	grid_resize(&g, 1, 8);
	grid_erase(&g);
	runs(&g, 0, r, 16);
	grid_resize(&g, 1, 8); /* the same size keeps what was shown */
	grid_erase(&g);
	assert_int_equal(runs(&g, 0, r, 16), 0);
	grid_resize(&g, 2, 10);
	grid_erase(&g);
	assert_int_equal(runs(&g, 1, r, 16), 2);
	assert_int_equal(r[1], 10);
	assert_null(grid_at(&g, 2, 0));
	assert_null(grid_at(&g, 0, 10));
	assert_null(grid_at(&g, -1, 0));
	grid_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_frame_all_then_changes_only),
		cmocka_unit_test(test_gaps_joined_and_wide_kept_whole),
		cmocka_unit_test(test_resize_shows_all_and_clips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
