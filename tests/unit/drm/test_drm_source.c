/* The DRM source on fixture trees built at test time from the real captures:
 * a desktop with a compositor importing windows, an fd shared by two
 * processes, a HIP server, an APU beside a discrete card, an Intel xe client,
 * a legacy kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/devices_order.h"
#include "drm_case.h"
#include "drm_tree.h"
#include "sources/drm_attrib.h"
#include "testutil.h"

#define KIB 1024ull
#define GIB_ (1024ull * 1024 * 1024)

/* A capture, or this case skipped when ../shared/fixtures/drm is absent. */
static char *capture(const char *name)
{
	char *b = dt_capture(name);
	if (!b)
		skip();
	return b;
}

/* amdgpu 6.11+ keys (drm-resident/-shared beside the legacy drm-memory). */
static char *amd_body(const char *pdev, unsigned id, unsigned vram_kib, unsigned gtt_kib, unsigned shared_kib,
		      const char *engines)
{
	char *b = malloc(1024);
	snprintf(b, 1024,
		 "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t614\npasid:\t32784\n"
		 "drm-driver:\tamdgpu\ndrm-pdev:\t%s\ndrm-client-id:\t%u\n"
		 "drm-total-vram:\t%u KiB\ndrm-shared-vram:\t%u KiB\ndrm-resident-vram:\t%u KiB\n"
		 "drm-total-gtt:\t%u KiB\ndrm-shared-gtt:\t0\ndrm-resident-gtt:\t%u KiB\n"
		 "drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-resident-cpu:\t0\n"
		 "drm-memory-vram:\t%u KiB\ndrm-memory-gtt:\t%u KiB\ndrm-memory-cpu:\t0 KiB\n%s",
		 pdev, id, vram_kib, shared_kib, vram_kib, gtt_kib, gtt_kib, vram_kib, gtt_kib, engines);
	return b;
}

static void amd_discrete(const char *root, const char *slot, int card, uint16_t did, const char *vram_total)
{
	dt_device(root, card, 128 + card, slot, "amdgpu", 0x1002, did);
	dt_attr(root, slot, "mem_info_vram_total", vram_total);
	dt_attr(root, slot, "mem_info_vram_used", "1073741824\n");
	dt_attr(root, slot, "mem_info_gtt_total", "16777216000\n");
	dt_attr(root, slot, "mem_info_gtt_used", "104857600\n");
	dt_attr(root, slot, "mem_info_vram_vendor", "samsung\n");
}

