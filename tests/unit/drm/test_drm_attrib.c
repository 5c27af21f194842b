/* Strict attribution: who is charged VRAM and spill, who gets N/A and why,
 * what lands in the unattributed row, and engine load per process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sources/drm_attrib.h"

#define KIB 1024ull
#define SEC 1000000000ull

static struct drm_obs obs[32];
static size_t n_obs;
static struct drm_dev_ctx devs[2];

static void reset(void)
{
	memset(obs, 0, sizeof obs);
	n_obs = 0;
	memset(devs, 0, sizeof devs);
	snprintf(devs[0].driver, sizeof devs[0].driver, "amdgpu");
	snprintf(devs[1].driver, sizeof devs[1].driver, "amdgpu");
	devs[1].is_apu = true;
}

/* A read of text by (pid, start) on dev through a render or primary node. */
static struct drm_obs *add(uint32_t pid, int dev, bool render, const char *text)
{
	struct drm_obs *o = &obs[n_obs++];
	o->pid = pid;
	o->start_time = 1000 + pid;
	o->dev = dev;
	o->render = render;
	o->read_ns = SEC;
	o->read_ok = text && drm_fdinfo_parse(text, strlen(text), &o->fi) == 0;
	return o;
}

/* modern amdgpu (6.11+): drm-resident-*, drm-shared-* */
static const char *amd(unsigned id, unsigned vram_kib, unsigned gtt_kib, unsigned shared_kib)
{
	static char buf[8][512];
	static int k;
	char *b = buf[k++ % 8];
	snprintf(b, 512,
		 "drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t%u\n"
		 "drm-total-vram:\t%u KiB\ndrm-shared-vram:\t%u KiB\ndrm-resident-vram:\t%u KiB\n"
		 "drm-total-gtt:\t%u KiB\ndrm-shared-gtt:\t0\ndrm-resident-gtt:\t%u KiB\n"
		 "drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-resident-cpu:\t0\n"
		 "drm-memory-vram:\t%u KiB\ndrm-memory-gtt:\t%u KiB\ndrm-memory-cpu:\t0 KiB\n",
		 id, vram_kib, shared_kib, vram_kib, gtt_kib, gtt_kib, vram_kib, gtt_kib);
	return b;
}

static struct gtm_raw_uses uses;

static void run(bool partial, struct drm_engine_state *eng, struct drm_dev_load *loads)
{
	struct drm_attrib_in in = {obs, n_obs, devs, 2, 5, partial, eng};
	raw_uses_clear(&uses);
	drm_attribute(&in, &uses, loads);
}

static const struct gtm_raw_use *use_of(uint32_t pid, int dev_index)
{
	for (size_t i = 0; i < uses.n; i++)
		if (uses.v[i].pid == pid && uses.v[i].use.dev_index == dev_index)
			return &uses.v[i];
	return NULL;
}

static void test_sole_render_client_is_charged(void **state)
{
	(void)state;
	reset();
	add(100, 0, true, amd(1, 4096, 512, 0));
	add(100, 0, true, amd(1, 4096, 512, 0)); /* a dup'ed fd: the same client */
	run(false, NULL, NULL);
	assert_int_equal(uses.n, 1);
	const struct gtm_raw_use *u = use_of(100, 5);
	assert_non_null(u);
	assert_int_equal(u->start_time, 1100);
	assert_int_equal(u->use.vram.prov, GTM_MEASURED);
	assert_int_equal(u->use.vram.v, 4096 * KIB);
	assert_int_equal(u->use.spill.v, 512 * KIB);
	assert_int_equal(u->use.ref_vram.v, 4096 * KIB);
	assert_int_equal(u->use.ref_shared.v, 0);
	assert_int_equal(u->use.n_clients, 1);
	assert_string_equal(u->use.na_reason, "");
}

