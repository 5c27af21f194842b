/* The WDDM adapters and their telemetry (src/platform/windows/wddm_*.c)
 * under Wine, against the test doubles: dxgi.dll, nvml.dll (the project's
 * NVML double built for Windows) and atiadlxx.dll, each copied where
 * gputaskman looks for it (System32, NVIDIA's NVSMI folder) or deliberately
 * elsewhere (the current folder), and the D3DKMT entry points through
 * wddm_d3dkmt_override. Run by wine_adapters.sh in a Wine prefix of its own
 * (this test writes into System32), with WINEDLLOVERRIDES=dxgi=n so Wine
 * loads the double instead of its own dxgi.dll. GTM_DOUBLES names the
 * doubles' folder (a Windows path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "wddm_adapters.h"
#include "wddm_d3dkmt.h"

/* ---- files in the places gputaskman looks ---- */

enum place { SYSTEM32, NVSMI, CURRENT_FOLDER };

static void place_path(enum place where, const char *name, char *out, size_t cap)
{
	char dir[MAX_PATH];
	if (where == SYSTEM32)
		GetSystemDirectoryA(dir, sizeof dir);
	else if (where == NVSMI)
		snprintf(dir, sizeof dir, "%s\\NVIDIA Corporation\\NVSMI", getenv("ProgramW6432"));
	else
		GetCurrentDirectoryA(sizeof dir, dir);
	snprintf(out, cap, "%s\\%s", dir, name);
}

/* Puts the double NAME at where (present) or removes it from there. */
static void put_double(const char *name, enum place where, bool present)
{
	char src[MAX_PATH], dst[MAX_PATH];
	place_path(where, name, dst, sizeof dst);
	if (!present) {
		DeleteFileA(dst);
		return;
	}
	if (where == NVSMI) {
		char dir[MAX_PATH];
		snprintf(dir, sizeof dir, "%s\\NVIDIA Corporation", getenv("ProgramW6432"));
		CreateDirectoryA(dir, NULL);
		strcat(dir, "\\NVSMI");
		CreateDirectoryA(dir, NULL);
	}
	snprintf(src, sizeof src, "%s\\%s", getenv("GTM_DOUBLES"), name);
	assert_true(CopyFileA(src, dst, FALSE));
}