static void test_desktop_compositor(void **state)
{
	(void)state;
	struct drm_case c;
	dc_begin(&c);
	const char *slot = "0000:03:00.0";
	amd_discrete(c.root, slot, 0, 0x744c, "25753026560\n");
	dt_attr(c.root, slot, "gpu_busy_percent", "37\n");
	dt_attr(c.root, slot, "mem_busy_percent", "5\n");
	dt_attr(c.root, slot, "pp_dpm_sclk", "0: 500Mhz\n1: 1200Mhz *\n2: 2500Mhz\n");
	dt_attr(c.root, slot, "pp_dpm_mclk", "0: 96Mhz\n1: 1249Mhz *\n");
	dt_attr(c.root, slot, "current_link_speed", "16.0 GT/s PCIe\n");
	dt_attr(c.root, slot, "current_link_width", "16\n");
	dt_attr(c.root, slot, "product_name", "\n");
	dt_attr(c.root, slot, "ip_discovery/die/0/UVD/0/major", "4\n");
	dt_attr(c.root, slot, "hwmon/hwmon3/temp1_input", "45000\n");
	dt_attr(c.root, slot, "hwmon/hwmon3/power1_average", "85000000\n");
	dt_attr(c.root, slot, "hwmon/hwmon3/power1_cap", "303000000\n");
	dt_attr(c.root, slot, "hwmon/hwmon3/pwm1", "51\n");

	char *comp = amd_body(slot, 10, 90000, 2000, 30000, "drm-engine-gfx:\t1000 ns\n");
	char *comp_kms = amd_body(slot, 11, 8100, 0, 0, "");
	char *term = amd_body(slot, 20, 20000, 100, 20000, "");
	char *game = amd_body(slot, 30, 3000000, 50000, 0, "drm-engine-gfx:\t5000 ns\n");
	dt_proc(c.root, 1000, 500, "kwin_wayland");
	dt_plain_fds(c.root, 1000, 0, 20);
	dt_fd(c.root, 1000, 20, "/dev/dri/renderD128", comp);
	dt_fd(c.root, 1000, 21, "/dev/dri/card0", comp_kms);
	dt_proc(c.root, 2000, 900, "konsole");
	dt_plain_fds(c.root, 2000, 0, 10);
	dt_fd(c.root, 2000, 12, "/dev/dri/renderD128", term);
	dt_proc(c.root, 3000, 1200, "game (x86)");
	dt_plain_fds(c.root, 3000, 0, 5);
	dt_fd(c.root, 3000, 40, "/dev/dri/renderD128", game);
	for (uint32_t p = 4000; p < 4020; p++) {
		dt_proc(c.root, p, p, "idle");
		dt_plain_fds(c.root, p, 0, 15);
	}

	assert_int_equal(dc_sample(&c, true, 0), 0);
	assert_int_equal(c.snap->n_devices, 1);
	const struct gtm_device *d = &c.snap->devices[0];
	assert_int_equal(d->vendor, GTM_VENDOR_AMD);
	assert_string_equal(d->source, "drm");
	assert_string_equal(d->name, "AMD Radeon RX 7900 XT/XTX (Navi 31)"); /* empty product_name: the table */
	assert_string_equal(d->pci_bus_id, slot);
	assert_false(d->is_apu);
	assert_int_equal(d->mem_total.v, 25753026560ull);
	assert_int_equal(d->mem_used.v, 1073741824ull);
	assert_int_equal(d->mem_free.v, 25753026560ull - 1073741824ull);
	assert_int_equal(d->shared_used.v, 104857600ull);
	assert_float_equal(d->util_gpu_pct.v, 37, 0);
	assert_float_equal(d->util_mem_pct.v, 5, 0);
	assert_float_equal(d->clock_sm_mhz.v, 1200, 0);
	assert_float_equal(d->clock_sm_max_mhz.v, 2500, 0);
	assert_float_equal(d->clock_mem_mhz.v, 1249, 0);
	assert_float_equal(d->pcie_gen.v, 4, 0);
	assert_float_equal(d->pcie_width.v, 16, 0);
	assert_float_equal(d->temp_c.v, 45, 1e-9);
	assert_float_equal(d->power_w.v, 85, 1e-9);
	assert_float_equal(d->power_limit_w.v, 303, 1e-9);
	assert_float_equal(d->fan_pct.v, 20, 1e-9);
	assert_int_equal(d->n_processes_seen, 3);

	/* the compositor imports windows: its VRAM is N/A, reason given */
	const struct gtm_raw_use *cu = dc_use(&c, 1000, 0), *tu = dc_use(&c, 2000, 0), *gu = dc_use(&c, 3000, 0);
	assert_non_null(cu);
	assert_int_equal(cu->start_time, 500);
	assert_false(gtm_u64_ok(cu->use.vram));
	assert_string_equal(cu->use.na_reason, DRM_NA_PRIMARY);
	assert_int_equal(cu->use.n_clients, 2);
	assert_int_equal(cu->use.ref_vram.v, (90000 + 8100) * KIB);
	assert_string_equal(tu->use.na_reason, DRM_NA_SHARED_BUFFERS);
	/* the game shares nothing and is charged */
	assert_int_equal(gu->use.vram.prov, GTM_MEASURED);
	assert_int_equal(gu->use.vram.v, 3000000 * KIB);
	assert_int_equal(gu->use.spill.v, 50000 * KIB);
	assert_false(gtm_f64_ok(gu->use.gfx_pct)); /* one sample: N/A */
	const struct gtm_raw_use *un = dc_use(&c, 0, 0);
	assert_non_null(un);
	assert_int_equal(un->use.vram.v, (90000 + 8100 + 20000) * KIB);
	assert_int_equal(un->use.n_clients, 3);
	assert_int_equal(c.uses.n, 4);

	/* second refresh: engine load appears */
	char *game2 = dc_replace(game, "drm-engine-gfx:\t5000 ns", "drm-engine-gfx:\t900005000 ns");
	dt_fd(c.root, 3000, 40, "/dev/dri/renderD128", game2);
	assert_int_equal(dc_sample(&c, true, 0), 0);
	gu = dc_use(&c, 3000, 0);
	assert_true(gtm_f64_ok(gu->use.gfx_pct));
	assert_true(gu->use.gfx_pct.v > 0 && gu->use.gfx_pct.v <= 100);
	assert_true(gtm_f64_ok(gu->use.video_pct)); /* VCN 4: video, idle = measured 0 */
	assert_false(gtm_f64_ok(gu->use.enc_pct));
	free(game2);
	free(comp);
	free(comp_kms);
	free(term);
	free(game);
	dc_end(&c);
}