static void test_shared_buffers_go_unattributed(void **state)
{
	(void)state;
	reset();
	/* a compositor importing two windows, and the two apps exporting them */
	add(10, 0, true, amd(1, 9000, 100, 3000));
	add(20, 0, true, amd(2, 2000, 0, 1000));
	add(30, 0, true, amd(3, 5000, 0, 2000));
	add(40, 0, true, amd(4, 700, 0, 0));
	run(false, NULL, NULL);
	const struct gtm_raw_use *c = use_of(10, 5), *w = use_of(20, 5), *solo = use_of(40, 5), *un = use_of(0, 5);
	assert_false(gtm_u64_ok(c->use.vram));
	assert_false(gtm_u64_ok(c->use.spill));
	assert_string_equal(c->use.na_reason, DRM_NA_SHARED_BUFFERS);
	assert_string_equal(w->use.na_reason, DRM_NA_SHARED_BUFFERS);
	/* every buffer it can reach stays visible, as a reference */
	assert_int_equal(c->use.ref_vram.v, 9000 * KIB);
	assert_int_equal(c->use.ref_shared.v, 3000 * KIB);
	assert_int_equal(solo->use.vram.v, 700 * KIB);
	assert_non_null(un);
	assert_int_equal(un->use.vram.v, (9000 + 2000 + 5000) * KIB);
	assert_int_equal(un->use.spill.v, 100 * KIB);
	assert_int_equal(un->use.n_clients, 3);
	assert_int_equal(uses.n, 5);
}

static void test_fd_shared_by_two_processes(void **state)
{
	(void)state;
	reset();
	add(50, 0, true, amd(9, 1000, 0, 0));
	add(51, 0, true, amd(9, 1000, 0, 0)); /* inherited across fork */
	run(false, NULL, NULL);
	assert_string_equal(use_of(50, 5)->use.na_reason, DRM_NA_SHARED_CLIENT);
	assert_string_equal(use_of(51, 5)->use.na_reason, DRM_NA_SHARED_CLIENT);
	/* counted once in the unattributed row, not once per holder */
	assert_int_equal(use_of(0, 5)->use.vram.v, 1000 * KIB);
	assert_int_equal(use_of(0, 5)->use.n_clients, 1);
}

static void test_reasons(void **state)
{
	(void)state;
	reset();
	add(60, 0, false, amd(11, 100, 0, 0)); /* opened through card0 */
	add(61, 0, true, "drm-driver: amdgpu\ndrm-client-id: 12\ndrm-memory-vram: 2068 KiB\n"
			 "drm-memory-gtt: 8192 KiB\ndrm-memory-cpu: 0 KiB\n");
	add(62, 0, true, NULL); /* the fdinfo could not be read */
	add(63, 0, true, "drm-driver: i915\ndrm-client-id: 7\ndrm-engine-render: 5 ns\n");
	add(64, 0, true, "drm-driver: amdgpu\ndrm-resident-vram: 5 KiB\ndrm-shared-vram: 0\n"); /* no client id */
	run(false, NULL, NULL);
	assert_string_equal(use_of(60, 5)->use.na_reason, DRM_NA_PRIMARY);
	assert_string_equal(use_of(61, 5)->use.na_reason, DRM_NA_LEGACY);
	assert_int_equal(use_of(61, 5)->use.ref_vram.v, 2068 * KIB); /* still shown as a reference */
	assert_false(gtm_u64_ok(use_of(61, 5)->use.ref_shared)); /* no drm-shared-* keys: unknown, not 0 */
	assert_string_equal(use_of(62, 5)->use.na_reason, DRM_NA_INCOMPLETE);
	assert_false(gtm_u64_ok(use_of(62, 5)->use.ref_vram));
	assert_string_equal(use_of(63, 5)->use.na_reason, DRM_NA_NO_MEMORY);
	assert_string_equal(use_of(64, 5)->use.na_reason, DRM_NA_NO_CLIENT_ID);
	/* unattributed: the readable ones with memory, never the unreadable */
	assert_int_equal(use_of(0, 5)->use.vram.v, (100 + 2068 + 5) * KIB);

	/* a partial scan cannot prove a holder is alone */
	reset();
	add(70, 0, true, amd(20, 300, 0, 0));
	run(true, NULL, NULL);
	assert_string_equal(use_of(70, 5)->use.na_reason, DRM_NA_PARTIAL);
	assert_int_equal(use_of(0, 5)->use.vram.v, 300 * KIB);
}

