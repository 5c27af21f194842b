/* The fdinfo parser on the real captures in ../shared/fixtures/drm, on the
 * unit forms the spec allows, and on hostile input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drm_tree.h"
#include "sources/amdgpu_sysfs.h"
#include "sources/drm_classes.h"
#include "sources/drm_devices.h"
#include "sources/drm_kfd.h"
#include "sources/drm_fdinfo.h"
#include "testutil.h"

#define KIB 1024ull
#define MIB_ (1024ull * 1024ull)

static const struct drm_fdinfo_region *region(const struct drm_fdinfo *fi, const char *name)
{
	for (int i = 0; i < fi->n_regions; i++)
		if (strcmp(fi->regions[i].name, name) == 0)
			return &fi->regions[i];
	return NULL;
}

static const struct drm_fdinfo_engine *engine(const struct drm_fdinfo *fi, const char *name)
{
	for (int i = 0; i < fi->n_engines; i++)
		if (strcmp(fi->engines[i].name, name) == 0)
			return &fi->engines[i];
	return NULL;
}

/* Parses a capture; skips the case (not the suite) when captures are absent. */
static int parse_capture(const char *name, struct drm_fdinfo *fi)
{
	char *body = dt_capture(name);
	if (!body)
		skip();
	int rc = drm_fdinfo_parse(body, strlen(body), fi);
	free(body);
	return rc;
}

static void test_amdgpu_legacy_capture(void **state)
{
	(void)state;
	struct drm_fdinfo fi;
	assert_int_equal(parse_capture("amdgpu-amdgpu_top-issue87.txt", &fi), 0);
	assert_string_equal(fi.driver, "amdgpu");
	assert_string_equal(fi.pdev, "0000:08:00.0");
	assert_true(fi.has_client_id);
	assert_int_equal(fi.client_id, 217);
	const struct drm_fdinfo_region *v = region(&fi, "vram"), *g = region(&fi, "gtt");
	assert_non_null(v);
	assert_non_null(g);
	assert_int_equal(v->have, DRM_RK_MEMORY);
	assert_int_equal(v->memory, 2068 * KIB);
	assert_int_equal(g->memory, 8192 * KIB);
	uint64_t b;
	assert_true(drm_region_resident(v, &b));
	assert_int_equal(b, 2068 * KIB);
	/* the reporter's "------->keep growing" note does not spoil the value */
	const struct drm_fdinfo_engine *e = engine(&fi, "gfx");
	assert_non_null(e);
	assert_int_equal(e->busy_ns, 107322799ull);
	assert_int_equal(e->have, DRM_EK_NS);
	assert_int_equal(e->capacity, 1);
	assert_int_equal(fi.n_bad, 0);
}

static void test_amdgpu_rocm_capture(void **state)
{
	(void)state;
	struct drm_fdinfo fi;
	assert_int_equal(parse_capture("amdgpu-rocmi-src-rocmi.py.txt", &fi), 0);
	assert_int_equal(fi.client_id, 1203108);
	assert_int_equal(region(&fi, "vram")->memory, 76 * KIB);
	assert_int_equal(region(&fi, "cpu")->memory, 6200 * KIB);
	/* amd-* keys are driver-specific: not regions */
	assert_null(region(&fi, "visible-vram"));
	assert_int_equal(fi.n_regions, 3);
	assert_int_equal(fi.n_engines, 0);
}

static void test_amdgpu_apu_partial_capture(void **state)
{
	(void)state;
	struct drm_fdinfo fi;
	/* a grep of drm-memory lines: no drm-driver, so not a DRM client by itself */
	assert_int_equal(parse_capture("amdgpu-nvtop-pr492-partial.txt", &fi), -1);
	assert_int_equal(region(&fi, "gtt")->memory, 25258000 * KIB);
	assert_int_equal(region(&fi, "vram")->memory, 5348 * KIB);
	assert_false(fi.has_client_id);
}

