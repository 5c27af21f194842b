/* The WDDM adapters' pure rules (src/sources/wddm/): which DXGI adapters are
 * listed and in which order, the PCI join of telemetry to adapters, and
 * ADL's PMLog sensors as readings. Built on Linux and, through
 * tests/windows, under Wine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sources/wddm/wddm_adl_sensors.h"
#include "sources/wddm/wddm_order.h"
#include "sources/wddm/wddm_pci_join.h"
#include "sources/wddm/wddm_relist.h"

static struct wddm_adapter adapter(const char *name, uint32_t vendor, uint64_t dedicated)
{
	struct wddm_adapter a;
	memset(&a, 0, sizeof a);
	strcpy(a.name, name);
	a.vendor_id = vendor;
	a.dedicated_video = dedicated;
	return a;
}

static void test_order(void **state)
{
	(void)state;
	struct wddm_adapter a[] = {
		adapter("intel", WDDM_VENDOR_INTEL, 128u << 20), adapter("amd", WDDM_VENDOR_AMD, 16ull << 30),
		adapter("nv-small", WDDM_VENDOR_NVIDIA, 8ull << 30), adapter("amd-2", WDDM_VENDOR_AMD, 16ull << 30),
		adapter("nv-big", WDDM_VENDOR_NVIDIA, 24ull << 30),
	};
	wddm_order_adapters(a, 5);
	const char *want[] = {"nv-big", "nv-small", "amd", "amd-2", "intel"}; /* equal memory: DXGI's order */
	for (int i = 0; i < 5; i++)
		assert_string_equal(a[i].name, want[i]);
	wddm_order_adapters(a, 0);
	wddm_order_adapters(a, 1);
	assert_string_equal(a[0].name, "nv-big");
}

static void test_software(void **state)
{
	(void)state;
	assert_true(wddm_adapter_is_software(0x1414, 0x008C, 0));              /* Basic Render by its ids */
	assert_true(wddm_adapter_is_software(0x10DE, 0x2684, WDDM_DXGI_FLAG_SOFTWARE)); /* the flag alone */
	assert_false(wddm_adapter_is_software(0x1414, 0x008D, 0));             /* another Microsoft device */
	assert_false(wddm_adapter_is_software(0x10DE, 0x2684, 1));             /* DXGI_ADAPTER_FLAG_REMOTE */
}

static void test_luid_format(void **state)
{
	(void)state;
	char out[24];
	wddm_luid_format(0x000000010000A18Dull, out, sizeof out);
	assert_string_equal(out, "0x00000001_0x0000A18D");
	wddm_luid_format(0xFFFFFFFFFFFFFFFFull, out, sizeof out);
	assert_string_equal(out, "0xFFFFFFFF_0xFFFFFFFF");
}

static struct wddm_adapter at(uint32_t vendor, uint32_t device, uint32_t bus, uint32_t dev, uint32_t fn)
{
	struct wddm_adapter a = adapter("a", vendor, 0);
	a.device_id = device;
	a.has_pci = true;
	a.pci_bus = bus;
	a.pci_dev = dev;
	a.pci_fn = fn;
	return a;
}