/* A memory value that did not parse: the client is incomplete, nothing of
 * its process is summed, and its bytes are in no row. */
static void test_unparseable_value(void **state)
{
	(void)state;
	char both[1024];
	reset();
	add(110, 0, true, "drm-driver: amdgpu\ndrm-client-id: 40\ndrm-resident-vram: 2097152 kB\n"
			  "drm-shared-vram: 0\ndrm-resident-gtt: 4 KiB\ndrm-shared-gtt: 0\n");
	add(111, 0, true, "drm-driver: amdgpu\ndrm-client-id: 41\ndrm-resident-vram: 8 KiB\n"
			  "drm-shared-vram: 0\ndrm-resident-gtt: 18014398509481983 GiB\ndrm-shared-gtt: 0\n");
	/* one good client and one bad in the same process: no partial sum */
	snprintf(both, sizeof both, "%s", amd(42, 300, 0, 0));
	add(112, 0, true, both);
	add(112, 0, true, "drm-driver: amdgpu\ndrm-client-id: 43\ndrm-resident-vram: 12 KiB\n"
			  "drm-shared-vram: 0\ndrm-resident-gtt: 1 XiB\ndrm-shared-gtt: 0\n");
	/* an unreadable key of a region no class counts is harmless */
	add(113, 0, true, "drm-driver: amdgpu\ndrm-client-id: 44\ndrm-resident-vram: 16 KiB\n"
			  "drm-shared-vram: 0\ndrm-resident-cpu: 3 kB\n");
	run(false, NULL, NULL);
	for (uint32_t pid = 110; pid <= 112; pid++) {
		const struct gtm_gpu_use *u = &use_of(pid, 5)->use;
		assert_string_equal(u->na_reason, DRM_NA_UNPARSEABLE);
		assert_false(gtm_u64_ok(u->vram));
		assert_false(gtm_u64_ok(u->spill));
		assert_false(gtm_u64_ok(u->ref_vram));
		assert_false(gtm_u64_ok(u->ref_spill));
		assert_false(gtm_u64_ok(u->ref_shared));
	}
	assert_int_equal(use_of(113, 5)->use.vram.v, 16 * KIB);
	/* only the readable client of 112 is counted */
	const struct gtm_raw_use *un = use_of(0, 5);
	assert_non_null(un);
	assert_int_equal(un->use.vram.v, 300 * KIB);
	assert_int_equal(un->use.n_clients, 1);

	/* a client held by two processes, one of whose reads is garbage: for the
	 * process that read it fine the reason is the sharing, not the garbage */
	reset();
	add(120, 0, true, "drm-driver: amdgpu\ndrm-client-id: 50\ndrm-resident-vram: 2097152 kB\n"
			  "drm-shared-vram: 0\ndrm-resident-gtt: 4 KiB\ndrm-shared-gtt: 0\n");
	add(121, 0, true, amd(50, 4096, 0, 0));
	run(false, NULL, NULL);
	assert_string_equal(use_of(121, 5)->use.na_reason, DRM_NA_SHARED_CLIENT);
	assert_string_equal(use_of(120, 5)->use.na_reason, DRM_NA_SHARED_CLIENT);
	assert_false(gtm_u64_ok(use_of(121, 5)->use.vram));
}

/* i915 before 6.7 prints engines only: no memory, so no reference and no
 * unattributed row, even when the client is shared or on a primary node. */
static void test_engine_only_clients(void **state)
{
	(void)state;
	const char *eng = "drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 7\n"
			  "drm-engine-render: 5 ns\ndrm-engine-video: 0 ns\n";
	reset();
	add(120, 0, true, eng);
	add(121, 0, true, eng); /* the same client, inherited */
	add(122, 0, false, "drm-driver: i915\ndrm-client-id: 8\ndrm-engine-render: 9 ns\n");
	add(123, 0, true, "drm-driver: i915\ndrm-engine-render: 9 ns\n"); /* no id either */
	run(false, NULL, NULL);
	for (uint32_t pid = 120; pid <= 123; pid++) {
		const struct gtm_gpu_use *u = &use_of(pid, 5)->use;
		assert_false(gtm_u64_ok(u->vram));
		assert_false(gtm_u64_ok(u->ref_vram));
		assert_false(gtm_u64_ok(u->ref_spill));
		assert_false(gtm_u64_ok(u->ref_shared));
	}
	assert_string_equal(use_of(120, 5)->use.na_reason, DRM_NA_NO_MEMORY);
	assert_string_equal(use_of(123, 5)->use.na_reason, DRM_NA_NO_CLIENT_ID);
	assert_null(use_of(0, 5));
	assert_int_equal(uses.n, 4);
}