static void write_scenario(const char *var, const char *file, const char *text)
{
	char env[128];
	if (!text) {
		snprintf(env, sizeof env, "%s=", var);
		_putenv(env);
		return;
	}
	FILE *f = fopen(file, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(env, sizeof env, "%s=%s", var, file);
	_putenv(env);
}

/* ---- the D3DKMT seam: LUID → PCI location ---- */

struct kmt_row {
	wddm_luid luid;
	UINT bus, dev, fn;
};
static struct kmt_row kmt_table[8];
static int kmt_n, kmt_open_count;

static LONG APIENTRY kmt_open(struct wddm_kmt_open_from_luid *o)
{
	wddm_luid l = (uint64_t)(uint32_t)o->AdapterLuid.HighPart << 32 | o->AdapterLuid.LowPart;
	for (int i = 0; i < kmt_n; i++)
		if (kmt_table[i].luid == l) {
			o->hAdapter = (UINT)i + 1;
			kmt_open_count++;
			return 0;
		}
	return (LONG)0xC000000Du; /* STATUS_INVALID_PARAMETER */
}

static LONG APIENTRY kmt_query(const struct wddm_kmt_query_info *q)
{
	if (q->Type != WDDM_KMTQAITYPE_ADAPTERADDRESS || q->PrivateDriverDataSize != sizeof(struct wddm_kmt_adapter_address) ||
	    q->hAdapter < 1 || (int)q->hAdapter > kmt_n)
		return (LONG)0xC000000Du;
	struct wddm_kmt_adapter_address *a = q->pPrivateDriverData;
	a->BusNumber = kmt_table[q->hAdapter - 1].bus;
	a->DeviceNumber = kmt_table[q->hAdapter - 1].dev;
	a->FunctionNumber = kmt_table[q->hAdapter - 1].fn;
	return 0;
}

static LONG APIENTRY kmt_close(const struct wddm_kmt_close *c)
{
	(void)c;
	kmt_open_count--;
	return 0;
}

static void kmt_map(wddm_luid luid, UINT bus, UINT dev, UINT fn)
{
	kmt_table[kmt_n++] = (struct kmt_row){luid, bus, dev, fn};
}

static int reset(void **state)
{
	(void)state;
	kmt_n = kmt_open_count = 0;
	struct wddm_d3dkmt_api api = {kmt_open, kmt_query, kmt_close};
	wddm_d3dkmt_override(&api);
	put_double("nvml.dll", SYSTEM32, false);
	put_double("nvml.dll", NVSMI, false);
	put_double("nvml.dll", CURRENT_FOLDER, false);
	put_double("atiadlxx.dll", SYSTEM32, false);
	write_scenario("GTM_FAKE_NVML_SCENARIO", "nvml.txt", NULL);
	write_scenario("GTM_FAKE_ADL_SCENARIO", "adl.txt", NULL);
	return 0;
}

/* ---- helpers over the code under test ---- */

static struct wddm_luids last_skipped; /* the software adapters' LUIDs of the last listing */

static int list(struct wddm_adapter *a, char *why, size_t cap)
{
	int n = wddm_adapters_list(a, WDDM_MAX_ADAPTERS, &last_skipped, why, cap);
	assert_int_equal(kmt_open_count, 0); /* every opened adapter closed */
	HMODULE dxgi = GetModuleHandleA("dxgi.dll");
	if (dxgi) {
		LONG (*live)(void) = (LONG(*)(void))(void *)GetProcAddress(dxgi, "fake_dxgi_live_objects");
		assert_non_null(live); /* the double, not Wine's own dxgi.dll */
		assert_int_equal(live(), 0); /* factory and adapters released */
	}
	return n;
}

/* Telemetry for a[i] into a device whose every reading starts N/A. */
static void fill(struct wddm_telemetry *t, const struct wddm_adapter *a, struct gtm_device *d)
{
	memset(d, 0, sizeof *d); /* GTM_UNAVAILABLE is 0: all N/A */
	wddm_telemetry_fill(t, a, d);
}

#define assert_reading(r, val) \
	do { \
		assert_true(gtm_f64_ok(r)); \
		assert_true((r).v > (val) - 1e-6 && (r).v < (val) + 1e-6); \
	} while (0)

static void assert_no_readings(const struct gtm_device *d)
{
	const gtm_f64 *rs[] = {&d->temp_c, &d->power_w, &d->power_limit_w, &d->fan_pct, &d->util_gpu_pct,
			       &d->clock_sm_mhz, &d->clock_mem_mhz, &d->pcie_gen, &d->pcie_width};
	for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
		assert_false(gtm_f64_ok(*rs[i]));
	assert_string_equal(d->uuid, "");
	assert_string_equal(d->driver_version, "");
}

/* ---- scenarios ---- */

static const char geforce_dxgi[] =
	"adapter name=\"NVIDIA GeForce RTX 4090\" vendor=0x10de device=0x2684 subsys=0x16f310de rev=0xa1"
	" dedicated=25393692672 shared=34325135360 luid=0x00000000_0x0000A18D\n";

/* A GeForce under WDDM: NVML withholds per-process memory (mem=na), the
 * device readings are all there. */
static const char geforce_nvml[] =
	"driver 551.23\ncuda 12.4\n"
	"device name=\"NVIDIA GeForce RTX 4090\" uuid=GPU-4090-0001 bus=00000000:01:00.0 pci_device_id=0x268410de"
	" driver_model=0 mem_total=25757220864 mem_used=1073741824 util_gpu=37 util_mem=12 temp=61 power_mw=215000"
	" power_limit_mw=450000 fan=42 clock_sm=2520 clock_mem=10501 clock_sm_max=3105 pcie_gen=4 pcie_width=16"
	" pcie_tx_kbs=1000 pcie_rx_kbs=2000 enc=5 dec=7\n"
	"process dev=0 pid=4242 list=graphics mem=na\n";

static void geforce_setup(void)
{
	write_scenario("GTM_FAKE_DXGI_SCENARIO", "dxgi.txt", geforce_dxgi);
	kmt_map(0xA18D, 1, 0, 0);
}

static void test_geforce_wddm(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256], text[1024];
	struct gtm_device d;

	geforce_setup();
	write_scenario("GTM_FAKE_NVML_SCENARIO", "nvml.txt", geforce_nvml);
	put_double("nvml.dll", SYSTEM32, true);
	assert_int_equal(list(a, why, sizeof why), 1);
	assert_string_equal(why, "");
	assert_string_equal(a[0].name, "NVIDIA GeForce RTX 4090");
	assert_int_equal(a[0].vendor_id, 0x10de);
	assert_int_equal(a[0].device_id, 0x2684);
	assert_int_equal(a[0].subsys_id, 0x16f310de);
	assert_int_equal(a[0].revision, 0xa1);
	assert_true(a[0].dedicated_video == 25393692672ull && a[0].shared_system == 34325135360ull);
	assert_true(a[0].luid == 0xA18D);
	assert_true(a[0].has_pci && a[0].pci_bus == 1 && a[0].pci_dev == 0 && a[0].pci_fn == 0);

	struct wddm_telemetry *t = wddm_telemetry_open();
	fill(t, &a[0], &d);
	assert_reading(d.temp_c, 61);
	assert_reading(d.power_w, 215);
	assert_reading(d.power_limit_w, 450);
	assert_reading(d.fan_pct, 42);
	assert_reading(d.util_gpu_pct, 37);
	assert_reading(d.util_mem_pct, 12);
	assert_reading(d.clock_sm_mhz, 2520);
	assert_reading(d.clock_mem_mhz, 10501);
	assert_reading(d.clock_sm_max_mhz, 3105);
	assert_reading(d.pcie_gen, 4);
	assert_reading(d.pcie_width, 16);
	assert_reading(d.pcie_tx_bps, 1024000);
	assert_reading(d.enc_pct, 5);
	assert_false(gtm_f64_ok(d.clock_video_mhz)); /* not in the scenario: N/A, not 0 */
	assert_false(gtm_u64_ok(d.mem_total));       /* memory is DXGI's and PDH's, not NVML's */
	assert_string_equal(d.name, "");
	assert_string_equal(d.uuid, "GPU-4090-0001");
	assert_string_equal(d.pci_bus_id, "0000:01:00.0");
	assert_string_equal(d.driver_version, "551.23");
	assert_string_equal(d.cuda_version, "12.4");
	assert_string_equal(d.driver, "WDDM");
	wddm_telemetry_describe(t, text, sizeof text);
	assert_non_null(strstr(text, "nvml: driver 551.23, CUDA 12.4, 1 device with a PCI location ("));
	assert_non_null(strstr(text, "system32\\nvml.dll)"));
	assert_non_null(strstr(text, "\nadl: no AMD driver: "));
	wddm_telemetry_explain(t, &a[0], text, sizeof text);
	assert_string_equal(text, "nvml: matched by PCI location");
	wddm_telemetry_close(t);
}

