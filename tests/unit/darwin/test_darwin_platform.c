/* macOS's platform tables, built here on Linux from their sources (they
 * include no macOS header): Handy's folders under the user's Library, and
 * the live view's charts limited to GPU and memory (Metal gives one GPU time
 * per process and IOKit no clocks, temperature, power or codec load). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "identify/app_folders.h"
#include "platform/platform_text.h"
#include "views/tui/tui_state.h"
#include "../identify/ident_fixture.h"

static void test_handy_folders(void **state)
{
	(void)state;
	const char *env[] = {"HOME=/Users/ada", NULL};
	struct gtm_process *p = tf_process("handy", NULL, NULL, NULL, NULL, env);
	char got[APP_FOLDERS_MAX_RULES][APP_FOLDER_MAX];

	assert_int_equal(app_folders(p->detail, PLATFORM_FOLDER_HANDY_LOGS, got, APP_FOLDERS_MAX_RULES), 1);
	assert_string_equal(got[0], "/Users/ada/Library/Logs/com.pais.handy");
	assert_int_equal(app_folders(p->detail, PLATFORM_FOLDER_HANDY_DATA, got, APP_FOLDERS_MAX_RULES), 1);
	assert_string_equal(got[0], "/Users/ada/Library/Application Support/com.pais.handy");
	tf_process_free(p);
}

static void test_charts(void **state)
{
	(void)state;
	struct tui_state st;

	tui_state_init(&st);
	assert_int_equal(st.n_charts, 2);
	assert_int_equal(st.charts[0], TUI_M_GPU);
	assert_int_equal(st.charts[1], TUI_M_VRAM);
	tui_state_key(&st, 'c', 1);
	tui_state_key(&st, 'c', 1);
	assert_int_equal(st.chart, TUI_M_VRAM); /* GPU, then memory: no SM clock */
	tui_state_key(&st, 'c', 1);
	assert_int_equal(st.chart, TUI_M_COUNT);
	assert_int_equal(tui_state_n_drawn(&st), 2);
	assert_null(strstr(platform_spill_pool, "GTT"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handy_folders),
		cmocka_unit_test(test_charts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