/* A client without drm-client-id: its bytes are read and counted in the
 * unattributed row, which says it may double-count. */
static void test_no_client_id(void **state)
{
	(void)state;
	struct drm_dev_load loads[2];
	const char *noid = "drm-driver: amdgpu\ndrm-resident-vram: 64 KiB\ndrm-shared-vram: 0\n"
			   "drm-resident-gtt: 8 KiB\ndrm-shared-gtt: 0\n";
	reset();
	add(130, 0, true, noid);
	add(131, 0, true, amd(50, 100, 0, 0));
	add(131, 0, true, noid);
	add(132, 0, true, amd(51, 7, 0, 0));
	run(false, NULL, loads);
	assert_string_equal(use_of(130, 5)->use.na_reason, DRM_NA_NO_CLIENT_ID);
	assert_string_equal(use_of(131, 5)->use.na_reason, DRM_NA_NO_CLIENT_ID);
	assert_false(gtm_u64_ok(use_of(130, 5)->use.vram));
	/* read in full, so still shown as a reference */
	assert_int_equal(use_of(130, 5)->use.ref_vram.v, 64 * KIB);
	assert_int_equal(use_of(131, 5)->use.ref_vram.v, (100 + 64) * KIB);
	assert_int_equal(use_of(132, 5)->use.vram.v, 7 * KIB);
	const struct gtm_raw_use *un = use_of(0, 5);
	assert_non_null(un);
	assert_int_equal(un->use.vram.v, (64 + 100 + 64) * KIB);
	assert_int_equal(un->use.spill.v, (8 + 8) * KIB);
	assert_int_equal(un->use.n_clients, 3);
	assert_string_equal(un->use.na_reason, DRM_NA_UNATTRIB_NO_ID);
	assert_int_equal(loads[0].n_no_id_unattributed, 2);
	/* without such clients the row carries no remark */
	reset();
	add(133, 0, true, amd(52, 5, 0, 0));
	add(134, 0, true, amd(52, 5, 0, 0));
	run(false, NULL, loads);
	assert_string_equal(use_of(0, 5)->use.na_reason, "");
	assert_int_equal(loads[0].n_no_id_unattributed, 0);
}

static void test_apu_gtt_is_gpu_memory(void **state)
{
	(void)state;
	reset();
	add(80, 1, true, amd(1, 5348, 25258000, 0));
	add(81, 0, true, amd(1, 64, 32, 0)); /* client ids are per device */
	run(false, NULL, NULL);
	const struct gtm_raw_use *apu = use_of(80, 6), *dgpu = use_of(81, 5);
	assert_int_equal(apu->use.vram.v, (5348ull + 25258000ull) * KIB);
	assert_false(gtm_u64_ok(apu->use.spill)); /* never spill on an APU */
	assert_false(gtm_u64_ok(apu->use.ref_spill));
	assert_int_equal(dgpu->use.vram.v, 64 * KIB);
	assert_int_equal(dgpu->use.spill.v, 32 * KIB);
	assert_null(use_of(0, 5));
	assert_null(use_of(0, 6));
}

