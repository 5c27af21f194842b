/* sysctl(KERN_PROCARGS2)'s buffer (src/platform/darwin/procargs.c), laid
 * out here as xnu's sysctl_procargsx writes it: argc, the executable path,
 * NUL padding, the arguments, the environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "platform/darwin/procargs.h"

static size_t put(char *buf, int32_t argc, const char *const *parts, size_t n_parts, size_t pad)
{
	size_t k = 0;
	memcpy(buf, &argc, sizeof argc);
	k += sizeof argc;
	for (size_t i = 0; i < n_parts; i++) {
		size_t l = strlen(parts[i]) + 1;
		memcpy(buf + k, parts[i], l);
		k += l;
		if (i == 0)
			for (size_t j = 0; j < pad; j++)
				buf[k++] = '\0';
	}
	return k;
}

static void whole(void **state)
{
	(void)state;
	static const char *const parts[] = {"/opt/homebrew/bin/llama-server", "llama-server", "-m", "/m/x.gguf",
					    "HOME=/Users/a", "OLLAMA_MODELS=/v"};
	char buf[512];
	size_t n = put(buf, 3, parts, 6, 5);
	buf[n++] = '\0'; /* an empty string ends the environment */
	memcpy(buf + n, "junk", 4);
	n += 4;
	struct procargs a;
	assert_int_equal(procargs_parse(buf, n, 4096, &a), 0);
	assert_string_equal(a.exec_path, "/opt/homebrew/bin/llama-server");
	assert_int_equal(a.argc, 3);
	assert_string_equal(a.argv[0], "llama-server");
	assert_string_equal(a.argv[2], "/m/x.gguf");
	assert_null(a.argv[3]);
	assert_int_equal(a.env_len, strlen("HOME=/Users/a") + 1 + strlen("OLLAMA_MODELS=/v") + 1);
	assert_memory_equal(a.env, "HOME=/Users/a\0OLLAMA_MODELS=/v\0", a.env_len);
	procargs_free(&a);
	/* the environment's bound cuts after the last whole entry */
	assert_int_equal(procargs_parse(buf, n, 20, &a), 0);
	assert_int_equal(a.env_len, strlen("HOME=/Users/a") + 1);
	procargs_free(&a);
}

static void hostile(void **state)
{
	(void)state;
	struct procargs a;
	char buf[64];
	int32_t argc = -1;
	memcpy(buf, &argc, 4);
	assert_int_equal(procargs_parse(buf, 4, 100, &a), -1);
	assert_int_equal(procargs_parse(buf, 3, 100, &a), -1);
	argc = PROCARGS_MAX_ARGC + 1;
	memcpy(buf, &argc, 4);
	assert_int_equal(procargs_parse(buf, 4, 100, &a), -1);
	/* argc says 5, the buffer holds 1 unterminated: what is whole is kept */
	static const char *const parts[] = {"/bin/x", "x"};
	size_t n = put(buf, 5, parts, 2, 0);
	memcpy(buf + n, "cut", 3);
	char *exact = malloc(n + 3);
	memcpy(exact, buf, n + 3);
	assert_int_equal(procargs_parse(exact, n + 3, 100, &a), 0);
	assert_int_equal(a.argc, 1);
	assert_int_equal(a.env_len, 0);
	procargs_free(&a);
	/* every prefix of the buffer: no read past it (ASan) */
	for (size_t k = 0; k <= n + 3; k++) {
		memcpy(exact, buf, k);
		if (procargs_parse(exact, k, 100, &a) == 0)
			procargs_free(&a);
	}
	free(exact);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(whole), cmocka_unit_test(hostile)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
