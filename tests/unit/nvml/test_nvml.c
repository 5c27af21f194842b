/* The NVML source against the fake libnvidia-ml.so.1 (tests/fakes/nvml).
 * argv[1] names the library the test's LD_LIBRARY_PATH points at:
 *   full      the fake with every entry point (most cases)
 *   old       an old driver: no _v2/_v3 entry points exported
 *   nohandle  a library lacking nvmlDeviceGetHandleByIndex*
 *   none      no libnvidia-ml at all */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvml_test_util.h"
#include "sources/nvml.h"
#include "sources/nvml_internal.h"

#define GIB_ 1073741824ull

static const char *const two_gpus =
	"driver 550.54.15\n"
	"cuda 12.4\n"
	"device name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-11111111-2222-3333-4444-555555555555 bus=00000000:1A:00.0"
	" mem_total=85899345920 mem_used=21474836480 mem_reserved=536870912 util_gpu=87 util_mem=41 temp=64"
	" power_mw=312500 power_limit_mw=700000 fan=30 clock_sm=1980 clock_mem=2619 clock_video=1755"
	" clock_sm_max=1980 clock_mem_max=2619 pcie_tx_kbs=1000 pcie_rx_kbs=2000 pcie_gen=5 pcie_width=16 enc=3 dec=7\n"
	"device name=\"NVIDIA RTX A4000\" uuid=GPU-aaaa bus=00000000:02:00.0 mem_total=17179869184 mem_used=1073741824\n"
	"process dev=0 pid=4242 list=compute mem=17179869184 sm=40 enc=2 dec=1\n"
	"process dev=0 pid=4243 list=both mem=1073741824\n"
	"process dev=0 pid=4244 list=graphics mem=268435456\n"
	"process dev=1 pid=4242 list=compute mem=536870912\n";

static void *open_ok(void)
{
	struct gtm_source_status st;
	void *priv = nt_open(&st);
	if (!priv)
		fail_msg("open failed: %s", st.message);
	assert_true(st.available);
	return priv;
}