static void test_i915_captures(void **state)
{
	(void)state;
	struct drm_fdinfo fi;
	assert_int_equal(parse_capture("i915-lore-irogers-proc_pid_fdinfo5.txt", &fi), 0);
	assert_string_equal(fi.driver, "i915");
	const struct drm_fdinfo_region *s0 = region(&fi, "system0"), *st = region(&fi, "stolen-system0");
	assert_non_null(s0);
	assert_non_null(st);
	assert_int_equal(s0->resident, 6044 * KIB);
	assert_int_equal(s0->purgeable, 1688 * KIB);
	assert_true(s0->have & DRM_RK_SHARED);
	assert_int_equal(s0->shared, 0);
	assert_int_equal(engine(&fi, "render")->busy_ns, 346249);
	assert_int_equal(engine(&fi, "video")->capacity, 2);
	assert_true(engine(&fi, "video")->have & DRM_EK_CAPACITY);
	assert_non_null(engine(&fi, "video-enhance"));

	assert_int_equal(parse_capture("i915-lore-tvrtko-fdinfo-memory-stats-v8.txt", &fi), 0);
	assert_int_equal(region(&fi, "system")->resident, 125 * MIB_);
	assert_int_equal(region(&fi, "system")->shared, 16 * MIB_);
	assert_int_equal(engine(&fi, "render")->busy_ns, 25662044495ull);

	/* indented example from the 2022 patch: engines only, no memory keys */
	assert_int_equal(parse_capture("i915-lore-tvrtko-2022-first-fdinfo-patch.txt", &fi), 0);
	assert_int_equal(fi.client_id, 7);
	assert_int_equal(fi.n_regions, 0);
	assert_int_equal(engine(&fi, "copy")->busy_ns, 2035071108ull);
}

static void test_xe_captures(void **state)
{
	(void)state;
	struct drm_fdinfo fi;
	assert_int_equal(parse_capture("xe-kernel-xe_drm_client.c-DOC.txt", &fi), 0);
	assert_string_equal(fi.driver, "xe");
	/* mixed units in one file: bare bytes, KiB, MiB */
	assert_int_equal(region(&fi, "vram0")->resident, 23992 * KIB);
	assert_int_equal(region(&fi, "vram0")->shared, 16 * MIB_);
	assert_int_equal(region(&fi, "gtt")->resident, 192 * KIB);
	const struct drm_fdinfo_engine *rcs = engine(&fi, "rcs"), *ccs = engine(&fi, "ccs");
	assert_int_equal(rcs->cycles, 28257900);
	assert_int_equal(rcs->total_cycles, 7655183225ull);
	assert_int_equal(rcs->have, DRM_EK_CYCLES | DRM_EK_TOTAL_CYCLES);
	assert_int_equal(ccs->capacity, 4);
	/* "drm-total-cycles-" is an engine key, never a region called "cycles-rcs" */
	assert_null(region(&fi, "cycles-rcs"));

	assert_int_equal(parse_capture("xe-intel-compute-runtime-sysman.txt", &fi), 0);
	assert_int_equal(region(&fi, "vram0")->resident, 65072580 * KIB);
	assert_int_equal(region(&fi, "vram1")->resident, 63753540 * KIB);
	assert_int_equal(engine(&fi, "bcs")->capacity, 16);
	assert_int_equal(engine(&fi, "ccs")->cycles, 326);
}