static void test_fd_shared_by_fork(void **state)
{
	(void)state;
	struct drm_case c;
	char *body = capture("i915-lore-irogers-proc_pid_fdinfo5.txt");
	dc_begin(&c);
	const char *slot = "0000:00:02.0";
	dt_device(c.root, 1, 129, slot, "i915", 0x8086, 0xa780);
	dt_attr(c.root, slot, "../../../class/drm/card1/gt_cur_freq_mhz", "1300\n");
	dt_attr(c.root, slot, "../../../class/drm/card1/gt_max_freq_mhz", "2200\n");
	dt_proc(c.root, 500, 10, "mpv");
	dt_proc(c.root, 501, 11, "mpv helper");
	dt_plain_fds(c.root, 500, 0, 5);
	dt_fd(c.root, 500, 5, "/dev/dri/renderD129", body);
	dt_fd(c.root, 501, 5, "/dev/dri/renderD129", body);
	assert_int_equal(dc_sample(&c, true, 0), 0);
	const struct gtm_device *d = &c.snap->devices[0];
	assert_int_equal(d->vendor, GTM_VENDOR_INTEL);
	assert_true(d->is_apu); /* 00:02.0 without hwmon: integrated */
	assert_float_equal(d->clock_sm_mhz.v, 1300, 0);
	assert_float_equal(d->clock_sm_max_mhz.v, 2200, 0);
	assert_string_equal(d->name, "Intel UHD Graphics 770 (Raptor Lake-S)");
	const struct gtm_raw_use *a = dc_use(&c, 500, 0), *b = dc_use(&c, 501, 0), *un = dc_use(&c, 0, 0);
	assert_string_equal(a->use.na_reason, DRM_NA_SHARED_CLIENT);
	assert_string_equal(b->use.na_reason, DRM_NA_SHARED_CLIENT);
	assert_int_equal(a->use.ref_vram.v, 6044 * KIB); /* integrated: system memory is its memory */
	/* once, not twice */
	assert_int_equal(un->use.vram.v, 6044 * KIB);
	assert_false(gtm_u64_ok(un->use.spill));
	free(body);
	dc_end(&c);
}