static void test_device_readings(void **state)
{
	(void)state;
	nt_write_scenario(two_gpus);
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.snap->n_devices, 2);
	const struct gtm_device *d = &s.snap->devices[0];
	assert_string_equal(d->name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(d->uuid, "GPU-11111111-2222-3333-4444-555555555555");
	assert_string_equal(d->pci_bus_id, "0000:1a:00.0");
	assert_string_equal(d->driver_version, "550.54.15");
	assert_string_equal(d->cuda_version, "12.4");
	assert_string_equal(d->source, "nvml");
	assert_int_equal(d->vendor, GTM_VENDOR_NVIDIA);
	assert_int_equal(d->mem_total.prov, GTM_MEASURED);
	assert_true(d->mem_total.v == 80 * GIB_);
	assert_true(d->mem_used.v == 20 * GIB_);
	assert_true(d->mem_reserved.v == 512ull << 20);
	assert_true(d->mem_free.v == 80 * GIB_ - 20 * GIB_ - (512ull << 20));
	assert_true(d->util_gpu_pct.v == 87 && d->util_mem_pct.v == 41 && d->temp_c.v == 64);
	assert_true(d->power_w.v == 312.5 && d->power_limit_w.v == 700.0);
	assert_true(d->clock_sm_mhz.v == 1980 && d->clock_mem_mhz.v == 2619 && d->clock_video_mhz.v == 1755);
	assert_true(d->clock_sm_max_mhz.v == 1980 && d->clock_mem_max_mhz.v == 2619);
	assert_true(d->pcie_tx_bps.v == 1000.0 * 1024 && d->pcie_rx_bps.v == 2000.0 * 1024);
	assert_true(d->pcie_gen.v == 5 && d->pcie_width.v == 16 && d->fan_pct.v == 30);
	assert_true(d->enc_pct.v == 3 && d->dec_pct.v == 7);
	assert_int_equal(d->n_processes_seen, 3);
	assert_int_equal(s.snap->devices[1].n_processes_seen, 1);
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* The second device gives only name and memory: all else is N/A, never 0. */
static void test_unsupported_is_unavailable(void **state)
{
	(void)state;
	nt_write_scenario("device name=bare\n");
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	assert_int_equal(s.rc, 0);
	const struct gtm_device *d = &s.snap->devices[0];
	assert_string_equal(d->name, "bare");
	assert_string_equal(d->uuid, "");
	assert_string_equal(d->pci_bus_id, "");
	const gtm_f64 *fs[] = {&d->util_gpu_pct, &d->util_mem_pct, &d->temp_c, &d->power_w, &d->power_limit_w,
			       &d->fan_pct, &d->clock_sm_mhz, &d->clock_mem_mhz, &d->clock_video_mhz,
			       &d->clock_sm_max_mhz, &d->clock_mem_max_mhz, &d->pcie_tx_bps, &d->pcie_rx_bps,
			       &d->pcie_gen, &d->pcie_width, &d->enc_pct, &d->dec_pct};
	for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
		assert_int_equal(fs[i]->prov, GTM_UNAVAILABLE);
	assert_false(gtm_u64_ok(d->mem_total) || gtm_u64_ok(d->mem_used) || gtm_u64_ok(d->mem_free));
	assert_false(gtm_u64_ok(d->mem_reserved));
	assert_int_equal(s.uses.n, 0);
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

static void check_processes(const struct nt_sample *s)
{
	const struct gtm_raw_use *u = nt_find_use(s, 4242, 0);
	assert_non_null(u);
	assert_true(u->use.compute && !u->use.graphics);
	assert_true(u->use.vram.v == 16 * GIB_ && u->use.vram.prov == GTM_MEASURED);
	assert_int_equal(u->use.source_pid, 4242);
	u = nt_find_use(s, 4243, 0);
	assert_non_null(u);
	assert_true(u->use.compute && u->use.graphics); /* in both lists: one use */
	assert_true(u->use.vram.v == GIB_);
	u = nt_find_use(s, 4244, 0);
	assert_true(u && !u->use.compute && u->use.graphics && u->use.vram.v == 256ull << 20);
	u = nt_find_use(s, 4242, 1);
	assert_true(u && u->use.vram.v == 512ull << 20);
	assert_int_equal(s->uses.n, 4);
}

/* _v3, _v2 (24-byte records) and the original (16-byte records). */
static void test_process_api_versions(void **state)
{
	(void)state;
	static const char *const api[] = {"api v3\n", "api v2\n", "api v1\n"};
	char text[4096];
	for (size_t i = 0; i < 3; i++) {
		snprintf(text, sizeof text, "%s%s", api[i], two_gpus);
		nt_write_scenario(text);
		void *priv = open_ok();
		struct nt_sample s;
		nt_sample(priv, &s);
		assert_int_equal(s.rc, 0);
		check_processes(&s);
		nt_sample_free(&s);
		nt_sample(priv, &s); /* the working entry point is remembered */
		check_processes(&s);
		nt_sample_free(&s);
		nvml_source_ops.close(priv);
	}
}

static void test_withheld_memory(void **state)
{
	(void)state;
	nt_write_scenario("device name=g mem_total=1000\nprocess dev=0 pid=77 mem=na\nprocess dev=0 pid=78 mem=0\n");
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	const struct gtm_raw_use *u = nt_find_use(&s, 77, 0);
	assert_non_null(u);
	assert_int_equal(u->use.vram.prov, GTM_UNAVAILABLE);
	assert_string_equal(u->use.na_reason, "withheld by driver");
	u = nt_find_use(&s, 78, 0); /* a measured zero stays a zero */
	assert_true(u && u->use.vram.prov == GTM_MEASURED && u->use.vram.v == 0);
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* The size query sees 3 processes; 40 more appear before the fill call, past
 * any headroom: the source must retry and report all 43. */
static void test_list_grows_between_calls(void **state)
{
	(void)state;
	char *text = malloc(8192);
	int n = snprintf(text, 8192, "device name=g mem_total=1000\n");
	for (int i = 0; i < 43; i++)
		n += snprintf(text + n, 8192 - (size_t)n, "process dev=0 pid=%d mem=%d%s\n", 1000 + i, i,
			      i >= 3 ? " late" : "");
	nt_write_scenario(text);
	free(text);
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.uses.n, 43);
	for (int i = 0; i < 43; i++) {
		const struct gtm_raw_use *u = nt_find_use(&s, (uint32_t)(1000 + i), 0);
		assert_non_null(u);
		assert_true(u->use.vram.v == (uint64_t)i);
	}
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* Per-process load: the first refresh reads the last second's samples (a
 * one-shot snapshot has them too), later ones the samples since the previous. */
static void test_process_load(void **state)
{
	(void)state;
	nt_write_scenario("device name=g\nprocess dev=0 pid=10 mem=5 sm=40 enc=2 dec=9\nprocess dev=0 pid=11 mem=6\n");
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	const struct gtm_raw_use *u = nt_find_use(&s, 10, 0);
	assert_true(u && u->use.sm_pct.prov == GTM_MEASURED && u->use.sm_pct.v == 40 && u->use.enc_pct.v == 2);
	nt_sample_free(&s);
	usleep(2000);
	nt_sample(priv, &s);
	u = nt_find_use(&s, 10, 0);
	assert_true(u && u->use.sm_pct.prov == GTM_MEASURED);
	assert_true(u->use.sm_pct.v == 40 && u->use.enc_pct.v == 2 && u->use.dec_pct.v == 9);
	u = nt_find_use(&s, 11, 0); /* listed, no sample in the window: it did not run */
	assert_true(u && u->use.sm_pct.prov == GTM_MEASURED && u->use.sm_pct.v == 0);
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* Entry points that answer FUNCTION_NOT_FOUND: fall back or N/A, no error. */
static void test_missing_entry_points(void **state)
{
	(void)state;
	nt_write_scenario("missing nvmlDeviceGetMemoryInfo_v2\nmissing nvmlDeviceGetTemperature\n"
			  "missing nvmlDeviceGetProcessUtilization\nmissing nvmlInit_v2\n"
			  "missing nvmlDeviceGetComputeRunningProcesses_v3\n"
			  "device name=g mem_total=1000 mem_used=100 mem_reserved=50 temp=50\n"
			  "process dev=0 pid=5 mem=64 sm=3\n");
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	assert_int_equal(s.rc, 0);
	const struct gtm_device *d = &s.snap->devices[0];
	assert_true(d->mem_total.v == 1000 && d->mem_used.v == 150 && d->mem_free.v == 850); /* v1 folds reserved */
	assert_int_equal(d->mem_reserved.prov, GTM_UNAVAILABLE);
	assert_int_equal(d->temp_c.prov, GTM_UNAVAILABLE);
	const struct gtm_raw_use *u = nt_find_use(&s, 5, 0);
	assert_true(u && u->use.vram.v == 64);
	nt_sample_free(&s);
	nt_sample(priv, &s);
	u = nt_find_use(&s, 5, 0);
	assert_true(u && u->use.sm_pct.prov == GTM_UNAVAILABLE);
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* NVML's 0xFFFFFFFF "not available" and other impossible values are N/A,
 * never shown as numbers. */
static void test_implausible_values(void **state)
{
	(void)state;
	nt_write_scenario("device name=g mem_total=1000 mem_used=500 util_gpu=4294967295 util_mem=20 temp=4294967295 "
			  "power_mw=4294967295 power_limit_mw=0 fan=150 clock_sm=4294967295 clock_mem=1000 "
			  "pcie_gen=0 pcie_width=4294967295\nprocess dev=0 pid=7 mem=64 sm=4294967295\n");
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	const struct gtm_device *d = &s.snap->devices[0];
	assert_int_equal(d->util_gpu_pct.prov, GTM_UNAVAILABLE);
	assert_true(d->util_mem_pct.prov == GTM_MEASURED && d->util_mem_pct.v == 20);
	assert_int_equal(d->temp_c.prov, GTM_UNAVAILABLE);
	assert_int_equal(d->power_w.prov, GTM_UNAVAILABLE);
	assert_int_equal(d->power_limit_w.prov, GTM_UNAVAILABLE);
	assert_true(d->fan_pct.prov == GTM_MEASURED && d->fan_pct.v == 150); /* NVML: may exceed 100 % */
	assert_int_equal(d->clock_sm_mhz.prov, GTM_UNAVAILABLE);
	assert_true(d->clock_mem_mhz.v == 1000);
	assert_int_equal(d->pcie_gen.prov, GTM_UNAVAILABLE);
	assert_int_equal(d->pcie_width.prov, GTM_UNAVAILABLE);
	const struct gtm_raw_use *u = nt_find_use(&s, 7, 0);
	assert_true(u && !(u->use.sm_pct.prov == GTM_MEASURED && u->use.sm_pct.v > 100));
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* A driver that answers no process list: per-process use is unavailable
 * (-1, JSON null), never "0 processes". One list alone is enough. */
static void test_no_process_lists(void **state)
{
	(void)state;
	nt_write_scenario("device name=g mem_total=1000 mem_used=500\nprocess dev=0 pid=7 mem=64\n"
			  "missing nvmlDeviceGetComputeRunningProcesses_v3\nmissing nvmlDeviceGetComputeRunningProcesses_v2\n"
			  "missing nvmlDeviceGetComputeRunningProcesses\nmissing nvmlDeviceGetGraphicsRunningProcesses_v3\n"
			  "missing nvmlDeviceGetGraphicsRunningProcesses_v2\nmissing nvmlDeviceGetGraphicsRunningProcesses\n");
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.snap->devices[0].n_processes_seen, -1);
	assert_null(nt_find_use(&s, 7, 0));
	nt_sample_free(&s);
	nvml_source_ops.close(priv);

	nt_write_scenario("device name=g mem_total=1000 mem_used=500\nprocess dev=0 pid=7 mem=64\n"
			  "missing nvmlDeviceGetGraphicsRunningProcesses_v3\nmissing nvmlDeviceGetGraphicsRunningProcesses_v2\n"
			  "missing nvmlDeviceGetGraphicsRunningProcesses\n");
	priv = open_ok();
	nt_sample(priv, &s);
	assert_int_equal(s.snap->devices[0].n_processes_seen, 1);
	assert_non_null(nt_find_use(&s, 7, 0));
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* The driver's counters and the throttle bitmask, exactly; absent where the
 * driver does not offer them; MIG instance ids on a process's use. */
static void test_counters_and_mig(void **state)
{
	(void)state;
	nt_write_scenario("device name=a uuid=GPU-a mem_total=1000 energy_mj=123456789012 throttle=0x44 pcie_replay=7 "
			  "ecc_corrected=3 ecc_uncorrected=0\n"
			  "device name=b uuid=GPU-b mem_total=1000\n"
			  "process dev=0 pid=51 mem=100 gi=2 ci=0\n"
			  "process dev=0 pid=52 mem=100 gi=1 ci=0\n"
			  "process dev=0 pid=52 mem=100 gi=3 ci=0\n"
			  "process dev=1 pid=53 mem=100\n");
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	const struct gtm_device *a = &s.snap->devices[0], *b = &s.snap->devices[1];
	assert_true(gtm_u64_ok(a->energy_mj) && a->energy_mj.v == 123456789012ull);
	assert_true(gtm_u64_ok(a->throttle_reasons) && a->throttle_reasons.v == 0x44);
	assert_true(gtm_u64_ok(a->pcie_replays) && a->pcie_replays.v == 7);
	assert_true(gtm_u64_ok(a->ecc_corrected) && a->ecc_corrected.v == 3);
	assert_true(gtm_u64_ok(a->ecc_uncorrected) && a->ecc_uncorrected.v == 0); /* a measured zero */
	assert_false(gtm_u64_ok(b->energy_mj));
	assert_false(gtm_u64_ok(b->throttle_reasons));
	assert_false(gtm_u64_ok(b->ecc_corrected));
	const struct gtm_raw_use *r = nt_find_use(&s, 51, 0);
	assert_non_null(r);
	const struct gtm_gpu_use *u = &r->use;
	assert_true(u->mig);
	assert_int_equal(u->gpu_instance_id, 2);
	assert_int_equal(u->compute_instance_id, 0);
	r = nt_find_use(&s, 52, 0); /* in two instances: no one pair */
	assert_non_null(r);
	u = &r->use;
	assert_false(u->mig);
	assert_int_equal(u->vram.v, 200);
	r = nt_find_use(&s, 53, 1); /* not MIG: 0xFFFFFFFF from the driver */
	assert_non_null(r);
	u = &r->use;
	assert_false(u->mig);
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

static void test_init_failure(void **state)
{
	(void)state;
	struct gtm_source_status st;
	nt_write_scenario("fail init\ndevice name=g\n");
	assert_null(nt_open(&st));
	assert_false(st.available);
	assert_string_equal(st.message, "NVML could not start: NVIDIA driver not loaded (nvmlInit returned 9)");
}

/* A device that fails mid-run: -1 and a message; the others stay; recovery. */
static void test_error_mid_run(void **state)
{
	(void)state;
	nt_write_scenario(two_gpus);
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	assert_int_equal(s.rc, 0);
	nt_sample_free(&s);

	char text[4096];
	snprintf(text, sizeof text, "%sfail dev=0\n", two_gpus);
	nt_write_scenario(text);
	nt_sample(priv, &s);
	assert_int_equal(s.rc, -1);
	assert_string_equal(s.st.message, "NVML error on NVML device 0: nvmlDeviceGetHandleByIndex: GPU is lost");
	assert_int_equal(s.snap->n_devices, 2); /* GPU 0 keeps its place, all N/A; GPU 1 was read */
	assert_string_equal(s.snap->devices[0].name, "NVML device 0: GPU is lost");
	assert_true(s.snap->devices[0].name_unread);
	assert_string_equal(s.snap->devices[0].fault_call, "nvmlDeviceGetHandleByIndex");
	assert_string_equal(s.snap->devices[0].fault_reason, "GPU is lost");
	assert_int_equal(s.snap->devices[0].n_processes_seen, -1); /* no list: unavailable, not 0 */
	assert_int_equal(s.snap->devices[0].driver_index, 0);
	assert_int_equal(s.snap->devices[0].mem_total.prov, GTM_UNAVAILABLE);
	assert_string_equal(s.snap->devices[1].name, "NVIDIA RTX A4000");
	assert_string_equal(s.snap->devices[1].fault_reason, "");
	assert_int_equal(s.snap->devices[1].driver_index, 1);
	assert_non_null(nt_find_use(&s, 4242, 1));
	assert_null(nt_find_use(&s, 4243, 0));
	nt_sample_free(&s);

	snprintf(text, sizeof text, "%sfail all\n", two_gpus);
	nt_write_scenario(text);
	nt_sample(priv, &s);
	assert_int_equal(s.rc, -1);
	assert_string_equal(s.st.message, "NVML error: nvmlDeviceGetCount: GPU is lost");
	assert_int_equal(s.snap->n_devices, 0);
	nt_sample_free(&s);

	nt_write_scenario(two_gpus);
	nt_sample(priv, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.snap->n_devices, 2);
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* A scenario changed while the source is open is seen at the next refresh. */
static void test_scenario_changes(void **state)
{
	(void)state;
	nt_write_scenario("device name=g\nprocess dev=0 pid=1 mem=1\n");
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	assert_int_equal(s.uses.n, 1);
	nt_sample_free(&s);
	nt_write_scenario("device name=g\nprocess dev=0 pid=1 mem=1\nprocess dev=0 pid=2 mem=2\n");
	nt_sample(priv, &s);
	assert_int_equal(s.uses.n, 2);
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

/* The benchmark's load: 2 GPUs x 500 processes. */
static void test_many_processes(void **state)
{
	(void)state;
	size_t cap = 1 << 16;
	char *text = malloc(cap);
	int n = snprintf(text, cap, "device name=a mem_total=1\ndevice name=b mem_total=1\n");
	for (int i = 0; i < 1000; i++)
		n += snprintf(text + n, cap - (size_t)n, "process dev=%d pid=%d mem=%d sm=%d\n", i % 2, 20000 + i,
			      i * 4096, i % 100);
	nt_write_scenario(text);
	free(text);
	void *priv = open_ok();
	for (int round = 0; round < 3; round++) {
		struct nt_sample s;
		nt_sample(priv, &s);
		assert_int_equal(s.rc, 0);
		assert_int_equal(s.uses.n, 1000);
		assert_int_equal(s.snap->devices[0].n_processes_seen, 500);
		nt_sample_free(&s);
	}
	nvml_source_ops.close(priv);
}

static void test_bus_id_normalise(void **state)
{
	(void)state;
	char out[32];
	assert_true(nvml_normalise_bus_id("00000000:1A:00.0", out, sizeof out));
	assert_string_equal(out, "0000:1a:00.0");
	assert_true(nvml_normalise_bus_id("00000001:C1:1F.7", out, sizeof out));
	assert_string_equal(out, "0001:c1:1f.7");
	assert_false(nvml_normalise_bus_id("garbage", out, sizeof out));
	assert_string_equal(out, "");
	assert_false(nvml_normalise_bus_id("0000:01:00.0 trailing", out, sizeof out));
	assert_false(nvml_normalise_bus_id("", out, sizeof out));
}

/* An old driver exports none of the _v2/_v3 entry points. */
static void test_old_driver(void **state)
{
	(void)state;
	nt_write_scenario(two_gpus);
	void *priv = open_ok();
	struct nt_sample s;
	nt_sample(priv, &s);
	assert_int_equal(s.rc, 0);
	check_processes(&s); /* 16-byte records */
	const struct gtm_device *d = &s.snap->devices[0];
	assert_true(d->mem_used.v == 20 * GIB_ + (512ull << 20)); /* original call: reserved inside used */
	assert_int_equal(d->mem_reserved.prov, GTM_UNAVAILABLE);
	assert_string_equal(d->pci_bus_id, ""); /* no nvmlDeviceGetPciInfo_v2/_v3 */
	assert_string_equal(d->cuda_version, "12.4");
	nt_sample_free(&s);
	nvml_source_ops.close(priv);
}

static void test_missing_required_symbol(void **state)
{
	(void)state;
	struct gtm_source_status st;
	nt_write_scenario(two_gpus);
	assert_null(nt_open(&st));
	assert_false(st.available);
	assert_string_equal(st.message, "libnvidia-ml.so.1 lacks nvmlDeviceGetHandleByIndex: not a usable NVML library");
}

static void test_no_library(void **state)
{
	(void)state;
	struct gtm_source_status st;
	assert_null(nt_open(&st));
	assert_false(st.available);
	assert_string_equal(st.message, "no NVIDIA driver: libnvidia-ml.so.1 not found");
}

static int teardown(void **state)
{
	(void)state;
	nt_cleanup();
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "full";
	const struct CMUnitTest full[] = {
		cmocka_unit_test(test_device_readings),        cmocka_unit_test(test_unsupported_is_unavailable),
		cmocka_unit_test(test_process_api_versions),   cmocka_unit_test(test_withheld_memory),
		cmocka_unit_test(test_list_grows_between_calls), cmocka_unit_test(test_process_load),
		cmocka_unit_test(test_missing_entry_points),   cmocka_unit_test(test_init_failure),
		cmocka_unit_test(test_counters_and_mig),
		cmocka_unit_test(test_no_process_lists),
		cmocka_unit_test(test_implausible_values),
		cmocka_unit_test(test_error_mid_run),          cmocka_unit_test(test_scenario_changes),
		cmocka_unit_test(test_many_processes),         cmocka_unit_test(test_bus_id_normalise),
	};
	const struct CMUnitTest old[] = {cmocka_unit_test(test_old_driver)};
	const struct CMUnitTest nohandle[] = {cmocka_unit_test(test_missing_required_symbol)};
	const struct CMUnitTest none[] = {cmocka_unit_test(test_no_library)};

	if (strcmp(mode, "old") == 0)
		return cmocka_run_group_tests_name("nvml-old", old, NULL, teardown);
	if (strcmp(mode, "nohandle") == 0)
		return cmocka_run_group_tests_name("nvml-nohandle", nohandle, NULL, teardown);
	if (strcmp(mode, "none") == 0) {
		void *real = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
		if (real) {
			printf("a real libnvidia-ml.so.1 is installed here: the no-driver case cannot be shown: skipped\n");
			dlclose(real);
			return 77;
		}
		return cmocka_run_group_tests_name("nvml-none", none, NULL, NULL);
	}
	return cmocka_run_group_tests_name("nvml", full, NULL, teardown);
}
