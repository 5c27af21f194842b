/* ioreg's text and plist forms into the registry list (ioreg_text.c,
 * ioreg_plist.c): the quoted captures of ../shared/fixtures/macos (each
 * names its public source; none is proven unedited) and hostile inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/darwin/ioreg.h"
#include "darwin_fixture.h"

#define FIXTURE_OR_SKIP(var, name, len)                                                                   \
	char *var = fixture(name, &len);                                                                  \
	if (!var) {                                                                                       \
		print_message("SKIP: ../shared/fixtures/macos absent\n");                                 \
		skip();                                                                                   \
	}

static void text_accelerator_m1pro(void **state)
{
	(void)state;
	size_t n;
	FIXTURE_OR_SKIP(t, "ioreg-r-d1-IOAccelerator-M1Pro-llama-server-17GB.txt", n);
	struct ioreg_list l;
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_text(t, n, &l), 1);
	assert_string_equal(l.v[0].cls, "AGXAcceleratorG13X");
	assert_int_equal(l.v[0].id, 0x100000971ull);
	assert_int_equal(l.v[0].depth, 0);
	const struct ptree *ps = ptree_get(l.v[0].props, "PerformanceStatistics");
	assert_non_null(ps);
	assert_int_equal(ps->kind, PT_DICT);
	int64_t v;
	assert_true(ptree_get_num(ps, "Alloc system memory", &v));
	assert_int_equal(v, 21343043584ll);
	assert_true(ptree_get_num(ps, "In use system memory", &v));
	assert_int_equal(v, 507330560);
	assert_true(ptree_get_num(ps, "Device Utilization %", &v));
	assert_int_equal(v, 22);
	assert_true(ptree_get_num(l.v[0].props, "gpu-core-count", &v));
	assert_int_equal(v, 14);
	assert_string_equal(ptree_get_str(l.v[0].props, "IOClass"), "AGXAcceleratorG13X");
	/* data and Yes are kept, as neither number nor string */
	assert_int_equal(ptree_get(l.v[0].props, "vendor-id")->kind, PT_OTHER);
	assert_int_equal(ptree_get(l.v[0].props, "IOMatchedAtBoot")->kind, PT_OTHER);
	const struct ptree *agc = ptree_get(l.v[0].props, "AGCInfo");
	assert_true(ptree_get_num(agc, "fLastSubmissionPID", &v));
	assert_int_equal(v, 615);
	ioreg_list_free(&l);
	free(t);
}

static void text_clients(void **state)
{
	(void)state;
	size_t n;
	FIXTURE_OR_SKIP(t, "ioreg-AGXDeviceUserClient-text-4-clients.txt", n);
	struct ioreg_list l;
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_text(t, n, &l), 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(l.v[i].cls, "AGXDeviceUserClient");
		assert_int_equal(l.v[i].id, 0x100002dbcull + i);
	}
	const struct ptree *au = ptree_get(l.v[0].props, "AppUsage");
	assert_int_equal(au->kind, PT_ARRAY);
	assert_int_equal(au->n, 0);
	au = ptree_get(l.v[1].props, "AppUsage");
	assert_int_equal(au->n, 2);
	int64_t v;
	assert_true(ptree_get_num(au->first, "accumulatedGPUTime", &v));
	assert_int_equal(v, 38738170958ll);
	assert_string_equal(ptree_get_str(au->first, "API"), "Metal");
	assert_string_equal(ptree_get_str(l.v[1].props, "IOUserClientCreator"), "pid 440, WindowServer");
	assert_string_equal(ptree_get_str(l.v[3].props, "IOUserClientCreator"), "pid 31299, voxel_game_examp");
	ioreg_list_free(&l);
	free(t);
}

/* Every IOAccelerator capture: one entry with PerformanceStatistics (M4's
 * "model" after the statistics, M1 Pro t6000's cut dump without a "}"). */