static const char amd_adl[] =
	"adapter index=0 bus=3 dev=0 fn=0 name=\"AMD Radeon RX 7900 XTX\"\n"
	"adapter index=1 bus=3 dev=0 fn=0 name=\"AMD Radeon RX 7900 XTX\"\n" /* the same GPU, another logical index */
	"adapter index=2 bus=-1 dev=-1 fn=-1\n"                             /* no location: skipped */
	"sensor adapter=0 id=1 value=2482\n"  /* CLK_GFXCLK */
	"sensor adapter=0 id=2 value=1249\n"  /* CLK_MEMCLK */
	"sensor adapter=0 id=8 value=54\n"    /* TEMPERATURE_EDGE */
	"sensor adapter=0 id=27 value=71\n"   /* TEMPERATURE_HOTSPOT: not the edge temperature */
	"sensor adapter=0 id=15 value=33\n"   /* FAN_PERCENTAGE */
	"sensor adapter=0 id=19 value=88\n"   /* INFO_ACTIVITY_GFX */
	"sensor adapter=0 id=23 value=280\n"  /* ASIC_POWER */
	"sensor adapter=0 id=73 value=301\n"  /* BOARD_POWER: preferred */
	"sensor adapter=0 id=41 value=16\n";  /* BUS_LANES */