static void test_engines_per_process(void **state)
{
	(void)state;
	struct drm_engine_state *eng = drm_engine_state_new();
	struct drm_dev_load loads[2];
	char t1[512], t2[512];

	for (int round = 0; round < 2; round++) {
		reset();
		snprintf(t1, sizeof t1, "%sdrm-engine-gfx: %llu ns\ndrm-engine-dma: %llu ns\n", amd(1, 10, 0, 0),
			 round ? 1000ull + SEC / 2 : 1000ull, round ? SEC / 10 : 0ull);
		snprintf(t2, sizeof t2, "%sdrm-engine-compute: %llu ns\n", amd(2, 10, 0, 0), round ? SEC / 5 : 0ull);
		add(90, 0, true, t1)->read_ns = (round + 1) * SEC;
		struct drm_obs *h = add(91, 0, true, t2);
		h->read_ns = (round + 1) * SEC;
		h->kfd = true; /* a HIP process */
		drm_engine_state_begin(eng);
		run(false, eng, loads);
		drm_engine_state_end(eng);
		const struct gtm_raw_use *g = use_of(90, 5), *hip = use_of(91, 5);
		if (round == 0) {
			assert_false(gtm_f64_ok(g->use.gfx_pct)); /* one sample: N/A */
			continue;
		}
		assert_true(gtm_f64_ok(g->use.gfx_pct));
		assert_float_equal(g->use.gfx_pct.v, 50.0, 1e-6);
		assert_float_equal(g->use.copy_pct.v, 10.0, 1e-6); /* SDMA fills copy */
		/* amdgpu omits engines that never ran: a measured 0 */
		assert_true(gtm_f64_ok(g->use.sm_pct));
		assert_float_equal(g->use.sm_pct.v, 0.0, 1e-9);
		/* ROCm: N/A, never a measured-looking 0 */
		assert_true(hip->use.compute);
		assert_false(hip->use.graphics);
		assert_true(g->use.graphics);
		assert_false(g->use.compute);
		assert_false(gtm_f64_ok(hip->use.sm_pct));
		assert_false(gtm_f64_ok(hip->use.gfx_pct));
		/* the device sees both clients */
		assert_true(loads[0].cls[DRM_ENG_COMPUTE].ok);
		assert_float_equal(loads[0].cls[DRM_ENG_COMPUTE].pct, 20.0, 1e-6);
		assert_int_equal(loads[0].n_processes, 2);
		assert_int_equal(loads[0].n_clients, 2);
	}
	drm_engine_state_free(eng);
}

static void test_vcn_unified_is_video(void **state)
{
	(void)state;
	struct drm_engine_state *eng = drm_engine_state_new();
	char t[512];
	for (int round = 0; round < 2; round++) {
		reset();
		devs[0].vcn_unified = true;
		snprintf(t, sizeof t, "%sdrm-engine-enc: %llu ns\n", amd(3, 10, 0, 0), round ? SEC / 4 : 0ull);
		add(95, 0, true, t)->read_ns = (round + 1) * SEC;
		drm_engine_state_begin(eng);
		run(false, eng, NULL);
		drm_engine_state_end(eng);
	}
	const struct gtm_raw_use *u = use_of(95, 5);
	assert_float_equal(u->use.video_pct.v, 25.0, 1e-6);
	assert_false(gtm_f64_ok(u->use.enc_pct)); /* not split into encode/decode */
	assert_false(gtm_f64_ok(u->use.dec_pct));
	assert_true(gtm_f64_ok(u->use.gfx_pct)); /* other idle engines: measured 0 */
	drm_engine_state_free(eng);
}

static void test_unknown_device_ignored(void **state)
{
	(void)state;
	reset();
	add(99, 7, true, amd(1, 10, 0, 0));
	add(98, -1, true, amd(1, 10, 0, 0));
	run(false, NULL, NULL);
	assert_int_equal(uses.n, 0);
}

static int teardown(void **state)
{
	(void)state;
	raw_uses_free(&uses);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sole_render_client_is_charged),
		cmocka_unit_test(test_shared_buffers_go_unattributed),
		cmocka_unit_test(test_fd_shared_by_two_processes),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_unparseable_value),
		cmocka_unit_test(test_engine_only_clients),
		cmocka_unit_test(test_no_client_id),
		cmocka_unit_test(test_apu_gtt_is_gpu_memory),
		cmocka_unit_test(test_engines_per_process),
		cmocka_unit_test(test_vcn_unified_is_video),
		cmocka_unit_test(test_unknown_device_ignored),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
