/* The streaming JSON writer: the same text jansson's JSON_INDENT(2) gives for
 * the same tree, escaping, bytes that are not UTF-8, N/A as null, embedded
 * jansson subtrees, and documents larger than its buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/json_util.h"
#include "testutil.h"
#include "views/json_writer.h"

static struct jw w;
static char *text;
static size_t text_len;
static FILE *mem;

static void open_doc(void)
{
	mem = tu_memstream(&text, &text_len);
	assert_non_null(mem);
	jw_init(&w, mem);
}

static char *close_doc(void)
{
	assert_int_equal(jw_finish(&w), 0);
	tu_memclose(mem);
	return text;
}

static void test_same_as_jansson(void **state)
{
	(void)state;
	open_doc();
	jw_begin_object(&w, NULL);
	jw_int(&w, "n", -42);
	jw_int(&w, "max", INT64_MAX);
	jw_str(&w, "s", "tab\there \"q\" back\\slash / \x01\x1f end");
	jw_str(&w, "utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	jw_bool(&w, "t", true);
	jw_bool(&w, "f", false);
	jw_null(&w, "z");
	jw_begin_array(&w, "empty_a");
	jw_end_array(&w);
	jw_begin_object(&w, "empty_o");
	jw_end_object(&w);
	jw_begin_array(&w, "a");
	jw_int(&w, NULL, 1);
	jw_begin_object(&w, NULL);
	jw_str(&w, "k", "v");
	jw_end_object(&w);
	jw_begin_array(&w, NULL);
	jw_end_array(&w);
	jw_end_array(&w);
	jw_end_object(&w);
	char *got = close_doc();

	json_t *j = json_pack("{s:I,s:I,s:s,s:s,s:b,s:b,s:n,s:[],s:{},s:[i,{s:s},[]]}", "n", (json_int_t)-42, "max",
			      (json_int_t)INT64_MAX, "s", "tab\there \"q\" back\\slash / \x01\x1f end", "utf8",
			      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "t", 1, "f", 0, "z", "empty_a", "empty_o", "a", 1,
			      "k", "v");
	assert_non_null(j);
	char *want = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	size_t wl = strlen(want);
	assert_true(strlen(got) == wl + 1 && got[wl] == '\n');
	got[wl] = '\0';
	assert_string_equal(got, want);
	free(want);
	free(got);
	json_decref(j);
}

/* Not UTF-8 (a stray continuation, an overlong '/', a surrogate, a cut-off
 * sequence): each offending byte becomes '?', and the text parses. */
static void test_not_utf8(void **state)
{
	(void)state;
	open_doc();
	jw_begin_array(&w, NULL);
	jw_str(&w, NULL, "a\x80" "b");
	jw_str(&w, NULL, "\xc0\xaf");
	jw_str(&w, NULL, "\xed\xa0\x80");
	jw_str(&w, NULL, "x\xe2\x82");
	jw_str(&w, NULL, "\xf4\x90\x80\x80");
	jw_end_array(&w);
	char *got = close_doc();
	json_error_t err;
	json_t *j = json_loads(got, 0, &err);
	if (!j)
		fail_msg("not JSON: %s: %s", err.text, got);
	assert_string_equal(json_string_value(json_array_get(j, 0)), "a?b");
	assert_string_equal(json_string_value(json_array_get(j, 1)), "??");
	assert_string_equal(json_string_value(json_array_get(j, 2)), "???");
	assert_string_equal(json_string_value(json_array_get(j, 3)), "x??");
	assert_string_equal(json_string_value(json_array_get(j, 4)), "????");
	json_decref(j);
	free(got);
}

/* C1 controls (U+0080-U+009F) and DEL never reach the output raw, from the
 * streaming writer, an embedded jansson tree or json_dumps_safe: a terminal
 * that honours C1 acts on a raw U+009B (issue 11). Other UTF-8 stays raw. */
static const char c1_text[] = "a\xc2\x9b" "31m \xc2\x80\xc2\x9f\x7f \xc2\xa0\xc3\xa9 end";

static void assert_no_raw_c1(const char *got)
{
	for (const unsigned char *p = (const unsigned char *)got; *p; p++) {
		assert_int_not_equal(*p, 0x7F);
		if (p[0] == 0xC2)
			assert_true(p[1] > 0x9F);
	}
}

static void test_c1_escaped(void **state)
{
	(void)state;
	open_doc();
	jw_begin_array(&w, NULL);
	jw_str(&w, NULL, c1_text);
	jw_json(&w, NULL, json_string(c1_text));
	jw_end_array(&w);
	char *got = close_doc();
	assert_no_raw_c1(got);
	assert_non_null(strstr(got, "\"a\\u009B31m \\u0080\\u009F\\u007F \xc2\xa0\xc3\xa9 end\""));
	json_error_t err;
	json_t *j = json_loads(got, 0, &err);
	if (!j)
		fail_msg("not JSON: %s: %s", err.text, got);
	assert_string_equal(json_string_value(json_array_get(j, 0)), c1_text);
	assert_string_equal(json_string_value(json_array_get(j, 1)), c1_text);
	char *safe = json_dumps_safe(j, JSON_INDENT(2));
	assert_non_null(safe);
	assert_no_raw_c1(safe);
	json_t *back = json_loads(safe, 0, &err);
	assert_true(json_equal(back, j));
	json_decref(back);
	json_decref(j);
	free(safe);
	free(got);
}