static void test_hip_server(void **state)
{
	(void)state;
	struct drm_case c;
	char *rocm = capture("amdgpu-rocmi-src-rocmi.py.txt");
	dc_begin(&c);
	const char *slot = "0000:83:00.0"; /* the capture's drm-pdev */
	amd_discrete(c.root, slot, 0, 0x74a1, "206141652992\n");
	dt_proc(c.root, 3766, 100, "python3");
	dt_fd(c.root, 3766, 3, "/dev/kfd", NULL);
	dt_fd(c.root, 3766, 8, "/dev/dri/renderD128", rocm);
	/* a newer kernel: shared keys present, so VRAM is charged */
	char *modern = amd_body(slot, 77, 8 * 1024 * 1024, 1024, 0, "drm-engine-compute:\t100 ns\n");
	dt_proc(c.root, 3767, 101, "llama-server");
	dt_fd(c.root, 3767, 4, "/dev/kfd", NULL);
	dt_fd(c.root, 3767, 9, "/dev/dri/renderD128", modern);
	/* KFD says more than fdinfo shows: a note, the fdinfo number stays */
	dt_attr(c.root, slot, "../../../class/kfd/kfd/topology/nodes/0/gpu_id", "0\n");
	dt_attr(c.root, slot, "../../../class/kfd/kfd/topology/nodes/1/gpu_id", "53895\n");
	dt_attr(c.root, slot, "../../../class/kfd/kfd/topology/nodes/1/properties",
		"cpu_cores_count 0\nsimd_count 1216\nlocation_id 33536\ndomain 0\n");
	dt_attr(c.root, slot, "../../../class/kfd/kfd/proc/3767/vram_53895", "17179869184\n");

	for (int round = 0; round < 2; round++) {
		assert_int_equal(dc_sample(&c, true, 0), 0);
		const struct gtm_raw_use *old = dc_use(&c, 3766, 0), *hip = dc_use(&c, 3767, 0);
		assert_true(old->use.compute);
		assert_string_equal(old->use.na_reason, DRM_NA_LEGACY);
		assert_int_equal(old->use.ref_vram.v, 76 * KIB);
		assert_int_equal(hip->use.vram.v, 8ull * GIB_);
		/* ROCm queues are not in fdinfo's engine time: N/A, never 0 */
		assert_false(gtm_f64_ok(hip->use.sm_pct));
		assert_false(gtm_f64_ok(hip->use.gfx_pct));
		assert_false(gtm_f64_ok(old->use.sm_pct));
	}
	assert_true(dc_note(&c, "pid 3767: KFD reports 16384 MiB of VRAM on 0000:83:00.0, fdinfo 8192 MiB"));
	assert_false(dc_note(&c, "pid 3766"));
	free(modern);
	free(rocm);
	dc_end(&c);
}

