/* PDH GPU counter instance names: the real ones public captures show
 * (../shared/fixtures/windows/pdh-instances.txt, read in place), generated
 * ones over the grammar's corners, and hostile ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/wddm/wddm_engine_agg.h"
#include "sources/wddm/wddm_instance.h"
#include "testutil.h"

static int parse(const char *s, struct wddm_instance *o)
{
	return wddm_instance_parse(s, strlen(s), o);
}

/* Every instance of the fixture parses, with the pid, LUID, phys, engine
 * and type the name spells; the engine set's lines also aggregate as the
 * sources describe (source 7: one engine listed twice for a process). */
static void test_real_captures(void **state)
{
	(void)state;
	const char *dir = tu_shared_fixture("windows");
	char path[512], line[512];
	int n = 0;

	if (!dir) {
		print_message("skipped: ../shared/fixtures/windows is absent\n");
		skip();
	}
	snprintf(path, sizeof path, "%s/pdh-instances.txt", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		print_message("skipped: %s is absent\n", path);
		skip();
	}
	while (fgets(line, sizeof line, f)) {
		char *set = strtok(line, "\t"), *inst = strtok(NULL, "\t");
		struct wddm_instance id;
		assert_non_null(inst);
		assert_int_equal(parse(inst, &id), 0);
		assert_int_equal(id.has_pid, strstr(inst, "pid_") == inst);
		assert_int_equal(id.has_eng, strcmp(set, "GPU Engine") == 0);
		assert_int_equal(id.has_part, strstr(inst, "_part_") != NULL);
		char luid[24];
		wddm_luid_format(id.luid, luid, sizeof luid);
		const char *l = strstr(inst, "luid_") + 5;
		assert_int_equal(strncasecmp(luid, l, 21), 0); /* captures print both cases */
		if (id.has_eng)
			assert_string_equal(id.engtype, strstr(inst, "engtype_") + 8);
		n++;
	}
	fclose(f);
	assert_true(n >= 13);
}

static void test_fields(void **state)
{
	(void)state;
	struct wddm_instance id;

	assert_int_equal(parse("pid_9524_luid_0x00000000_0x000095CA_phys_0_eng_0_engtype_3D", &id), 0);
	assert_int_equal(id.pid, 9524);
	assert_true(id.luid == 0x95CA);
	assert_int_equal(id.eng, 0);
	assert_string_equal(id.engtype, "3D");
	/* types with '_' and spaces are kept whole (windows_exporter once split on '_') */
	assert_int_equal(parse("pid_856_luid_0x00000000_0x000098FE_phys_0_eng_9_engtype_Graphics_1", &id), 0);
	assert_string_equal(id.engtype, "Graphics_1");
	assert_int_equal(parse("pid_4_luid_0x00000001_0xFFFFFFFF_phys_1_eng_12_engtype_High Priority Compute", &id), 0);
	assert_string_equal(id.engtype, "High Priority Compute");
	assert_true(id.luid == 0x1FFFFFFFFull);
	assert_int_equal(id.phys, 1);
	assert_int_equal(id.eng, 12);
	/* the LUID's case does not matter; neither do the words' (PowerShell lowercases) */
	struct wddm_instance up;
	assert_int_equal(parse("PID_4_LUID_0X00000001_0XFFFFFFFF_PHYS_1_ENG_12_ENGTYPE_High Priority Compute", &up), 0);
	assert_true(up.luid == id.luid);
	/* a duplicate suffix is tolerated and kept apart */
	assert_int_equal(parse("pid_100_luid_0x00000000_0x0000F8BE_phys_0_eng_0_engtype_3D#1", &id), 0);
	assert_string_equal(id.engtype, "3D");
	assert_int_equal(id.dup, 1);
	/* adapter sets */
	assert_int_equal(parse("luid_0x00000000_0x00005678_phys_0_part_0", &id), 0);
	assert_false(id.has_pid);
	assert_true(id.has_part);
	assert_int_equal(parse("luid_0x00000000_0x000117f9_phys_0", &id), 0);
	assert_false(id.has_part || id.has_eng || id.has_pid);
	char s[24];
	wddm_luid_format(0x00000001000117f9ull, s, sizeof s);
	assert_string_equal(s, "0x00000001_0x000117F9");
}

static void test_hostile(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "_Total", "pid__luid_0x0_0x1_phys_0", "pid_1_luid_0x_0x1_phys_0", "pid_1_luid_0x0_0x1",
		"pid_1_luid_0x123456789_0x1_phys_0", /* 9 hex digits */
		"pid_4294967296_luid_0x0_0x1_phys_0", /* past 32 bits */
		"pid_1_luid_0x0_0x1_phys_0_eng_1_engtype_", "pid_1_luid_0x0_0x1_phys_0_eng_1",
		"pid_1_luid_0x0_0x1_phys_0_trailing", "pid_1_luid_0x0_0x1_phys_0_part_", "luid_0x0_0x1_phys_0#",
		"pid_1_luid_0x0_0x1_phys_0_eng_1_engtype_a\x01", "pid_-1_luid_0x0_0x1_phys_0",
		"pid_1_luid_0x0_0x1_phys_0_eng_1_engtype_0123456789012345678901234567890123",
	};
	struct wddm_instance id;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (parse(bad[i], &id) == 0)
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(id.pid, 0);
	}
	/* a name is bounded bytes, not a C string: no read past n */
	char buf[] = "pid_1_luid_0x0_0x1_phys_0XXXX";
	assert_int_equal(wddm_instance_parse(buf, strlen(buf) - 4, &id), 0);
	assert_int_equal(wddm_instance_parse(buf, 0, &id), -1);
	char *longname = malloc(4096);
	memset(longname, 'a', 4096);
	assert_int_equal(wddm_instance_parse(longname, 4096, &id), -1);
	free(longname);
}

/* Every generated name of the grammar parses back to its fields. */
static void test_generated(void **state)
{
	(void)state;
	static const char *const types[] = {"3D", "Copy", "Compute_0", "VideoDecode", "Video Codec 0", "OFA_0",
					    "True Audio 0", "Security", "LegacyOverlay", "Cuda"};
	char name[200];
	struct wddm_instance id;
	uint32_t seed = 12345;

	for (int i = 0; i < 2000; i++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t pid = seed >> 4, hi = seed % 3, lo = seed ^ 0xA5A5A5A5u, phys = seed % 2, eng = seed % 37;
		const char *t = types[seed % 10];
		snprintf(name, sizeof name, i % 2 ? "pid_%u_luid_0x%08X_0x%08x_phys_%u_eng_%u_engtype_%s"
						  : "pid_%u_luid_0x%08x_0x%08X_phys_%u_eng_%u_engtype_%s",
			 pid, hi, lo, phys, eng, t);
		assert_int_equal(parse(name, &id), 0);
		assert_int_equal(id.pid, pid);
		assert_true(id.luid == ((uint64_t)hi << 32 | lo));
		assert_int_equal(id.phys, phys);
		assert_int_equal(id.eng, eng);
		assert_string_equal(id.engtype, t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_real_captures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