static void test_readings(void **state)
{
	(void)state;
	open_doc();
	jw_begin_object(&w, NULL);
	jw_u64(&w, "na", GTM_U64_NA);
	jw_u64(&w, "zero", gtm_u64_of(0, GTM_MEASURED));
	jw_u64(&w, "huge", gtm_u64_of(UINT64_MAX, GTM_MEASURED));
	jw_f64(&w, "f_na", GTM_F64_NA);
	jw_f64(&w, "whole", gtm_f64_of(45.0, GTM_MEASURED));
	jw_f64(&w, "frac", gtm_f64_of(12.3456, GTM_MEASURED));
	jw_f64(&w, "tenth", gtm_f64_of(0.1, GTM_MEASURED));
	jw_f64(&w, "inf", gtm_f64_of(INFINITY, GTM_MEASURED));
	jw_f64(&w, "huge", gtm_f64_of(1e306, GTM_MEASURED));
	jw_f64(&w, "big_whole", gtm_f64_of(1.6e16, GTM_MEASURED));
	jw_f64(&w, "most_negative", gtm_f64_of(-1.7976931348623157e308, GTM_MEASURED));
	jw_f64(&w, "jansson_17", gtm_f64_of(68.123, GTM_MEASURED));
	jw_str(&w, "empty", "");
	jw_str(&w, "nul", NULL);
	jw_end_object(&w);
	char *got = close_doc();
	assert_non_null(strstr(got, "\"na\": null"));
	assert_non_null(strstr(got, "\"zero\": 0,"));
	assert_non_null(strstr(got, "\"huge\": 9223372036854775807,"));
	assert_non_null(strstr(got, "\"f_na\": null"));
	assert_non_null(strstr(got, "\"whole\": 45,"));
	assert_non_null(strstr(got, "\"frac\": 12.346,"));
	assert_non_null(strstr(got, "\"tenth\": 0.1,"));
	assert_non_null(strstr(got, "\"inf\": null"));
	assert_non_null(strstr(got, "\"big_whole\": 16000000000000000.0,")); /* as jansson wrote it */
	assert_non_null(strstr(got, "\"jansson_17\": 68.123,"));
	json_t *parsed = json_loads(got, 0, NULL); /* every figure a valid JSON number */
	assert_non_null(parsed);
	assert_true(json_real_value(json_object_get(parsed, "huge")) == 1e306);
	assert_true(json_real_value(json_object_get(parsed, "most_negative")) == -1.7976931348623157e308);
	assert_true(json_real_value(json_object_get(parsed, "jansson_17")) == 68.123);
	json_decref(parsed);
	assert_non_null(strstr(got, "\"empty\": null"));
	assert_non_null(strstr(got, "\"nul\": null"));
	free(got);
}

/* A jansson subtree lands indented to its depth, as if written in place. */
static void test_embedded(void **state)
{
	(void)state;
	open_doc();
	jw_begin_object(&w, NULL);
	jw_begin_array(&w, "rows");
	jw_begin_object(&w, NULL);
	jw_json(&w, "tree", json_pack("{s:[i,i],s:{s:s}}", "x", 1, 2, "y", "k", "v"));
	jw_json(&w, "none", NULL);
	jw_end_object(&w);
	jw_end_array(&w);
	jw_end_object(&w);
	char *got = close_doc();
	json_t *j = json_pack("{s:[{s:{s:[i,i],s:{s:s}},s:n}]}", "rows", "tree", "x", 1, 2, "y", "k", "v", "none");
	char *want = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	got[strlen(got) - 1] = '\0';
	assert_string_equal(got, want);
	free(want);
	free(got);
	json_decref(j);
}

/* Far beyond the 64 KiB buffer: flushed as it fills, nothing lost. */
static void test_large(void **state)
{
	(void)state;
	open_doc();
	jw_begin_array(&w, NULL);
	for (int i = 0; i < 50000; i++)
		jw_int(&w, NULL, i);
	jw_end_array(&w);
	char *got = close_doc();
	assert_true(strlen(got) > JW_BUF * 4);
	json_t *j = json_loads(got, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_array_size(j), 50000);
	assert_int_equal(json_integer_value(json_array_get(j, 49999)), 49999);
	json_decref(j);
	free(got);
}

/* A write that fails (a full disk, a closed pipe) is reported. */
static void test_write_error(void **state)
{
	(void)state;
	FILE *full = fopen("/dev/full", "w");
	if (!full)
		skip();
	setvbuf(full, NULL, _IONBF, 0);
	jw_init(&w, full);
	jw_begin_array(&w, NULL);
	jw_int(&w, NULL, 1);
	jw_end_array(&w);
	assert_int_equal(jw_finish(&w), -1);
	fclose(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_jansson), cmocka_unit_test(test_not_utf8), cmocka_unit_test(test_c1_escaped),cmocka_unit_test(test_readings),
		cmocka_unit_test(test_embedded),        cmocka_unit_test(test_large),    cmocka_unit_test(test_write_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