static void test_amd_adl(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256], text[1024], sys_adl[MAX_PATH];
	struct gtm_device d;

	write_scenario("GTM_FAKE_DXGI_SCENARIO", "dxgi.txt",
		       "adapter name=\"AMD Radeon\xe2\x84\xa2 RX 7900 XTX\" vendor=0x1002 device=0x744c dedicated=25753026560"
		       " luid=0x00000000_0x0000B2C4\n");
	kmt_map(0xB2C4, 3, 0, 0);
	write_scenario("GTM_FAKE_ADL_SCENARIO", "adl.txt", amd_adl);
	put_double("atiadlxx.dll", SYSTEM32, true);
	place_path(SYSTEM32, "atiadlxx.dll", sys_adl, sizeof sys_adl);
	HMODULE held = LoadLibraryA(sys_adl); /* kept loaded to ask it afterwards */
	int (*open_sessions)(void) = (int (*)(void))(void *)GetProcAddress(held, "fake_adl_open_sessions");
	assert_non_null(open_sessions);

	assert_int_equal(list(a, why, sizeof why), 1);
	assert_string_equal(a[0].name, "AMD Radeon\xe2\x84\xa2 RX 7900 XTX"); /* UTF-16 → UTF-8 */
	struct wddm_telemetry *t = wddm_telemetry_open();
	fill(t, &a[0], &d);
	assert_reading(d.clock_sm_mhz, 2482);
	assert_reading(d.clock_mem_mhz, 1249);
	assert_reading(d.temp_c, 54);
	assert_reading(d.fan_pct, 33);
	assert_reading(d.util_gpu_pct, 88);
	assert_reading(d.power_w, 301);
	assert_reading(d.pcie_width, 16);
	assert_false(gtm_f64_ok(d.power_limit_w));
	assert_false(gtm_f64_ok(d.util_mem_pct)); /* INFO_ACTIVITY_MEM not supported: N/A */
	assert_string_equal(d.pci_bus_id, "0000:03:00.0");
	wddm_telemetry_describe(t, text, sizeof text);
	assert_non_null(strstr(text, "\nadl: 1 GPU, 1 with PMLog sensors ("));
	assert_non_null(strstr(text, "nvml: no NVIDIA driver: "));
	wddm_telemetry_explain(t, &a[0], text, sizeof text);
	assert_string_equal(text, "adl: matched by PCI location");
	assert_true(open_sessions() > 0);
	wddm_telemetry_close(t);
	assert_int_equal(open_sessions(), 0); /* PMLog stopped, devices and context destroyed */
	FreeLibrary(held);
}

/* Two AMD cards, the second without PMLog (an older generation, read through
 * Overdrive5): each gets only what ADL says of it, never the other's. */