static void test_values_and_units(void **state)
{
	(void)state;
	uint64_t v;
	assert_true(drm_fdinfo_value(" 0", 2, DRM_VAL_BYTES, &v));
	assert_int_equal(v, 0);
	assert_true(drm_fdinfo_value("\t12 KiB", 7, DRM_VAL_BYTES, &v));
	assert_int_equal(v, 12 * KIB);
	assert_true(drm_fdinfo_value("3 MiB", 5, DRM_VAL_BYTES, &v));
	assert_int_equal(v, 3 * MIB_);
	assert_true(drm_fdinfo_value("5", 1, DRM_VAL_BYTES, &v));
	assert_int_equal(v, 5);
	assert_true(drm_fdinfo_value("42 ns", 5, DRM_VAL_NS, &v));
	assert_int_equal(v, 42);
	/* a unit the spec does not define is not read as bytes */
	assert_false(drm_fdinfo_value("5 GB", 4, DRM_VAL_BYTES, &v));
	assert_false(drm_fdinfo_value("12KiB", 5, DRM_VAL_BYTES, &v));
	assert_false(drm_fdinfo_value("7 us", 4, DRM_VAL_NS, &v));
	assert_false(drm_fdinfo_value("", 0, DRM_VAL_PLAIN, &v));
	assert_false(drm_fdinfo_value("-1", 2, DRM_VAL_PLAIN, &v));
	/* overflow, in the digits and in the unit */
	assert_false(drm_fdinfo_value("18446744073709551616", 20, DRM_VAL_PLAIN, &v));
	assert_true(drm_fdinfo_value("18446744073709551615", 20, DRM_VAL_PLAIN, &v));
	assert_false(drm_fdinfo_value("18014398509481984 KiB", 21, DRM_VAL_BYTES, &v));
	/* bounded: the length is honoured, not a NUL */
	assert_true(drm_fdinfo_value("123456", 3, DRM_VAL_PLAIN, &v));
	assert_int_equal(v, 123);
}

static void test_hostile_lines(void **state)
{
	(void)state;
	struct drm_fdinfo fi;
	const char *text = "drm-driver:\n"            /* empty value */
			   "drm-client-id: x\n"
			   "drm-engine-capacity-gfx: 0\n" /* zero capacity is not allowed */
			   "drm-memory-vram 5 KiB\n"      /* no colon */
			   "drm-memory-: 5\n"             /* empty region name */
			   "drm bad: 1\n"
			   "drm-memory-gtt: 9 PiB\n";
	assert_int_equal(drm_fdinfo_parse(text, strlen(text), &fi), -1);
	assert_false(fi.has_client_id);
	/* "9 PiB" is not a unit: gtt is kept, marked unreadable, with no value */
	assert_int_equal(fi.n_regions, 1);
	assert_string_equal(fi.regions[0].name, "gtt");
	assert_int_equal(fi.regions[0].have, DRM_RK_BAD);
	assert_int_equal(fi.n_bad, 4);
	assert_int_equal(fi.n_bad_memory, 1);

	/* more regions than fit: the rest are dropped and the overflow said */
	char big[8192];
	size_t n = (size_t)snprintf(big, sizeof big, "drm-driver: amdgpu\n");
	for (int i = 0; i < DRM_FDINFO_MAX_REGIONS + 4; i++)
		n += (size_t)snprintf(big + n, sizeof big - n, "drm-resident-r%d: %d\n", i, i);
	assert_int_equal(drm_fdinfo_parse(big, n, &fi), 0);
	assert_int_equal(fi.n_regions, DRM_FDINFO_MAX_REGIONS);
	assert_true(fi.overflow);

	/* NUL bytes and no final newline */
	const char nul[] = "drm-driver: xe\0\ndrm-client-id: 5";
	assert_int_equal(drm_fdinfo_parse(nul, sizeof nul - 1, &fi), 0);
	assert_int_equal(fi.client_id, 5);
	assert_int_equal(drm_fdinfo_parse("", 0, &fi), -1);
}

/* A memory value that does not parse marks its region, so attribution
 * treats the client as incomplete instead of reading a 0. */
