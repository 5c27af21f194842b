/* App folders from a process's environment (identify/app_folders.c) by
 * this platform's rules (platform_folder_rules), and the separator-blind
 * path helpers the store names use (core/util.c). OS-neutral: the same
 * source runs on Linux and, cross-built, under Wine, each against its own
 * table, so each OS's rules are what is checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "identify/app_folders.h"
#include "identify/stores.h"
#include "ident_fixture.h"
#include "portable.h"

/* An absolute path on this OS. */
static const char *abs_root(void)
{
	return os_path_absolute("/abs") ? "/abs" : "C:\\abs";
}

static const enum platform_folder kinds[] = {PLATFORM_FOLDER_OLLAMA_MODELS, PLATFORM_FOLDER_OLLAMA_LOG,
					     PLATFORM_FOLDER_LMSTUDIO_MODELS, PLATFORM_FOLDER_HF_HUB,
					     PLATFORM_FOLDER_HANDY_DATA, PLATFORM_FOLDER_HANDY_LOGS};

/* Every variable of the table set to <abs>/<NAME>: each kind yields its
 * rules in the table's order, values with their tails, fixed ones alone. */
static void test_rules_in_order(void **state)
{
	(void)state;
	static char env_store[32][128];
	const char *env[33] = {0};
	size_t ne = 0;
	for (size_t i = 0; i < platform_n_folder_rules && ne < 32; i++)
		if (platform_folder_rules[i].env) {
			snprintf(env_store[ne], sizeof env_store[ne], "%s=%s%c%s", platform_folder_rules[i].env, abs_root(),
				 OS_PATH_SEP, platform_folder_rules[i].env);
			env[ne] = env_store[ne];
			ne++;
		}
	struct gtm_process *p = tf_process("x", NULL, NULL, NULL, NULL, env);
	for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
		char got[APP_FOLDERS_MAX_RULES][APP_FOLDER_MAX], want[APP_FOLDER_MAX];
		int n = app_folders(p->detail, kinds[k], got, APP_FOLDERS_MAX_RULES), j = 0;
		assert_true(n >= 1); /* every kind has a rule on every OS */
		for (size_t i = 0; i < platform_n_folder_rules; i++) {
			const struct platform_folder_rule *r = &platform_folder_rules[i];
			if (r->folder != kinds[k])
				continue;
			if (r->env)
				snprintf(want, sizeof want, "%s%c%s%s", abs_root(), OS_PATH_SEP, r->env, r->tail);
			else
				snprintf(want, sizeof want, "%s", r->tail);
			assert_true(j < n);
			assert_string_equal(got[j++], want);
		}
		assert_int_equal(j, n);
		assert_int_equal(app_folders(p->detail, kinds[k], got, 1), 1);
	}
	tf_process_free(p);
}

/* A relative, empty or absent value names no folder. */
static void test_unusable_values(void **state)
{
	(void)state;
	const char *env[] = {"OLLAMA_MODELS=relative/models", "HOME=", "USERPROFILE=", "HF_HOME=hf", NULL};
	struct gtm_process *p = tf_process("x", NULL, NULL, NULL, NULL, env);
	char got[APP_FOLDERS_MAX_RULES][APP_FOLDER_MAX];
	int n = app_folders(p->detail, PLATFORM_FOLDER_OLLAMA_MODELS, got, APP_FOLDERS_MAX_RULES);
	for (int i = 0; i < n; i++)
		assert_true(os_path_absolute(got[i])); /* only fixed folders remain */
	assert_int_equal(app_folders(p->detail, PLATFORM_FOLDER_HF_HUB, got, APP_FOLDERS_MAX_RULES), 0);
	tf_process_free(p);
	/* no environment read at all */
	p = tf_process("x", NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(app_folders(p->detail, PLATFORM_FOLDER_HANDY_DATA, got, APP_FOLDERS_MAX_RULES), 0);
	tf_process_free(p);
}

/* OLLAMA_MODELS naming a folder that exists wins over the defaults. */
static void test_existing(void **state)
{
	(void)state;
	char dir[] = "/tmp/gtm-app-folders-XXXXXX", var[600], out[APP_FOLDER_MAX];
	const char *tmp = getenv("TEMP");
	char tmpl[512];
	snprintf(tmpl, sizeof tmpl, "%s%cgtm-app-folders-XXXXXX", os_path_absolute("/tmp") ? "/tmp" : tmp, OS_PATH_SEP);
	char *made = mkdtemp(os_path_absolute("/tmp") ? dir : tmpl);
	assert_non_null(made);
	snprintf(var, sizeof var, "OLLAMA_MODELS=%s", made);
	const char *env[] = {var, NULL};
	struct gtm_process *p = tf_process("x", NULL, NULL, NULL, NULL, env);
	assert_true(app_folder_existing(p->detail, PLATFORM_FOLDER_OLLAMA_MODELS, out, sizeof out));
	assert_string_equal(out, made);
	assert_true(stores_ollama_dir(p->detail, out, sizeof out));
	assert_string_equal(out, made);
	rmdir(made);
	tf_process_free(p);
}

/* A '/' of a marker matches this OS's separators; native paths use them. */
static void test_path_helpers(void **state)
{
	(void)state;
	bool win = OS_PATH_SEP == '\\';
	const char *unix_path = "/m/blobs/sha256-ab";
	assert_ptr_equal(path_find(unix_path, "/blobs/sha256-"), unix_path + 2);
	const char *dos_path = "C:\\m\\blobs\\sha256-ab";
	assert_true((path_find(dos_path, "/blobs/sha256-") == dos_path + 4) == win);
	assert_null(path_find("/m/blobs-sha256-", "/blobs/sha256-"));
	assert_null(path_find("", "/x"));
	assert_ptr_equal(path_next_sep(unix_path + 1), unix_path + 2);
	assert_true((path_next_sep("a\\b") != NULL) == win);
	assert_null(path_next_sep("abc"));
	char p[] = "C:\\hf/hub/models--a--b";
	path_to_native(p);
	assert_string_equal(p, win ? "C:\\hf\\hub\\models--a--b" : "C:\\hf/hub/models--a--b");
	/* store names from paths as this OS writes them */
	char *name = NULL;
	enum model_store store;
	enum model_role role;
	char hf[] = "/c/hub/models--org--repo/snapshots/r/f.gguf";
	path_to_native(hf);
	stores_name_model(hf, &name, &store, &role);
	assert_int_equal(store, MODEL_STORE_HF);
	assert_string_equal(name, "org/repo");
	free(name);
	char lms[] = "/u/.lmstudio/models/pub/repo/f.gguf";
	path_to_native(lms);
	assert_true(stores_name_lmstudio(lms, &name));
	assert_string_equal(name, "pub/repo"); /* "publisher/repo" whatever the separator */
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_in_order),
		cmocka_unit_test(test_unusable_values),
		cmocka_unit_test(test_existing),
		cmocka_unit_test(test_path_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