static void test_two_amd_cards(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256], text[512];
	struct gtm_device d;

	write_scenario("GTM_FAKE_DXGI_SCENARIO", "dxgi.txt",
		       "adapter name=\"AMD Radeon RX 6400\" vendor=0x1002 device=0x743f dedicated=4278190080"
		       " luid=0x00000000_0x0000C001\n"
		       "adapter name=\"AMD Radeon RX 7900 XTX\" vendor=0x1002 device=0x744c dedicated=25753026560"
		       " luid=0x00000000_0x0000B2C4\n");
	kmt_map(0xB2C4, 3, 0, 0);
	kmt_map(0xC001, 0x0a, 0, 0);
	write_scenario("GTM_FAKE_ADL_SCENARIO", "adl.txt",
		       "adapter index=0 bus=3 dev=0 fn=0\n"
		       "adapter index=5 bus=10 dev=0 fn=0 pmlog=0\n"
		       "sensor adapter=0 id=8 value=54\n"
		       "sensor adapter=5 id=8 value=99\n" /* listed, but its PMLog is not supported */
		       "od5 adapter=5 activity=63 reporting=1 engine_clock=203900 memory_clock=87500 lanes=4"
		       " temp_mc=47500 fan_pct=29\n");
	put_double("atiadlxx.dll", SYSTEM32, true);
	assert_int_equal(list(a, why, sizeof why), 2);
	assert_string_equal(a[0].name, "AMD Radeon RX 7900 XTX"); /* the larger first */
	struct wddm_telemetry *t = wddm_telemetry_open();
	fill(t, &a[0], &d);
	assert_reading(d.temp_c, 54);
	assert_false(gtm_f64_ok(d.util_gpu_pct)); /* nothing from the other card's Overdrive5 */
	fill(t, &a[1], &d);
	assert_reading(d.temp_c, 47.5); /* millidegrees, not PMLog's 99 */
	assert_reading(d.util_gpu_pct, 63);
	assert_reading(d.clock_sm_mhz, 2039); /* 10 kHz units */
	assert_reading(d.clock_mem_mhz, 875);
	assert_reading(d.pcie_width, 4);
	assert_reading(d.fan_pct, 29);
	assert_false(gtm_f64_ok(d.power_w)); /* Overdrive5 has no power reading */
	assert_string_equal(d.pci_bus_id, "0000:0a:00.0");
	wddm_telemetry_explain(t, &a[1], text, sizeof text);
	assert_string_equal(text, "adl: matched by PCI location; no Overdrive8 PMLog on this GPU: Overdrive5 readings");
	wddm_telemetry_describe(t, text, sizeof text);
	assert_non_null(strstr(text, "adl: 2 GPUs, 1 with PMLog sensors"));
	wddm_telemetry_close(t);
}

/* An Intel iGPU next to a discrete NVIDIA card, and the software adapters
 * DXGI also lists (WARP flagged, Basic Render by its ids only). */
static void test_igpu_and_discrete(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256], text[512], luid[24];
	struct gtm_device d;

	write_scenario("GTM_FAKE_DXGI_SCENARIO", "dxgi.txt",
		       "adapter name=\"Intel(R) UHD Graphics 770\" vendor=0x8086 device=0x4680 dedicated=134217728"
		       " shared=17052663808 luid=0x00000000_0x00011111\n"
		       "adapter name=\"NVIDIA GeForce RTX 4070\" vendor=0x10de device=0x2786 dedicated=12557746176"
		       " luid=0x00000001_0x00022222\n"
		       "adapter name=\"Microsoft Basic Render Driver\" vendor=0x1414 device=0x008c shared=8589934592"
		       " luid=0x00000000_0x00033333 software\n"
		       "adapter name=\"Microsoft Basic Render Driver\" vendor=0x1414 device=0x008c luid=0x00000000_0x00044444\n");
	kmt_map(0x11111, 0, 2, 0);
	kmt_map(0x100022222ull, 1, 0, 0);
	write_scenario("GTM_FAKE_NVML_SCENARIO", "nvml.txt",
		       "device name=\"NVIDIA GeForce RTX 4070\" bus=00000000:01:00.0 pci_device_id=0x278610de temp=50\n");
	put_double("nvml.dll", SYSTEM32, true);

	assert_int_equal(list(a, why, sizeof why), 2);
	assert_string_equal(a[0].name, "NVIDIA GeForce RTX 4070"); /* NVIDIA first though DXGI lists it second */
	assert_true(a[0].luid == 0x100022222ull && a[0].has_pci && a[0].pci_bus == 1);
	wddm_luid_format(a[0].luid, luid, sizeof luid);
	assert_string_equal(luid, "0x00000001_0x00022222");
	assert_string_equal(a[1].name, "Intel(R) UHD Graphics 770");
	assert_true(a[1].luid == 0x11111 && a[1].has_pci && a[1].pci_bus == 0 && a[1].pci_dev == 2 && a[1].pci_fn == 0);
	assert_true(a[1].shared_system == 17052663808ull);
	/* the software adapters' LUIDs are kept apart: PDH counts them, and they are no new adapter */
	assert_int_equal(last_skipped.n, 2);
	assert_true(last_skipped.v[0] == 0x33333 && last_skipped.v[1] == 0x44444);

	struct wddm_telemetry *t = wddm_telemetry_open();
	fill(t, &a[0], &d);
	assert_reading(d.temp_c, 50);
	fill(t, &a[1], &d); /* no provider measures Intel cards: nothing borrowed from the NVIDIA one */
	assert_no_readings(&d);
	wddm_telemetry_explain(t, &a[1], text, sizeof text);
	assert_string_equal(text, "");
	wddm_telemetry_close(t);
}