static void text_every_accelerator(void **state)
{
	(void)state;
	static const char *const names[] = {"ioreg-r-d1-w0-IOAccelerator-M1Pro-t6000.txt",
					    "ioreg-r-d1-w0-IOAccelerator-M3Air-trimmed.txt",
					    "ioreg-r-d1-w0-IOAccelerator-M4-trimmed.txt"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t n;
		FIXTURE_OR_SKIP(t, names[i], n);
		struct ioreg_list l;
		ioreg_list_init(&l);
		assert_int_equal(ioreg_parse_text(t, n, &l), 1);
		int64_t v;
		assert_true(ptree_get_num(ptree_get(l.v[0].props, "PerformanceStatistics"), "Alloc system memory", &v));
		assert_true(v > 0);
		ioreg_list_free(&l);
		free(t);
	}
}

/* A tree as `ioreg -r -d 2` prints it: the clients one level below. */
static const char tree_text[] =
	"+-o AGXAcceleratorG14X  <class AGXAcceleratorG14X, id 0x1000008a1, registered>\n"
	"  | {\n"
	"  |   \"PerformanceStatistics\" = {\"Device Utilization %\"=5,\"Alloc system memory\"=100}\n"
	"  |   \"model\" = \"Apple M2\"\n"
	"  | }\n"
	"  | \n"
	"  +-o AGXDeviceUserClient  <class AGXDeviceUserClient, id 0x1000008b2, !registered>\n"
	"      {\n"
	"        \"AppUsage\" = ({\"accumulatedGPUTime\"=7})\n"
	"        \"IOUserClientCreator\" = \"pid 12, a\"\n"
	"      }\n";

static void text_tree_depth(void **state)
{
	(void)state;
	struct ioreg_list l;
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_text(tree_text, sizeof tree_text - 1, &l), 2);
	assert_int_equal(l.v[0].depth, 0);
	assert_int_equal(l.v[1].depth, 1);
	assert_ptr_equal(ioreg_parent(&l, 1), &l.v[0]);
	assert_null(ioreg_parent(&l, 0));
	assert_string_equal(ptree_get_str(l.v[0].props, "model"), "Apple M2");
	ioreg_list_free(&l);
}

static void plist_m5pro(void **state)
{
	(void)state;
	size_t n;
	FIXTURE_OR_SKIP(t, "ioreg-IOAccelerator-M5Pro-trimmed.plist", n);
	struct ioreg_list l;
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_plist(t, n, &l), 1);
	assert_string_equal(l.v[0].cls, "AGXAcceleratorG17X"); /* IOClass: no IOObjectClass in the trimmed dump */
	const struct ptree *ps = ptree_get(l.v[0].props, "PerformanceStatistics");
	int64_t v;
	assert_true(ptree_get_num(ps, "Alloc system memory", &v));
	assert_int_equal(v, 6614056960ll);
	assert_true(ptree_get_num(ps, "Tiler Utilization %", &v));
	assert_int_equal(v, 5);
	assert_true(ptree_get_num(l.v[0].props, "AGXParameterBufferMaxSize", &v));
	assert_int_equal(v, -1717043200ll);
	assert_string_equal(ptree_get_str(l.v[0].props, "model"), "Apple M5 Pro");
	assert_int_equal(ptree_get(l.v[0].props, "vendor-id")->kind, PT_OTHER);
	ioreg_list_free(&l);
	free(t);
}

