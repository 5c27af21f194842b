/* Categories of macOS GPU rows (identify/category.c): Metal gives one GPU
 * time per process (busy_pct, no engines), so a graphics client above 10 %
 * with no runtime recognised is 3D; at or under 10 % it is not; AI runtimes
 * still win; WindowServer is the compositor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/snapshot.h"
#include "ident_fixture.h"
#include "identify/ident.h"

static struct gtm_process *metal_row(const char *comm, double pct, const char *const *maps)
{
	const char *argv[] = {comm, NULL};
	struct gtm_process *p = tf_process(comm, argv, NULL, NULL, maps, NULL);
	struct gtm_gpu_use *u = process_add_use(p);
	memset(u, 0, sizeof *u);
	u->graphics = true;
	u->busy_pct = gtm_f64_of(pct, GTM_MEASURED);
	return p;
}

static void busy_metal_is_3d(void **state)
{
	(void)state;
	struct gtm_process *p = metal_row("SomeGame", 42.0, NULL);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->category, IDENT_CAT_3D);
	assert_non_null(strstr(id->category_reason, "over 10 %"));
	tf_process_free(p);

	p = metal_row("Preview", 10.0, NULL);
	id = tf_identify(p);
	assert_int_not_equal(id->category, IDENT_CAT_3D);
	tf_process_free(p);
}

static void ai_runtime_wins(void **state)
{
	(void)state;
	const char *maps[] = {"/opt/homebrew/Cellar/llama.cpp/6000/lib/libllama.dylib",
			      "/opt/homebrew/Cellar/llama.cpp/6000/lib/libggml-metal.dylib", NULL};
	struct gtm_process *p = metal_row("llama-server", 95.0, maps);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->category, IDENT_CAT_AI);
	tf_process_free(p);
}

/* Runtimes from macOS's mapped .dylib names and the Metal driver bundle,
 * found for a process whose name says nothing. */
static void dylib_runtimes(void **state)
{
	(void)state;
	const char *maps[] = {"/opt/homebrew/Cellar/llama.cpp/6000/lib/libllama.dylib",
			      "/opt/homebrew/Cellar/ggml/0.9/lib/libggml-metal.dylib",
			      "/Users/a/venv/lib/python3.12/site-packages/mlx/lib/libmlx.dylib",
			      "/System/Library/Extensions/AGXMetalG16G.bundle/Contents/MacOS/AGXMetalG16G", NULL};
	struct gtm_process *p = metal_row("python3.12", 5.0, maps);
	const struct gtm_ident *id = tf_identify(p);
	assert_non_null(tf_runtime(id, "llama.cpp"));
	assert_non_null(tf_runtime(id, "ggml-metal"));
	assert_non_null(tf_runtime(id, "mlx"));
	assert_non_null(tf_runtime(id, "metal"));
	assert_int_equal(id->category, IDENT_CAT_AI);
	tf_process_free(p);
	/* Metal alone is no 3D runtime: every app that draws maps it */
	const char *only_metal[] = {maps[3], NULL};
	p = metal_row("Finder", 2.0, only_metal);
	id = tf_identify(p);
	assert_non_null(tf_runtime(id, "metal"));
	assert_int_not_equal(id->category, IDENT_CAT_3D);
	tf_process_free(p);
}

static void window_server(void **state)
{
	(void)state;
	struct gtm_process *p = metal_row("WindowServer", 30.0, NULL);
	const struct gtm_ident *id = tf_identify(p);
	assert_int_equal(id->category, IDENT_CAT_COMPOSITOR);
	tf_process_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(busy_metal_is_3d), cmocka_unit_test(ai_runtime_wins),
					   cmocka_unit_test(dylib_runtimes),
					   cmocka_unit_test(window_server)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