static void test_apu_beside_discrete(void **state)
{
	(void)state;
	struct drm_case c;
	char *partial = capture("amdgpu-nvtop-pr492-partial.txt");
	dc_begin(&c);
	const char *apu = "0000:c4:00.0", *dgpu = "0000:03:00.0";
	dt_device(c.root, 1, 129, apu, "amdgpu", 0x1002, 0x150e);
	dt_attr(c.root, apu, "mem_info_vram_total", "536870912\n");
	dt_attr(c.root, apu, "mem_info_vram_used", "5476352\n");
	dt_attr(c.root, apu, "mem_info_gtt_total", "33554432000\n");
	dt_attr(c.root, apu, "mem_info_gtt_used", "25863192576\n");
	/* no mem_info_vram_vendor: amdgpu names none for a carve-out */
	amd_discrete(c.root, dgpu, 0, 0x7480, "8573157376\n");
	/* the PR's grep shows only drm-memory lines; the client's header lines
	 * (driver, pdev, client id) are written around them */
	char body[4096];
	snprintf(body, sizeof body, "drm-driver:\tamdgpu\ndrm-pdev:\t%s\ndrm-client-id:\t4\n%s", apu, partial);
	dt_proc(c.root, 7000, 70, "llama-server");
	dt_fd(c.root, 7000, 7, "/dev/dri/renderD129", body);
	char *modern = amd_body(apu, 5, 5348, 1048576, 0, "");
	dt_proc(c.root, 7001, 71, "ollama");
	dt_fd(c.root, 7001, 7, "/dev/dri/renderD129", modern);
	char *small = amd_body(dgpu, 5, 1024, 2048, 0, ""); /* same client id, other device */
	dt_proc(c.root, 7002, 72, "blender");
	dt_fd(c.root, 7002, 3, "/dev/dri/renderD128", small);

	assert_int_equal(dc_sample(&c, true, 0), 0);
	devices_order(c.snap, &c.uses);
	/* discrete first (more dedicated memory), APU second */
	assert_int_equal(dc_dev(&c, dgpu), 0);
	assert_int_equal(dc_dev(&c, apu), 1);
	assert_true(c.snap->devices[1].is_apu);
	assert_false(c.snap->devices[0].is_apu);
	const struct gtm_raw_use *legacy = dc_use(&c, 7000, 1), *ol = dc_use(&c, 7001, 1), *bl = dc_use(&c, 7002, 0);
	assert_string_equal(legacy->use.na_reason, DRM_NA_LEGACY);
	/* the model in GTT is the APU's memory, never spill */
	assert_int_equal(legacy->use.ref_vram.v, (5348ull + 25258000ull) * KIB);
	assert_false(gtm_u64_ok(legacy->use.ref_spill));
	assert_int_equal(ol->use.vram.v, (5348ull + 1048576ull) * KIB);
	assert_false(gtm_u64_ok(ol->use.spill));
	assert_int_equal(bl->use.vram.v, 1024 * KIB);
	assert_int_equal(bl->use.spill.v, 2048 * KIB);
	assert_non_null(dc_use(&c, 0, 1));
	assert_null(dc_use(&c, 0, 0));
	free(modern);
	free(small);
	free(partial);
	dc_end(&c);
}

static void test_xe_cycles(void **state)
{
	(void)state;
	struct drm_case c;
	char *cr = capture("xe-intel-compute-runtime-sysman.txt");
	char *doc = capture("xe-kernel-xe_drm_client.c-DOC.txt");
	dc_begin(&c);
	const char *slot = "0000:4d:00.0"; /* the compute runtime capture's drm-pdev */
	dt_device(c.root, 0, 128, slot, "xe", 0x8086, 0x0bd5);
	dt_attr(c.root, slot, "tile0/physical_vram_size_bytes", "68719476736\n");
	dt_attr(c.root, slot, "tile1/physical_vram_size_bytes", "68719476736\n");
	dt_attr(c.root, slot, "tile0/gt0/freq0/cur_freq", "1600\n");
	dt_attr(c.root, slot, "tile0/gt0/freq0/max_freq", "1600\n");
	dt_attr(c.root, slot, "hwmon/hwmon2/power1_max", "600000000\n");
	dt_proc(c.root, 1383, 50, "level-zero-app");
	dt_fd(c.root, 1383, 8, "/dev/dri/renderD128", cr);
	dt_proc(c.root, 1390, 51, "gnome-shell");
	dt_fd(c.root, 1390, 8, "/dev/dri/renderD128", doc);

	assert_int_equal(dc_sample(&c, false, 0), 0);
	const struct gtm_device *d = &c.snap->devices[0];
	assert_int_equal(d->mem_total.v, 2 * 68719476736ull);
	assert_false(d->is_apu);
	assert_float_equal(d->clock_sm_mhz.v, 1600, 0);
	assert_float_equal(d->power_limit_w.v, 600, 1e-9);
	const struct gtm_raw_use *u = dc_use(&c, 1383, 0);
	/* two tiles' VRAM, GTT as spill; xe's "system" is not GPU memory */
	assert_int_equal(u->use.vram.v, (65072580ull + 63753540ull) * KIB);
	assert_int_equal(u->use.spill.v, 264 * KIB);
	assert_false(gtm_f64_ok(u->use.sm_pct));
	assert_string_equal(dc_use(&c, 1390, 0)->use.na_reason, DRM_NA_SHARED_BUFFERS);

	/* the next sample: ccs ran 1,000,000 of 2 x 10,000,000 cycles */
	char *a = dc_replace(cr, "drm-cycles-ccs: 326", "drm-cycles-ccs: 1000326");
	char *b = dc_replace(a, "drm-total-cycles-ccs:   24339816184", "drm-total-cycles-ccs:   24349816184");
	char *e = dc_replace(b, "drm-total-cycles-bcs:   24339816184", "drm-total-cycles-bcs:   24349816184");
	dt_fd(c.root, 1383, 8, "/dev/dri/renderD128", e);
	/* the other client's GPU clock moved on too (idle: zero busy cycles) */
	char *d2 = strdup(doc);
	while (strstr(d2, "7655183225")) {
		char *next = dc_replace(d2, "7655183225", "7665183225");
		free(d2);
		d2 = next;
	}
	dt_fd(c.root, 1390, 8, "/dev/dri/renderD128", d2);
	free(d2);
	assert_int_equal(dc_sample(&c, false, 0), 0);
	u = dc_use(&c, 1383, 0);
	assert_true(gtm_f64_ok(u->use.sm_pct));
	assert_float_equal(u->use.sm_pct.v, 5.0, 1e-9);
	assert_float_equal(u->use.copy_pct.v, 0.0, 1e-9);
	assert_false(gtm_f64_ok(u->use.gfx_pct)); /* no rcs key: not reported, not 0 */
	/* the device's load is the busiest class over all visible clients */
	d = &c.snap->devices[0];
	assert_true(gtm_f64_ok(d->util_gpu_pct));
	assert_float_equal(d->util_gpu_pct.v, 5.0, 1e-9);
	assert_true(d->n_engines >= 2);
	free(a);
	free(b);
	free(e);
	free(cr);
	free(doc);
	dc_end(&c);
}