static void test_pci_match(void **state)
{
	(void)state;
	struct wddm_pci_cand c[] = {
		{.bus = 1, .dev = 0, .fn = 0, .has_ids = true, .vendor_id = 0x10DE, .device_id = 0x2684, .tag = 7},
		{.bus = 2, .dev = 0, .fn = 0, .has_ids = true, .vendor_id = 0x10DE, .device_id = 0x2786},
		{.domain = 1, .bus = 3, .dev = 0, .fn = 0}, /* another PCI domain: D3DKMT has none, never matched */
		{.bus = 4, .dev = 0, .fn = 0},
		{.bus = 4, .dev = 0, .fn = 0},
	};
	enum wddm_join why;
	struct wddm_adapter a = at(0x10DE, 0x2684, 1, 0, 0);
	assert_int_equal(wddm_pci_match(c, 5, &a, &why), 0);
	assert_int_equal(why, WDDM_JOIN_OK);
	a = at(0x10DE, 0x2786, 2, 0, 0);
	assert_int_equal(wddm_pci_match(c, 5, &a, &why), 1);
	a = at(0x10DE, 0x2684, 2, 0, 0); /* another card's ids at that location */
	assert_int_equal(wddm_pci_match(c, 5, &a, &why), -1);
	assert_int_equal(why, WDDM_JOIN_IDS_DIFFER);
	a = at(0x10DE, 0x2684, 1, 0, 1); /* the function counts */
	assert_int_equal(wddm_pci_match(c, 5, &a, &why), -1);
	assert_int_equal(why, WDDM_JOIN_NONE);
	a = at(0x1002, 0x744C, 3, 0, 0);
	assert_int_equal(wddm_pci_match(c, 5, &a, &why), -1);
	assert_int_equal(why, WDDM_JOIN_NONE);
	a = at(0x1002, 0x744C, 4, 0, 0); /* two at one place: neither is lent */
	assert_int_equal(wddm_pci_match(c, 5, &a, &why), -1);
	assert_int_equal(why, WDDM_JOIN_AMBIGUOUS);
	a = at(0x10DE, 0x2684, 1, 0, 0);
	a.has_pci = false; /* bus 0 dev 0 fn 0 must not be read as a location */
	assert_int_equal(wddm_pci_match(c, 5, &a, &why), -1);
	assert_int_equal(why, WDDM_JOIN_NO_PCI);
	assert_string_equal(wddm_join_name(WDDM_JOIN_NONE), "no device at the adapter's PCI location");
	assert_int_equal(wddm_pci_match(c, 0, &a, &why), -1);
}

static void test_pci_ids_from_nvml(void **state)
{
	(void)state;
	uint32_t v, d;
	wddm_pci_ids_from_nvml(0x268410DEu, &v, &d);
	assert_int_equal(v, 0x10DE);
	assert_int_equal(d, 0x2684);
}

static void test_dedupe(void **state)
{
	(void)state;
	struct wddm_pci_cand c[] = {
		{.bus = 3, .dev = 0, .fn = 0, .tag = 0}, {.bus = 3, .dev = 0, .fn = 0, .tag = 1},
		{.bus = -1, .dev = -1, .fn = -1, .tag = 2}, {.bus = 3, .dev = 0, .fn = 1, .tag = 3},
		{.bus = 10, .dev = 0, .fn = 0, .tag = 4}, {.bus = 3, .dev = 0, .fn = 0, .tag = 5},
	};
	assert_int_equal(wddm_pci_dedupe(c, 6), 3);
	assert_int_equal(c[0].tag, 0); /* the first logical index of a GPU is kept */
	assert_int_equal(c[1].tag, 3);
	assert_int_equal(c[2].tag, 4);
}

static void test_adl_sensors(void **state)
{
	(void)state;
	struct wddm_adl_sensor s[WDDM_ADL_PMLOG_MAX_SENSORS];
	struct gtm_device d;

	memset(s, 0, sizeof s);
	memset(&d, 0, sizeof d);
	s[1] = (struct wddm_adl_sensor){1, 2482};  /* CLK_GFXCLK */
	s[8] = (struct wddm_adl_sensor){1, 54};    /* TEMPERATURE_EDGE */
	s[27] = (struct wddm_adl_sensor){1, 71};   /* TEMPERATURE_HOTSPOT: not used */
	s[15] = (struct wddm_adl_sensor){1, 250};  /* FAN_PERCENTAGE, implausible: dropped */
	s[19] = (struct wddm_adl_sensor){0, 77};   /* INFO_ACTIVITY_GFX not supported: N/A whatever its value */
	s[23] = (struct wddm_adl_sensor){1, 280};  /* ASIC_POWER */
	s[73] = (struct wddm_adl_sensor){1, 301};  /* BOARD_POWER wins */
	s[41] = (struct wddm_adl_sensor){1, 0};    /* BUS_LANES 0: no link, N/A */
	wddm_adl_apply_sensors(s, WDDM_ADL_PMLOG_MAX_SENSORS, &d);
	assert_true(gtm_f64_ok(d.clock_sm_mhz) && d.clock_sm_mhz.v == 2482);
	assert_true(gtm_f64_ok(d.temp_c) && d.temp_c.v == 54);
	assert_false(gtm_f64_ok(d.fan_pct));
	assert_false(gtm_f64_ok(d.util_gpu_pct));
	assert_true(gtm_f64_ok(d.power_w) && d.power_w.v == 301);
	assert_false(gtm_f64_ok(d.pcie_width));
	assert_false(gtm_f64_ok(d.clock_mem_mhz));

	/* only ASIC power: that one; a short array reads no sensor past its end */
	memset(&d, 0, sizeof d);
	s[73].supported = 0;
	wddm_adl_apply_sensors(s, 24, &d);
	assert_true(gtm_f64_ok(d.power_w) && d.power_w.v == 280);
	assert_false(gtm_f64_ok(d.pcie_width));
}