static void test_unparseable_memory_marks_region(void **state)
{
	(void)state;
	const char *t = "drm-driver:\tamdgpu\ndrm-client-id:\t3\n"
			"drm-resident-vram:\t2097152 kB\n"                 /* kB is not a drm-usage-stats unit */
			"drm-resident-gtt:\t18014398509481983 GiB\n"       /* overflows 64 bits */
			"drm-shared-vram:\t0\ndrm-resident-cpu:\t4 KiB\n";
	struct drm_fdinfo fi;
	uint64_t b;
	assert_int_equal(drm_fdinfo_parse(t, strlen(t), &fi), 0);
	assert_int_equal(fi.n_bad, 2);
	assert_int_equal(fi.n_bad_memory, 2);
	assert_int_equal(fi.n_regions, 3);
	assert_string_equal(fi.regions[0].name, "vram");
	assert_int_equal(fi.regions[0].have, DRM_RK_BAD | DRM_RK_SHARED);
	assert_false(drm_region_resident(&fi.regions[0], &b));
	assert_string_equal(fi.regions[1].name, "gtt");
	assert_int_equal(fi.regions[1].have, DRM_RK_BAD);
	assert_int_equal(fi.regions[2].have, DRM_RK_RESIDENT);
	/* an engine key that does not parse is no memory key */
	const char *e = "drm-driver: i915\ndrm-engine-render: 12 ms\n";
	assert_int_equal(drm_fdinfo_parse(e, strlen(e), &fi), 0);
	assert_int_equal(fi.n_bad, 1);
	assert_int_equal(fi.n_bad_memory, 0);
	assert_int_equal(fi.n_regions, 0);
}

static void test_both_resident_and_legacy(void **state)
{
	(void)state;
	/* amdgpu 6.11+ prints drm-resident-* beside the legacy drm-memory-*: resident wins */
	const char *t = "drm-driver:\tamdgpu\ndrm-client-id:\t3\ndrm-memory-vram:\t100 KiB\n"
			"drm-resident-vram:\t200 KiB\ndrm-shared-vram:\t0\n";
	struct drm_fdinfo fi;
	uint64_t b;
	assert_int_equal(drm_fdinfo_parse(t, strlen(t), &fi), 0);
	assert_true(drm_region_resident(&fi.regions[0], &b));
	assert_int_equal(b, 200 * KIB);
}

static void test_classes(void **state)
{
	(void)state;
	assert_int_equal(drm_region_class("amdgpu", "vram"), DRM_MEM_VRAM);
	assert_int_equal(drm_region_class("amdgpu", "gtt"), DRM_MEM_GTT);
	assert_int_equal(drm_region_class("amdgpu", "cpu"), DRM_MEM_IGNORE);
	assert_int_equal(drm_region_class("i915", "local0"), DRM_MEM_VRAM);
	assert_int_equal(drm_region_class("i915", "system0"), DRM_MEM_GTT);
	assert_int_equal(drm_region_class("i915", "stolen-system0"), DRM_MEM_VRAM);
	assert_int_equal(drm_region_class("xe", "vram1"), DRM_MEM_VRAM);
	assert_int_equal(drm_region_class("xe", "system"), DRM_MEM_IGNORE);
	assert_int_equal(drm_region_class("xe", "gtt"), DRM_MEM_GTT);
	assert_int_equal(drm_region_class("panthor", "memory"), DRM_MEM_GTT);
	assert_int_equal(drm_region_class("foo", "bar"), DRM_MEM_IGNORE);
	assert_int_equal(drm_engine_class("amdgpu", "dma", false), DRM_ENG_COPY);
	assert_int_equal(drm_engine_class("amdgpu", "enc", false), DRM_ENG_ENC);
	assert_int_equal(drm_engine_class("amdgpu", "dec", false), DRM_ENG_DEC);
	/* VCN 4+: one ring, so its time is video, not split */
	assert_int_equal(drm_engine_class("amdgpu", "enc", true), DRM_ENG_VIDEO);
	assert_int_equal(drm_engine_class("amdgpu", "dec", true), DRM_ENG_VIDEO);
	assert_int_equal(drm_engine_class("xe", "ccs", false), DRM_ENG_COMPUTE);
	assert_int_equal(drm_engine_class("xe", "vecs", false), DRM_ENG_VIDEO);
	assert_int_equal(drm_engine_class("i915", "render", false), DRM_ENG_GFX);
	assert_int_equal(drm_engine_class("xe", "other", false), DRM_ENG_OTHER);
	assert_true(drm_driver_omits_idle_engines("amdgpu"));
	assert_false(drm_driver_omits_idle_engines("xe"));
}