static void test_legacy_kernel(void **state)
{
	(void)state;
	struct drm_case c;
	char *body = capture("amdgpu-amdgpu_top-issue87.txt");
	dc_begin(&c);
	const char *slot = "0000:08:00.0";
	amd_discrete(c.root, slot, 0, 0x73ff, "8573157376\n");
	dt_attr(c.root, slot, "product_name", "Radeon RX 6600 (board)\n");
	dt_proc(c.root, 2217, 5, "steam");
	dt_plain_fds(c.root, 2217, 0, 99);
	dt_fd(c.root, 2217, 99, "/dev/dri/renderD128", body);
	assert_int_equal(dc_sample(&c, true, 0), 0);
	assert_string_equal(c.snap->devices[0].name, "Radeon RX 6600 (board)"); /* the driver's own string */
	const struct gtm_raw_use *u = dc_use(&c, 2217, 0), *un = dc_use(&c, 0, 0);
	assert_string_equal(u->use.na_reason, DRM_NA_LEGACY);
	assert_false(gtm_u64_ok(u->use.vram));
	assert_int_equal(u->use.ref_vram.v, 2068 * KIB);
	assert_int_equal(u->use.ref_spill.v, 8192 * KIB);
	assert_false(gtm_u64_ok(u->use.ref_shared) && u->use.ref_shared.v != 0);
	assert_int_equal(un->use.vram.v, 2068 * KIB);
	assert_int_equal(un->use.spill.v, 8192 * KIB);
	free(body);
	dc_end(&c);
}