static void test_adl_od5(void **state)
{
	(void)state;
	struct gtm_device d;
	struct wddm_adl_od5_sample s = {.has_activity = true, .activity_reported = false, .activity_pct = 0,
					.engine_clock_10khz = 203900, .memory_clock_10khz = 87500, .bus_lanes = 0,
					.has_temp = true, .temp_millic = 47500};

	memset(&d, 0, sizeof d);
	wddm_adl_apply_od5(&s, &d);
	assert_false(gtm_f64_ok(d.util_gpu_pct)); /* not reported: N/A, not the 0 in the struct */
	assert_true(gtm_f64_ok(d.clock_sm_mhz) && d.clock_sm_mhz.v == 2039);
	assert_true(gtm_f64_ok(d.clock_mem_mhz) && d.clock_mem_mhz.v == 875);
	assert_false(gtm_f64_ok(d.pcie_width));
	assert_true(gtm_f64_ok(d.temp_c) && d.temp_c.v == 47.5);
	assert_false(gtm_f64_ok(d.fan_pct));

	memset(&d, 0, sizeof d);
	s = (struct wddm_adl_od5_sample){.has_activity = true, .activity_reported = true, .activity_pct = 0, .bus_lanes = 16,
					 .has_fan_pct = true, .fan_pct = 30};
	wddm_adl_apply_od5(&s, &d);
	assert_true(gtm_f64_ok(d.util_gpu_pct) && d.util_gpu_pct.v == 0); /* reported: a measured idle */
	assert_true(gtm_f64_ok(d.pcie_width) && d.pcie_width.v == 16);
	assert_true(gtm_f64_ok(d.fan_pct) && d.fan_pct.v == 30);
	assert_false(gtm_f64_ok(d.temp_c));
}

/* After a driver restart PDH names new LUIDs: those no listed adapter has
 * and DXGI did not leave out (a software adapter) are unlisted, once each. */
static void test_unlisted_luids(void **state)
{
	(void)state;
	struct wddm_adapter a[2] = {{.luid = 0xA18D}, {.luid = 0x95CA}};
	struct wddm_luids soft = {.v = {0xC0DE}, .n = 1};
	const wddm_luid seen[] = {0xA18D, 0x1F00D, 0xC0DE, 0x1F00D, 0x95CA, 0x2BEEF};
	wddm_luid out[4];
	assert_int_equal(wddm_unlisted_luids(seen, 6, a, 2, &soft, out, 4), 2);
	assert_true(out[0] == 0x1F00D && out[1] == 0x2BEEF);
	/* without the software set, Basic Render's LUID is unlisted too */
	assert_int_equal(wddm_unlisted_luids(seen, 6, a, 2, NULL, out, 4), 3);
	assert_true(out[1] == 0xC0DE);
	assert_int_equal(wddm_unlisted_luids(seen, 6, a, 2, &soft, out, 1), 1);
	assert_int_equal(wddm_unlisted_luids(seen, 2, a, 2, &soft, out, 4), 1);
	assert_int_equal(wddm_unlisted_luids(seen, 1, a, 2, &soft, out, 4), 0);
	assert_int_equal(wddm_unlisted_luids(seen, 6, a, 0, NULL, out, 4), 4);
}

/* The first unlisted LUID asks DXGI at once; later ones wait out the
 * interval since the last asking, whatever the refresh rate. */