/* D3DKMTQueryAdapterInfo missing: no PCI location, so no telemetry. */
static void test_missing_d3dkmt_entry(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256], text[512];
	struct gtm_device d;

	geforce_setup();
	struct wddm_d3dkmt_api api = {kmt_open, NULL, kmt_close};
	wddm_d3dkmt_override(&api);
	write_scenario("GTM_FAKE_NVML_SCENARIO", "nvml.txt", geforce_nvml);
	put_double("nvml.dll", SYSTEM32, true);
	assert_int_equal(list(a, why, sizeof why), 1);
	assert_false(a[0].has_pci);
	assert_non_null(strstr(why, "D3DKMTQueryAdapterInfo is not exported"));
	struct wddm_telemetry *t = wddm_telemetry_open();
	fill(t, &a[0], &d);
	assert_no_readings(&d);
	wddm_telemetry_explain(t, &a[0], text, sizeof text);
	assert_string_equal(text, "nvml: the adapter's PCI location is unknown");
	wddm_telemetry_close(t);
}

/* Wine's own gdi32: an adapter it does not know gets no location, cleanly. */
static void test_wine_d3dkmt(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256];

	geforce_setup();
	wddm_d3dkmt_override(NULL);
	assert_int_equal(list(a, why, sizeof why), 1);
	assert_false(a[0].has_pci);
	assert_non_null(strstr(why, "no PCI location for NVIDIA GeForce RTX 4090: D3DKMT"));
}

/* NVML's only device elsewhere, or at the location but another card. */
static void test_nvml_not_at_location(void **state)
{
	(void)state;
	static const char *const scenarios[][2] = {
		{"device bus=00000000:02:00.0 pci_device_id=0x268410de temp=61\n", "nvml: no device at the adapter's PCI location"},
		{"device bus=00000000:01:00.0 pci_device_id=0x233010de temp=61\n",
		 "nvml: the device at the adapter's PCI location has other PCI ids"},
		{"device bus=00000001:01:00.0 pci_device_id=0x268410de temp=61\n", /* another PCI domain */
		 "nvml: no device at the adapter's PCI location"},
	};
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256], text[512];
	struct gtm_device d;

	geforce_setup();
	put_double("nvml.dll", SYSTEM32, true);
	assert_int_equal(list(a, why, sizeof why), 1);
	for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
		write_scenario("GTM_FAKE_NVML_SCENARIO", i % 2 ? "nvml-b.txt" : "nvml-a.txt", scenarios[i][0]);
		struct wddm_telemetry *t = wddm_telemetry_open();
		fill(t, &a[0], &d);
		assert_no_readings(&d);
		wddm_telemetry_explain(t, &a[0], text, sizeof text);
		assert_string_equal(text, scenarios[i][1]);
		wddm_telemetry_close(t);
	}
}

/* No nvml.dll where NVIDIA installs it; one in the current folder (also on
 * PATH) must not be taken instead. */