static const char plist_tree[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<array>\n<dict>\n"
	"<key>IOObjectClass</key><string>AGXAcceleratorG13G</string>\n"
	"<key>IORegistryEntryID</key><integer>4294969000</integer>\n"
	"<key>IORegistryEntryChildren</key><array>\n"
	"  <dict><key>IOObjectClass</key><string>AGXDeviceUserClient</string>\n"
	"  <key>IORegistryEntryID</key><integer>4294969001</integer>\n"
	"  <key>IOUserClientCreator</key><string>pid 7, a &amp; b &#60;</string>\n"
	"  <key>AppUsage</key><array><dict><key>accumulatedGPUTime</key><integer>5</integer></dict></array>\n"
	"  <key>flag</key><true/><key>e</key><string/></dict>\n"
	"</array>\n"
	"<key>PerformanceStatistics</key><dict><key>Device Utilization %</key><integer>3</integer></dict>\n"
	"</dict>\n</array>\n</plist>\n";

static void plist_children(void **state)
{
	(void)state;
	struct ioreg_list l;
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_plist(plist_tree, sizeof plist_tree - 1, &l), 2);
	assert_string_equal(l.v[0].cls, "AGXAcceleratorG13G");
	assert_int_equal(l.v[0].id, 4294969000ull);
	assert_string_equal(l.v[1].cls, "AGXDeviceUserClient");
	assert_int_equal(l.v[1].depth, 1);
	assert_int_equal(l.v[1].id, 4294969001ull);
	assert_string_equal(ptree_get_str(l.v[1].props, "IOUserClientCreator"), "pid 7, a & b <");
	assert_string_equal(ptree_get_str(l.v[1].props, "e"), "");
	assert_int_equal(ptree_get(l.v[1].props, "flag")->kind, PT_OTHER);
	assert_ptr_equal(ioreg_parent(&l, 1), &l.v[0]);
	ioreg_list_free(&l);
}

/* Cut, unbalanced, over-deep and garbage inputs: -1 or what was whole, no
 * read past the end (ASan), no crash. */
static void hostile(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"", "+-o", "+-o X  <class ", "+-o X  <class Y, id 0x", "+-o X <class Y>\n  \"a\" = {\"b\"=(1,2",
		"+-o X <class Y>\n  \"a\" = \"unclosed\n", "+-o X <class Y>\n  \"a\" = 99999999999999999999999\n",
		"+-o X <class Y>\n  \"a\" = -\n", "garbage\n\n\n", "x+-o X <class Y>\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct ioreg_list l;
		ioreg_list_init(&l);
		char *cut = malloc(strlen(texts[i]) + 1);
		memcpy(cut, texts[i], strlen(texts[i]));
		(void)ioreg_parse_text(cut, strlen(texts[i]), &l);
		(void)ioreg_parse_plist(cut, strlen(texts[i]), &l);
		free(cut);
		ioreg_list_free(&l);
	}
	struct ioreg_list l;
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_text("nothing", 7, &l), -1);
	assert_int_equal(ioreg_parse_plist("<plist><array>", 14, &l), -1);
	/* an over-long number is no number */
	static const char big[] = "+-o X <class Y>\n \"a\" = 99999999999999999999999\n";
	assert_int_equal(ioreg_parse_text(big, sizeof big - 1, &l), 1);
	assert_int_equal(ptree_get(l.v[0].props, "a")->kind, PT_OTHER);
	ioreg_list_free(&l);
	/* nesting past PTREE_MAX_DEPTH is refused, not recursed into */
	char deep[4096];
	size_t k = (size_t)snprintf(deep, sizeof deep, "+-o X <class Y>\n \"a\" = ");
	for (int i = 0; i < 200; i++)
		deep[k++] = '(';
	for (int i = 0; i < 200; i++)
		deep[k++] = ')';
	deep[k++] = '\n';
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_text(deep, k, &l), 1);
	assert_null(ptree_get(l.v[0].props, "a"));
	ioreg_list_free(&l);
	k = (size_t)snprintf(deep, sizeof deep, "<plist>");
	for (int i = 0; i < 200; i++)
		k += (size_t)snprintf(deep + k, sizeof deep - k, "<array>");
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_plist(deep, k, &l), -1);
	ioreg_list_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_accelerator_m1pro), cmocka_unit_test(text_clients),
		cmocka_unit_test(text_every_accelerator), cmocka_unit_test(text_tree_depth),
		cmocka_unit_test(plist_m5pro), cmocka_unit_test(plist_children), cmocka_unit_test(hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