static void test_relist_due(void **state)
{
	(void)state;
	const uint64_t s = 1000000000ull, t0 = 5 * s;
	struct wddm_relist r = {0};
	assert_false(wddm_relist_due(&r, 0, t0));
	assert_false(r.asked); /* nothing unlisted: the clock is not started */
	assert_true(wddm_relist_due(&r, 1, t0));
	for (uint64_t t = t0; t < t0 + WDDM_RELIST_INTERVAL_NS; t += s / 2)
		assert_false(wddm_relist_due(&r, 1, t)); /* every half-second refresh of 10 s */
	assert_true(wddm_relist_due(&r, 2, t0 + WDDM_RELIST_INTERVAL_NS));
	assert_false(wddm_relist_due(&r, 2, t0 + WDDM_RELIST_INTERVAL_NS + s));
	assert_true(wddm_relist_due(&r, 1, t0 + 3 * WDDM_RELIST_INTERVAL_NS));
}

/* A LUID a listing that answered did not resolve (a compute-only adapter
 * PDH names and DXGI never lists) asks DXGI no more: only a LUID outside
 * the listed + unresolved set does, still at most every 10 s. */
static void test_relist_unresolved(void **state)
{
	(void)state;
	const uint64_t t0 = 5000000000ull, s = 1000000000ull;
	const wddm_luid x = 0xBEEF, y = 0xF00D;
	wddm_luid out[4], unlisted[2] = {x, y};
	struct wddm_relist r = {0};
	assert_int_equal(wddm_relist_unknown(&r, unlisted, 1, out), 1);
	assert_true(wddm_relist_due(&r, 1, t0));
	wddm_relist_remember(&r, unlisted, 1); /* DXGI answered without x */
	for (uint64_t t = t0 + s; t < t0 + 100 * s; t += s)
		assert_false(wddm_relist_due(&r, wddm_relist_unknown(&r, unlisted, 1, out), t));
	/* y appears: asked for it, not for x */
	assert_int_equal(wddm_relist_unknown(&r, unlisted, 2, out), 1);
	assert_int_equal(out[0], y);
	assert_true(wddm_relist_due(&r, 1, t0 + 100 * s));
	wddm_relist_remember(&r, unlisted, 2);
	assert_int_equal(wddm_relist_unknown(&r, unlisted, 2, out), 0);
	/* a later listing that resolved x: only y stays unresolved, x is asked about when unlisted again */
	wddm_relist_remember(&r, &unlisted[1], 1);
	assert_int_equal(wddm_relist_unknown(&r, unlisted, 2, out), 1);
	assert_int_equal(out[0], x);
}

static struct wddm_adapter card(const char *name, uint32_t vendor, uint32_t device, uint64_t dedicated,
				wddm_luid luid, int bus)
{
	struct wddm_adapter a = adapter(name, vendor, dedicated);
	a.device_id = device;
	a.luid = luid;
	a.has_pci = bus >= 0;
	a.pci_bus = bus >= 0 ? (uint32_t)bus : 0;
	return a;
}

/* A re-list keeps each card in its slot: --gpu N names the same card after
 * an eGPU is plugged in (it is appended) or while a driver update hides one
 * (it stays, marked gone); the fresh listing's LUIDs are taken. */