static void test_nvml_absent_or_only_in_current_folder(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256], text[1024], path[4096], cwd[MAX_PATH];
	struct gtm_device d;

	geforce_setup();
	write_scenario("GTM_FAKE_NVML_SCENARIO", "nvml.txt", geforce_nvml);
	assert_int_equal(list(a, why, sizeof why), 1);
	for (int round = 0; round < 2; round++) {
		if (round == 1) {
			put_double("nvml.dll", CURRENT_FOLDER, true);
			GetCurrentDirectoryA(sizeof cwd, cwd);
			snprintf(path, sizeof path, "PATH=%s;%s", cwd, getenv("PATH"));
			_putenv(path);
		}
		struct wddm_telemetry *t = wddm_telemetry_open();
		fill(t, &a[0], &d);
		assert_no_readings(&d);
		wddm_telemetry_describe(t, text, sizeof text);
		assert_non_null(strstr(text, "nvml: no NVIDIA driver: neither "));
		assert_non_null(strstr(text, "system32\\nvml.dll nor "));
		assert_non_null(strstr(text, "NVIDIA Corporation\\NVSMI\\nvml.dll loads"));
		wddm_telemetry_explain(t, &a[0], text, sizeof text);
		assert_non_null(strstr(text, "nvml: no NVIDIA driver"));
		wddm_telemetry_close(t);
	}
}

/* A standard (non-DCH) driver: nvml.dll in NVSMI only; an MCDM card. */
static void test_nvml_from_nvsmi(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256], text[1024];
	struct gtm_device d;

	geforce_setup();
	write_scenario("GTM_FAKE_NVML_SCENARIO", "nvml.txt",
		       "device bus=00000000:01:00.0 pci_device_id=0x268410de driver_model=2 temp=44\n");
	put_double("nvml.dll", NVSMI, true);
	assert_int_equal(list(a, why, sizeof why), 1);
	struct wddm_telemetry *t = wddm_telemetry_open();
	fill(t, &a[0], &d);
	assert_reading(d.temp_c, 44);
	assert_string_equal(d.driver, "MCDM");
	wddm_telemetry_describe(t, text, sizeof text);
	assert_non_null(strstr(text, "NVIDIA Corporation\\NVSMI\\nvml.dll)"));
	wddm_telemetry_close(t);
}

/* nvml.dll present but the driver does not answer (nvmlInit fails). */
static void test_nvml_init_fails(void **state)
{
	(void)state;
	char text[1024];

	put_double("nvml.dll", SYSTEM32, true);
	struct wddm_telemetry *t = wddm_telemetry_open();
	wddm_telemetry_describe(t, text, sizeof text);
	assert_non_null(strstr(text, "nvml: NVML could not start: NVIDIA driver not loaded"));
	wddm_telemetry_close(t);
}

/* Headless Wine's answer, and DXGI's failures. */
static void test_dxgi_unavailable(void **state)
{
	(void)state;
	struct wddm_adapter a[WDDM_MAX_ADAPTERS];
	char why[256];

	write_scenario("GTM_FAKE_DXGI_SCENARIO", "dxgi.txt", "fail create=0x887A0004\n");
	assert_int_equal(list(a, why, sizeof why), -1);
	assert_non_null(strstr(why, "CreateDXGIFactory1 failed (HRESULT 0x887A0004, DXGI_ERROR_UNSUPPORTED"));
	write_scenario("GTM_FAKE_DXGI_SCENARIO", "dxgi.txt", "");
	assert_int_equal(list(a, why, sizeof why), 0); /* DXGI works, lists no adapter */
}

int main(void)
{
	if (!getenv("GTM_DOUBLES")) {
		fprintf(stderr, "GTM_DOUBLES is not set: run through wine_adapters.sh\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_geforce_wddm, reset),
		cmocka_unit_test_setup(test_amd_adl, reset),
		cmocka_unit_test_setup(test_two_amd_cards, reset),
		cmocka_unit_test_setup(test_igpu_and_discrete, reset),
		cmocka_unit_test_setup(test_missing_d3dkmt_entry, reset),
		cmocka_unit_test_setup(test_wine_d3dkmt, reset),
		cmocka_unit_test_setup(test_nvml_not_at_location, reset),
		cmocka_unit_test_setup(test_nvml_absent_or_only_in_current_folder, reset),
		cmocka_unit_test_setup(test_nvml_from_nvsmi, reset),
		cmocka_unit_test_setup(test_nvml_init_fails, reset),
		cmocka_unit_test_setup(test_dxgi_unavailable, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