/* A laptop's dGPU asleep: nothing that would wake it is read. */
static void test_runtime_suspended(void **state)
{
	(void)state;
	struct drm_case c;
	dc_begin(&c);
	const char *amd = "0000:03:00.0", *arc = "0000:04:00.0";
	amd_discrete(c.root, amd, 0, 0x73df, "12868124672\n");
	dt_attr(c.root, amd, "power/runtime_status", "suspended\n");
	dt_attr(c.root, amd, "gpu_busy_percent", "0\n");
	dt_attr(c.root, amd, "pp_dpm_sclk", "0: 500Mhz *\n");
	dt_attr(c.root, amd, "hwmon/hwmon1/temp1_input", "40000\n");
	dt_attr(c.root, amd, "ip_discovery/die/0/UVD/0/major", "3\n");
	dt_device(c.root, 1, 129, arc, "i915", 0x8086, 0x56a0);
	dt_attr(c.root, arc, "power/runtime_status", "suspended\n");
	dt_attr(c.root, arc, "hwmon/hwmon2/power1_max", "190000000\n");
	dt_attr(c.root, arc, "../../../class/drm/card1/gt_cur_freq_mhz", "300\n");
	dt_proc(c.root, 1, 1, "init");
	assert_int_equal(dc_sample(&c, true, 0), 0);
	const struct gtm_device *a = &c.snap->devices[0], *i = &c.snap->devices[1];
	assert_int_equal(a->mem_total.v, 12868124672ull); /* driver bookkeeping: no wake-up */
	assert_false(gtm_f64_ok(a->util_gpu_pct));
	assert_false(gtm_f64_ok(a->clock_sm_mhz));
	assert_false(gtm_f64_ok(a->temp_c));
	assert_false(gtm_f64_ok(i->power_limit_w));
	assert_false(gtm_f64_ok(i->clock_sm_mhz));
	assert_false(i->is_apu); /* a hwmon folder says discrete, read or not */
	assert_true(dc_note(&c, "drm: 0000:03:00.0 is runtime-suspended"));
	assert_true(dc_note(&c, "drm: 0000:04:00.0 is runtime-suspended"));
	/* awake again: read as usual */
	dt_attr(c.root, amd, "power/runtime_status", "active\n");
	assert_int_equal(dc_sample(&c, true, 0), 0);
	assert_float_equal(c.snap->devices[0].temp_c.v, 40, 1e-9);
	assert_float_equal(c.snap->devices[0].clock_sm_mhz.v, 500, 0);
	assert_false(dc_note(&c, "0000:03:00.0 is runtime-suspended"));
	dc_end(&c);
}

static void test_no_devices(void **state)
{
	(void)state;
	struct drm_case c;
	dc_begin(&c);
	assert_int_equal(dc_sample(&c, true, 0), -2);
	assert_string_equal(c.st.message, "no /sys/class/drm: no DRM driver loaded");
	dc_end(&c);
	dc_begin(&c);
	/* simpledrm: a card without a render node and no GPU vendor */
	char path[512];
	snprintf(path, sizeof path, "%s/sys/class/drm/card0/device/uevent", c.root);
	tu_write_file(path, "DRIVER=simple-framebuffer\nOF_NAME=framebuffer\n", 46);
	assert_int_equal(dc_sample(&c, true, 0), -2);
	assert_string_equal(c.st.message, "no GPU under /sys/class/drm");
	dc_end(&c);
}

/* uuid only from a real unique id, driver_version only from a stated module
 * version, is_apu only from the driver's evidence. */