/* The other text the DRM source reads: sysfs and KFD files. */
static void test_sysfs_parsers(void **state)
{
	(void)state;
	double cur = -1, max = -1;
	bool has_cur;
	const char *dpm = "0: 500Mhz\n1: 1800Mhz *\n2: 2500Mhz\n";
	assert_true(amdgpu_dpm_parse(dpm, strlen(dpm), &cur, &has_cur, &max));
	assert_true(has_cur);
	assert_float_equal(cur, 1800, 0);
	assert_float_equal(max, 2500, 0);
	/* APU deep sleep level "S:", no current level marked */
	const char *apu = "S: 19Mhz\n0: 400Mhz\n1: 2700MHz\n";
	assert_true(amdgpu_dpm_parse(apu, strlen(apu), &cur, &has_cur, &max));
	assert_false(has_cur);
	assert_float_equal(max, 2700, 0);
	assert_false(amdgpu_dpm_parse("garbage\n", 8, &cur, &has_cur, &max));

	assert_int_equal(pcie_gen_of_speed("2.5 GT/s PCIe"), 1);
	assert_int_equal(pcie_gen_of_speed("16.0 GT/s PCIe"), 4);
	assert_int_equal(pcie_gen_of_speed("32.0 GT/s PCIe"), 5);
	assert_int_equal(pcie_gen_of_speed("Unknown"), 0);

	assert_false(amdgpu_is_apu(false, "", true, 8ull << 30)); /* no vendor file: the size decides */
	assert_true(amdgpu_is_apu(false, "", true, 512ull << 20));
	assert_true(amdgpu_is_apu(true, "", true, 8ull << 30));  /* empty vendor */
	assert_true(amdgpu_is_apu(true, "samsung", true, 512ull << 20)); /* a carve-out */
	assert_false(amdgpu_is_apu(true, "hynix", true, 8ull << 30));

	char slot[32];
	const char *props = "cpu_cores_count 0\nlocation_id 33544\ndomain 1\n";
	assert_true(kfd_properties_slot(props, strlen(props), slot, sizeof slot));
	assert_string_equal(slot, "0001:83:01.0");
	assert_false(kfd_properties_slot("domain 0\n", 9, slot, sizeof slot));

	struct drm_uevent ue;
	const char *ev = "DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_ID=1002:744C\nPCI_SLOT_NAME=0000:03:00.0";
	drm_uevent_parse(ev, strlen(ev), &ue);
	assert_string_equal(ue.driver, "amdgpu");
	assert_string_equal(ue.pci_slot, "0000:03:00.0");
	assert_true(ue.has_pci_id);
	assert_int_equal(ue.vendor_id, 0x1002);
	assert_int_equal(ue.device_id, 0x744c);
	drm_uevent_parse("PCI_ID=zz:1\n", 12, &ue);
	assert_false(ue.has_pci_id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amdgpu_legacy_capture),
		cmocka_unit_test(test_amdgpu_rocm_capture),
		cmocka_unit_test(test_amdgpu_apu_partial_capture),
		cmocka_unit_test(test_i915_captures),
		cmocka_unit_test(test_xe_captures),
		cmocka_unit_test(test_values_and_units),
		cmocka_unit_test(test_hostile_lines),
		cmocka_unit_test(test_unparseable_memory_marks_region),
		cmocka_unit_test(test_both_resident_and_legacy),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_sysfs_parsers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