static void test_merge_adapters(void **state)
{
	(void)state;
	const struct wddm_adapter old[] = {
		card("NVIDIA GeForce RTX 4070", WDDM_VENDOR_NVIDIA, 0x2786, 12ull << 30, 0xA1, 1),
		card("AMD Radeon RX 7800 XT", WDDM_VENDOR_AMD, 0x747E, 16ull << 30, 0xB1, 3),
		card("Intel(R) UHD Graphics 770", WDDM_VENDOR_INTEL, 0x4680, 128u << 20, 0xC1, -1),
	};
	/* in --gpu order the 4090 comes first; the iGPU has no PCI location: matched by its model */
	const struct wddm_adapter fresh[] = {
		card("NVIDIA GeForce RTX 4090", WDDM_VENDOR_NVIDIA, 0x2684, 24ull << 30, 0xD2, 5),
		card("NVIDIA GeForce RTX 4070", WDDM_VENDOR_NVIDIA, 0x2786, 12ull << 30, 0xA2, 1),
		card("AMD Radeon RX 7800 XT (driver 24.1)", WDDM_VENDOR_AMD, 0x747E, 16ull << 30, 0xB2, 3),
		card("Intel(R) UHD Graphics 770", WDDM_VENDOR_INTEL, 0x4680, 128u << 20, 0xC2, -1),
	};
	struct wddm_adapter out[WDDM_MAX_ADAPTERS];
	struct wddm_merge m;
	assert_int_equal(wddm_merge_adapters(old, 3, fresh, 4, out, &m), 4);
	const wddm_luid want[] = {0xA2, 0xB2, 0xC2, 0xD2};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(out[i].luid, want[i]);
		assert_false(m.gone[i]);
	}
	assert_string_equal(out[1].name, "AMD Radeon RX 7800 XT (driver 24.1)"); /* the fresh description */
	assert_int_equal(m.n_added, 1);
	assert_int_equal(m.n_gone, 0);
	/* a listing without the 4070: it stays GPU 0 (its old LUID, gone), the others keep 1 and 2 */
	const struct wddm_adapter partial[] = {fresh[2], fresh[3]};
	assert_int_equal(wddm_merge_adapters(old, 3, partial, 2, out, &m), 3);
	assert_int_equal(out[0].luid, 0xA1);
	assert_true(m.gone[0]);
	assert_int_equal(out[1].luid, 0xB2);
	assert_int_equal(out[2].luid, 0xC2);
	assert_int_equal(m.n_gone, 1);
	assert_int_equal(m.n_added, 0);
}

/* Without PCI locations two cards of one model are told apart by nothing:
 * neither is matched (each stays gone, the fresh ones appended); two known
 * locations that differ are two cards, whatever the model. */
static void test_merge_ambiguous(void **state)
{
	(void)state;
	const struct wddm_adapter old[] = {
		card("Intel Arc A380", WDDM_VENDOR_INTEL, 0x56A5, 6ull << 30, 0x11, -1),
		card("Intel Arc A380", WDDM_VENDOR_INTEL, 0x56A5, 6ull << 30, 0x12, -1),
		card("NVIDIA GeForce RTX 4070", WDDM_VENDOR_NVIDIA, 0x2786, 12ull << 30, 0x13, 1),
	};
	const struct wddm_adapter fresh[] = {
		card("NVIDIA GeForce RTX 4070", WDDM_VENDOR_NVIDIA, 0x2786, 12ull << 30, 0x23, 2),
		card("Intel Arc A380", WDDM_VENDOR_INTEL, 0x56A5, 6ull << 30, 0x21, -1),
		card("Intel Arc A380", WDDM_VENDOR_INTEL, 0x56A5, 6ull << 30, 0x22, -1),
	};
	struct wddm_adapter out[WDDM_MAX_ADAPTERS];
	struct wddm_merge m;
	assert_int_equal(wddm_merge_adapters(old, 3, fresh, 3, out, &m), 6);
	assert_int_equal(m.n_gone, 3);
	assert_int_equal(m.n_added, 3);
	assert_int_equal(out[0].luid, 0x11);
	assert_int_equal(out[3].luid, 0x23); /* appended in --gpu order: NVIDIA first */
	/* no room: what does not fit is counted, never written past the array */
	struct wddm_adapter many[WDDM_MAX_ADAPTERS];
	for (int i = 0; i < WDDM_MAX_ADAPTERS; i++)
		many[i] = card("x", WDDM_VENDOR_AMD, 1, 1, (wddm_luid)(0x100 + i), 10 + i);
	assert_int_equal(wddm_merge_adapters(many, WDDM_MAX_ADAPTERS, old, 3, out, &m), WDDM_MAX_ADAPTERS);
	assert_int_equal(m.n_gone, WDDM_MAX_ADAPTERS);
	assert_int_equal(m.n_dropped, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),          cmocka_unit_test(test_software),
		cmocka_unit_test(test_luid_format),    cmocka_unit_test(test_pci_match),
		cmocka_unit_test(test_pci_ids_from_nvml), cmocka_unit_test(test_dedupe),
		cmocka_unit_test(test_adl_sensors),    cmocka_unit_test(test_adl_od5),
		cmocka_unit_test(test_unlisted_luids), cmocka_unit_test(test_relist_due),
		cmocka_unit_test(test_merge_adapters), cmocka_unit_test(test_merge_ambiguous),
		cmocka_unit_test(test_relist_unresolved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