static void test_device_identity(void **state)
{
	(void)state;
	struct drm_case c;
	char path[512];
	dc_begin(&c);
	const char *a = "0000:03:00.0", *b = "0000:04:00.0";
	amd_discrete(c.root, a, 0, 0x744c, "25753026560\n");
	dt_attr(c.root, a, "unique_id", "5d3f6a48b3e8d4c1\n");
	amd_discrete(c.root, b, 1, 0x73ff, "8573157376\n");
	dt_attr(c.root, b, "unique_id", "0000:04:00.0\n"); /* not hex: not an id */
	/* a platform (non-PCI) GPU: no PCI ids, no memory files */
	snprintf(path, sizeof path, "%s/sys/class/drm/card2/device/uevent", c.root);
	tu_write_file(path, "DRIVER=panfrost\nOF_NAME=gpu\n", 27);
	snprintf(path, sizeof path, "%s/sys/class/drm/renderD130/device/uevent", c.root);
	tu_write_file(path, "DRIVER=panfrost\nOF_NAME=gpu\n", 27);
	/* an Intel device whose PCI slot is unknown: not known to be integrated */
	snprintf(path, sizeof path, "%s/sys/class/drm/renderD131/device/uevent", c.root);
	tu_write_file(path, "DRIVER=i915\n", 12);
	dt_proc(c.root, 1, 1, "init");
	assert_int_equal(dc_sample(&c, true, 0), 0);
	assert_int_equal(c.snap->n_devices, 4);
	assert_string_equal(c.snap->devices[3].driver, "i915");
	assert_false(c.snap->devices[3].is_apu);
	const struct gtm_device *da = &c.snap->devices[0], *db = &c.snap->devices[1], *dp = &c.snap->devices[2];
	assert_string_equal(da->uuid, "5d3f6a48b3e8d4c1");
	assert_string_equal(db->uuid, "");
	assert_string_equal(dp->uuid, "");
	assert_string_equal(da->driver, "amdgpu");
	assert_string_equal(dp->driver, "panfrost");
	assert_string_equal(dp->name, "panfrost GPU");
	/* in-tree drivers state no version of their own */
	assert_string_equal(da->driver_version, "");
	assert_string_equal(dp->driver_version, "");
	assert_false(da->is_apu);
	assert_false(dp->is_apu); /* nothing says it uses system memory */
	/* a DKMS build states its version */
	snprintf(path, sizeof path, "%s/sys/module/amdgpu/version", c.root);
	tu_write_file(path, "6.8.5\n", 6);
	assert_int_equal(dc_sample(&c, true, 0), 0);
	assert_string_equal(c.snap->devices[0].driver_version, "6.8.5");
	assert_string_equal(c.snap->devices[1].driver_version, "6.8.5");
	assert_string_equal(c.snap->devices[2].driver_version, "");
	dc_end(&c);
}

static void test_hostile_fdinfo(void **state)
{
	(void)state;
	struct drm_case c;
	dc_begin(&c);
	const char *slot = "0000:03:00.0";
	amd_discrete(c.root, slot, 0, 0x744c, "25753026560\n");
	size_t big = 64 * 1024;
	char *huge = malloc(big + 1);
	memset(huge, 'x', big);
	huge[big] = '\0';
	memcpy(huge, "drm-driver: amdgpu\n", 19);
	dt_proc(c.root, 10, 1, "a");
	dt_fd(c.root, 10, 3, "/dev/dri/renderD128", huge);
	dt_proc(c.root, 11, 1, "b");
	dt_fd(c.root, 11, 3, "/dev/dri/renderD128", "\x01\x02garbage\n:::\n");
	dt_proc(c.root, 12, 1, "c");
	dt_fd(c.root, 12, 3, "/dev/dri/renderD999", "drm-driver: amdgpu\n"); /* not a listed node */
	dt_fd(c.root, 12, 4, "/dev/dri/card0 (deleted)", "drm-driver: amdgpu\n");
	assert_int_equal(dc_sample(&c, true, 0), 0);
	assert_string_equal(dc_use(&c, 10, 0)->use.na_reason, DRM_NA_INCOMPLETE);
	assert_string_equal(dc_use(&c, 11, 0)->use.na_reason, DRM_NA_INCOMPLETE);
	assert_null(dc_use(&c, 12, 0));
	free(huge);
	dc_end(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_desktop_compositor),
		cmocka_unit_test(test_fd_shared_by_fork),
		cmocka_unit_test(test_hip_server),
		cmocka_unit_test(test_apu_beside_discrete),
		cmocka_unit_test(test_xe_cycles),
		cmocka_unit_test(test_legacy_kernel),
		cmocka_unit_test(test_runtime_suspended),
		cmocka_unit_test(test_no_devices),
		cmocka_unit_test(test_device_identity),
		cmocka_unit_test(test_hostile_fdinfo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
