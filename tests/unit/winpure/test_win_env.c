/* The pure half of the Windows environment reader (src/platform/windows/
 * win_env.c): the PEB offsets of both bitnesses, read from synthetic PEB
 * and parameter bytes, and the UTF-16 block → UTF-8 entries conversion with
 * its bounds. Built on Linux (ASan) and cross-built under Wine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "platform/windows/win_env.h"

static void put_le(uint8_t *buf, size_t off, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		buf[off + i] = (uint8_t)(v >> (8 * i));
}

/* One layout's pointers at its offsets; everything else 0xAA, so a wrong
 * offset reads garbage. */
static void check_layout(const struct win_peb_layout *l, uint64_t params_at, uint64_t env_at, uint64_t env_size)
{
	uint8_t peb[0x40], params[0x400];
	uint64_t p = 0, e = 0, s = 0;

	assert_true(win_peb_bytes(l) <= sizeof peb && win_params_bytes(l) <= sizeof params);
	memset(peb, 0xAA, sizeof peb);
	memset(params, 0xAA, sizeof params);
	put_le(peb, l->peb_params, params_at, l->ptr_size);
	put_le(params, l->params_env, env_at, l->ptr_size);
	put_le(params, l->params_env_size, env_size, l->ptr_size);
	assert_true(win_peb_params(peb, win_peb_bytes(l), l, &p));
	assert_true(p == params_at);
	assert_true(win_params_environment(params, win_params_bytes(l), l, &e, &s));
	assert_true(e == env_at && s == env_size);
	/* one byte short of a field: refused, never read past the buffer */
	assert_false(win_peb_params(peb, win_peb_bytes(l) - 1, l, &p));
	assert_false(win_params_environment(params, win_params_bytes(l) - 1, l, &e, &s));
	/* a NULL pointer is no environment */
	put_le(peb, l->peb_params, 0, l->ptr_size);
	assert_false(win_peb_params(peb, sizeof peb, l, &p));
	put_le(params, l->params_env, 0, l->ptr_size);
	assert_false(win_params_environment(params, sizeof params, l, &e, &s));
}

static void test_layouts(void **state)
{
	(void)state;
	check_layout(&win_peb_x64, 0x000001E4A2C01F80ull, 0x000001E4A2C05000ull, 0x1234);
	assert_int_equal(win_peb_x64.params_env, 0x80);
	assert_int_equal(win_peb_x64.params_env_size, 0x3F0);
	assert_int_equal(win_params_bytes(&win_peb_x64), 0x3F8);
	/* WOW64: a 32-bit PEB with 4-byte pointers */
	check_layout(&win_peb_x86, 0x00A01F80u, 0x00A05000u, 0x0800);
	assert_int_equal(win_peb_x86.peb_params, 0x10);
	assert_int_equal(win_peb_x86.params_env, 0x48);
	assert_int_equal(win_params_bytes(&win_peb_x86), 0x294);
}

/* A UTF-16LE block from code units. */
static size_t block(const uint16_t *units, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++)
		put_le(out, 2 * i, units[i], 2);
	return 2 * n;
}

static size_t ascii_block(const char *s, size_t len, uint8_t *out)
{
	uint16_t u[256];
	for (size_t i = 0; i < len; i++)
		u[i] = (unsigned char)s[i];
	return block(u, len, out);
}

static void test_ascii(void **state)
{
	(void)state;
	uint8_t b[512];
	char out[256];
	size_t n = ascii_block("OLLAMA_MODELS=D:\\m\0HF_HOME=C:\\hf\0\0JUNK=1\0\0", 42, b);
	size_t k = win_environ_to_utf8(b, n, out, sizeof out);
	/* what follows the empty entry is no environment */
	assert_int_equal(k, 33);
	assert_memory_equal(out, "OLLAMA_MODELS=D:\\m\0HF_HOME=C:\\hf\0", 33);
	/* an empty block, and no bytes at all */
	assert_int_equal(win_environ_to_utf8(b, 0, out, sizeof out), 0);
	n = ascii_block("\0\0", 2, b);
	assert_int_equal(win_environ_to_utf8(b, n, out, sizeof out), 0);
}

static void test_non_ascii(void **state)
{
	(void)state;
	/* P=Zoë模😀 then a lone high and a lone low surrogate */
	static const uint16_t u[] = {'P', '=', 'Z', 'o', 0x00EB, 0x6A21, 0xD83D, 0xDE00, 0, 'Q', '=', 0xD800, 'x', 0xDC00, 0, 0};
	uint8_t b[64];
	char out[64];
	size_t k = win_environ_to_utf8(b, block(u, sizeof u / sizeof u[0], b), out, sizeof out);
	static const char want[] = "P=Zo\xC3\xAB\xE6\xA8\xA1\xF0\x9F\x98\x80\0Q=\xEF\xBF\xBDx\xEF\xBF\xBD";
	assert_int_equal(k, sizeof want);
	assert_memory_equal(out, want, sizeof want);
}

static void test_bounds(void **state)
{
	(void)state;
	uint8_t b[512];
	char out[256];
	size_t n = ascii_block("A=1\0BB=22\0CCC=333\0\0", 20, b);
	/* a block cut by the read bound: the entry without its NUL goes, also at an odd byte */
	assert_int_equal(win_environ_to_utf8(b, 2 * 16, out, sizeof out), 10);
	assert_memory_equal(out, "A=1\0BB=22\0", 10);
	assert_int_equal(win_environ_to_utf8(b, 2 * 18 + 1, out, sizeof out), 18);
	assert_int_equal(win_environ_to_utf8(b, 2 * 4 - 1, out, sizeof out), 0);
	/* the output bound: after the last whole entry that fits, exactly at it too */
	assert_int_equal(win_environ_to_utf8(b, n, out, 17), 10);
	assert_int_equal(win_environ_to_utf8(b, n, out, 18), 18);
	assert_memory_equal(out, "A=1\0BB=22\0CCC=333\0", 18);
	assert_int_equal(win_environ_to_utf8(b, n, out, 3), 0);
	/* a multi-byte character is never split at the bound */
	static const uint16_t u[] = {'A', '=', 0x6A21, 0, 0};
	n = block(u, 5, b);
	assert_int_equal(win_environ_to_utf8(b, n, out, 5), 0);
	assert_int_equal(win_environ_to_utf8(b, n, out, 6), 6);
	assert_true(WIN_ENV_RAW_MAX(64u * 1024u) == 128u * 1024u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_non_ascii),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
