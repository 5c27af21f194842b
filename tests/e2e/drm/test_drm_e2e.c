/* The real gputaskman binary on DRM fixture trees built here (from the real
 * captures in ../shared/fixtures/drm where a case maps onto one), read back
 * through --json. argv[1]: the binary. Each failed check says what it saw. */
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "drm_tree.h"
#include "testutil.h"


/* Runs `bin args` with GPUTASKMAN_ROOT=root (and env before it) and parses its stdout. */
static json_t *run_json_env(const char *env, const char *bin, const char *root, const char *args)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "%s GPUTASKMAN_ROOT='%s' '%s' %s", env, root, bin, args);
	FILE *p = popen(cmd, "r");
	if (!p) {
		perror("popen");
		exit(1);
	}
	json_error_t err;
	json_t *j = json_loadf(p, 0, &err);
	int st = pclose(p);
	if (!j || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "FAIL: `%s` exited %d, JSON %s (%s)\n", cmd, WEXITSTATUS(st), j ? "ok" : "bad",
			err.text);
		exit(1);
	}
	return j;
}

/* Without NVML: meson points LD_LIBRARY_PATH at the fake library this test
 * depends on, which without a scenario is a driver that failed to load. */
#define NO_NVML "env -u LD_LIBRARY_PATH -u GTM_FAKE_NVML_SCENARIO"

static json_t *run_json(const char *bin, const char *root, const char *args)
{
	return run_json_env(NO_NVML, bin, root, args);
}

static char *run_text(const char *bin, const char *root, const char *args)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, NO_NVML " GPUTASKMAN_ROOT='%s' '%s' %s 2>&1", root, bin, args);
	FILE *p = popen(cmd, "r");
	char *out = calloc(1, 65536);
	size_t n = fread(out, 1, 65535, p);
	out[n] = '\0';
	pclose(p);
	return out;
}

static json_t *gpu_at(json_t *snap, int index)
{
	return json_array_get(json_object_get(snap, "gpus"), (size_t)index);
}

/* The gpus[] entry of process pid (pid 0: the unattributed row) on device index. */
static json_t *use_of(json_t *snap, long long pid, int index)
{
	size_t i, k;
	json_t *p, *u;
	json_array_foreach(json_object_get(snap, "processes"), i, p) {
		json_t *jp = json_object_get(p, "pid");
		bool match = pid ? json_integer_value(jp) == pid
				 : !strcmp(json_string_value(json_object_get(p, "owner")) ?: "", "unattributed");
		if (!match)
			continue;
		json_array_foreach(json_object_get(p, "gpus"), k, u)
			if (json_integer_value(json_object_get(u, "index")) == index)
				return u;
	}
	return NULL;
}

static long long num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "(null)";
}

static char *amd_body(const char *pdev, unsigned id, unsigned vram_kib, unsigned gtt_kib, unsigned shared_kib)
{
	char *b = malloc(1024);
	snprintf(b, 1024,
		 "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t614\ndrm-driver:\tamdgpu\ndrm-pdev:\t%s\n"
		 "drm-client-id:\t%u\ndrm-total-vram:\t%u KiB\ndrm-shared-vram:\t%u KiB\ndrm-resident-vram:\t%u KiB\n"
		 "drm-total-gtt:\t%u KiB\ndrm-shared-gtt:\t0\ndrm-resident-gtt:\t%u KiB\n"
		 "drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-resident-cpu:\t0\n"
		 "drm-memory-vram:\t%u KiB\ndrm-memory-gtt:\t%u KiB\ndrm-memory-cpu:\t0 KiB\n",
		 pdev, id, vram_kib, shared_kib, vram_kib, gtt_kib, gtt_kib, vram_kib, gtt_kib);
	return b;
}

static void amd_card(const char *root, int card, const char *slot, unsigned short did, const char *total,
		     const char *vendor)
{
	dt_device(root, card, 128 + card, slot, "amdgpu", 0x1002, did);
	dt_attr(root, slot, "mem_info_vram_total", total);
	dt_attr(root, slot, "mem_info_vram_used", "1048576\n");
	dt_attr(root, slot, "mem_info_gtt_total", "33554432000\n");
	dt_attr(root, slot, "mem_info_gtt_used", "1048576\n");
	if (vendor)
		dt_attr(root, slot, "mem_info_vram_vendor", vendor);
}

/* A desktop: amdgpu card with a compositor importing windows, an Intel iGPU
 * with an fd two processes share, and a process on a legacy kernel format. */
static void desktop(const char *bin)
{
	char *irogers = dt_capture_or_skip("i915-lore-irogers-proc_pid_fdinfo5.txt");
	char *legacy = dt_capture_or_skip("amdgpu-amdgpu_top-issue87.txt");
	char *root = tu_tempdir();
	const char *amd = "0000:03:00.0", *igpu = "0000:00:02.0";

	amd_card(root, 0, amd, 0x744c, "25753026560\n", "samsung\n");
	dt_device(root, 1, 129, igpu, "i915", 0x8086, 0xa780);
	char *comp = amd_body(amd, 10, 90000, 2000, 30000), *term = amd_body(amd, 20, 20000, 0, 20000);
	char *game = amd_body(amd, 30, 3000000, 50000, 0);
	dt_proc(root, 1000, 500, "kwin_wayland");
	dt_plain_fds(root, 1000, 0, 20);
	dt_fd(root, 1000, 20, "/dev/dri/renderD128", comp);
	dt_proc(root, 2000, 600, "konsole");
	dt_fd(root, 2000, 12, "/dev/dri/renderD128", term);
	dt_proc(root, 3000, 700, "game");
	dt_fd(root, 3000, 40, "/dev/dri/renderD128", game);
	dt_proc(root, 500, 800, "mpv");
	dt_proc(root, 501, 801, "mpv");
	dt_fd(root, 500, 5, "/dev/dri/renderD129", irogers);
	dt_fd(root, 501, 5, "/dev/dri/renderD129", irogers);
	dt_proc(root, 2217, 900, "steam");
	dt_fd(root, 2217, 99, "/dev/dri/renderD128", legacy);

	json_t *j = run_json(bin, root, "--json --no-probe");
	json_t *g0 = gpu_at(j, 0), *g1 = gpu_at(j, 1);
	tu_check(json_array_size(json_object_get(j, "gpus")) == 2, "desktop: 2 GPUs, got %zu",
	      json_array_size(json_object_get(j, "gpus")));
	tu_check(!strcmp(str(g0, "pci_bus_id"), amd), "desktop: GPU 0 is the AMD card (more memory), got %s",
	      str(g0, "pci_bus_id"));
	tu_check(!strcmp(str(g1, "vendor"), "intel") && json_is_true(json_object_get(g1, "is_apu")),
	      "desktop: GPU 1 is the Intel iGPU, an APU (vendor %s)", str(g1, "vendor"));
	tu_check(!strcmp(str(g0, "source"), "drm"), "desktop: source drm, got %s", str(g0, "source"));

	json_t *c = use_of(j, 1000, 0), *t = use_of(j, 2000, 0), *g = use_of(j, 3000, 0);
	tu_check(c && json_is_null(json_object_get(c, "vram_bytes")), "compositor: VRAM N/A (null)");
	tu_check(c && !strcmp(str(c, "vram_na_reason"), "shared buffers"), "compositor: reason 'shared buffers', got %s",
	      c ? str(c, "vram_na_reason") : "no row");
	tu_check(t && !strcmp(str(t, "vram_na_reason"), "shared buffers"), "terminal: reason 'shared buffers'");
	/* what the compositor can reach is still shown, as a reference */
	json_t *ref = c ? json_object_get(c, "drm_reference") : NULL;
	tu_check(ref && json_integer_value(json_object_get(ref, "clients")) >= 1 &&
		      json_integer_value(json_object_get(ref, "resident_vram_bytes")) > 0 &&
		      json_integer_value(json_object_get(ref, "shared_bytes")) > 0,
	      "compositor: drm_reference lists its clients, resident and shared bytes");
	tu_check(g && num(g, "vram_bytes") == 3000000ll * 1024, "game: VRAM %lld, expected %lld", g ? num(g, "vram_bytes") : -1,
	      3000000ll * 1024);
	tu_check(g && num(g, "spill_bytes") == 50000ll * 1024, "game: spill (GTT) %lld", g ? num(g, "spill_bytes") : -1);
	json_t *m0 = use_of(j, 500, 1), *m1 = use_of(j, 501, 1);
	tu_check(m0 && m1 && !strcmp(str(m0, "vram_na_reason"), "shared client") &&
		      !strcmp(str(m1, "vram_na_reason"), "shared client"),
	      "mpv: both holders N/A 'shared client'");
	json_t *s = use_of(j, 2217, 0);
	tu_check(s && !strcmp(str(s, "vram_na_reason"), "legacy kernel without shared keys"),
	      "legacy: reason, got %s", s ? str(s, "vram_na_reason") : "no row");
	json_t *u0 = use_of(j, 0, 0), *u1 = use_of(j, 0, 1);
	tu_check(u0 && num(u0, "vram_bytes") == (90000ll + 20000 + 2068) * 1024, "unattributed AMD: %lld",
	      u0 ? num(u0, "vram_bytes") : -1);
	tu_check(u1 && num(u1, "vram_bytes") == 6044ll * 1024, "unattributed Intel (once, not per holder): %lld",
	      u1 ? num(u1, "vram_bytes") : -1);
	tu_check(u1 && json_is_null(json_object_get(u1, "spill_bytes")), "Intel iGPU: no spill");
	json_decref(j);

	/* --list-gpus and --gpu N span the DRM devices in the same order */
	char *list = run_text(bin, root, "--list-gpus");
	char *amd_at = strstr(list, "7900"), *intel_at = strstr(list, "Intel");
	tu_check(amd_at && intel_at && amd_at < intel_at, "--list-gpus: AMD before Intel:\n%s", list);
	free(list);
	j = run_json(bin, root, "--json --no-probe --gpu 1");
	tu_check(json_array_size(json_object_get(j, "gpus")) == 1 &&
		      !strcmp(str(gpu_at(j, 0), "pci_bus_id"), igpu),
	      "--gpu 1 is the Intel iGPU");
	tu_check(use_of(j, 3000, 0) == NULL, "--gpu 1: no AMD rows");
	json_decref(j);

	free(comp);
	free(term);
	free(game);
	free(irogers);
	free(legacy);
	tu_rmrf(root);
	free(root);
}

/* Compute: an APU beside a discrete card, a HIP server, an Intel xe client. */
static void compute(const char *bin)
{
	char *xe = dt_capture_or_skip("xe-intel-compute-runtime-sysman.txt");
	char *root = tu_tempdir();
	const char *apu = "0000:c4:00.0", *dgpu = "0000:03:00.0", *xslot = "0000:4d:00.0";

	amd_card(root, 0, apu, 0x150e, "536870912\n", NULL);
	amd_card(root, 1, dgpu, 0x7480, "8573157376\n", "hynix\n");
	dt_device(root, 2, 130, xslot, "xe", 0x8086, 0x0bd5);
	dt_attr(root, xslot, "tile0/physical_vram_size_bytes", "68719476736\n");
	dt_attr(root, xslot, "tile1/physical_vram_size_bytes", "68719476736\n");
	char *model = amd_body(apu, 4, 5348, 25258000, 0), *hip = amd_body(dgpu, 7, 4194304, 0, 0);
	dt_proc(root, 7000, 70, "llama-server");
	dt_fd(root, 7000, 7, "/dev/dri/renderD128", model);
	dt_proc(root, 7100, 71, "python3");
	dt_fd(root, 7100, 3, "/dev/kfd", NULL);
	dt_fd(root, 7100, 9, "/dev/dri/renderD129", hip);
	dt_proc(root, 1383, 72, "ze-app");
	dt_fd(root, 1383, 8, "/dev/dri/renderD130", xe);

	json_t *j = run_json(bin, root, "--json --no-probe");
	tu_check(json_array_size(json_object_get(j, "gpus")) == 3, "compute: 3 GPUs");
	/* by dedicated memory: xe (128 GiB), discrete AMD (8 GiB), APU (512 MiB) */
	tu_check(!strcmp(str(gpu_at(j, 0), "pci_bus_id"), xslot) && !strcmp(str(gpu_at(j, 1), "pci_bus_id"), dgpu) &&
		      !strcmp(str(gpu_at(j, 2), "pci_bus_id"), apu),
	      "compute: order xe, discrete, APU; got %s %s %s", str(gpu_at(j, 0), "pci_bus_id"),
	      str(gpu_at(j, 1), "pci_bus_id"), str(gpu_at(j, 2), "pci_bus_id"));
	tu_check(json_is_true(json_object_get(gpu_at(j, 2), "is_apu")), "compute: the APU says so");
	json_t *m = use_of(j, 7000, 2);
	tu_check(m && num(m, "vram_bytes") == (5348ll + 25258000ll) * 1024 && json_is_null(json_object_get(m, "spill_bytes")),
	      "APU: the model in GTT is GPU memory, not spill (vram %lld)", m ? num(m, "vram_bytes") : -1);
	json_t *h = use_of(j, 7100, 1);
	tu_check(h && num(h, "vram_bytes") == 4194304ll * 1024, "HIP: VRAM from fdinfo");
	tu_check(h && json_is_true(json_object_get(h, "compute")), "HIP: compute");
	tu_check(h && json_is_null(json_object_get(h, "sm_pct")) && json_is_null(json_object_get(h, "graphics_pct")),
	      "HIP: engine load null, never 0");
	json_t *x = use_of(j, 1383, 0);
	tu_check(x && num(x, "vram_bytes") == (65072580ll + 63753540ll) * 1024, "xe: two tiles' VRAM (%lld)",
	      x ? num(x, "vram_bytes") : -1);
	tu_check(x && num(x, "spill_bytes") == 264ll * 1024, "xe: GTT as spill");
	tu_check(x && json_is_null(json_object_get(x, "sm_pct")), "xe: one sample, compute load null");
	json_decref(j);
	free(model);
	free(hip);
	free(xe);
	tu_rmrf(root);
	free(root);
}

static json_t *process_of(json_t *snap, long long pid)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(snap, "processes"), i, p)
		if (json_integer_value(json_object_get(p, "pid")) == pid)
			return p;
	return NULL;
}

static bool ref_null(json_t *u, const char *key)
{
	json_t *ref = u ? json_object_get(u, "drm_reference") : NULL;
	return ref && json_is_null(json_object_get(ref, key));
}

static bool any_note(json_t *snap, const char *text)
{
	size_t i;
	json_t *n;
	json_array_foreach(json_object_get(snap, "notes"), i, n)
		if (strstr(json_string_value(n) ?: "", text))
			return true;
	return false;
}

/* What the issue 7 review found: an unparseable value read as 0 B, engine-only
 * clients giving 0 B references and an "unattributed 0 B" row, clients
 * without an id lost, PCI slots and driver names posing as uuid and version,
 * an X client called a game. */
static void review_cases(const char *bin)
{
	char *root = tu_tempdir();
	const char *amd = "0000:03:00.0", *igpu = "0000:00:02.0";

	amd_card(root, 0, amd, 0x744c, "25753026560\n", "samsung\n");
	dt_device(root, 1, 129, igpu, "i915", 0x8086, 0xa780);
	dt_proc(root, 100, 10, "odd");
	dt_fd(root, 100, 5, "/dev/dri/renderD128",
	      "drm-driver:\tamdgpu\ndrm-client-id:\t5\ndrm-resident-vram:\t2097152 kB\ndrm-shared-vram:\t0\n"
	      "drm-resident-gtt:\t4 KiB\ndrm-shared-gtt:\t0\n");
	dt_proc(root, 101, 11, "huge");
	dt_fd(root, 101, 5, "/dev/dri/renderD128",
	      "drm-driver:\tamdgpu\ndrm-client-id:\t6\ndrm-resident-vram:\t18014398509481983 GiB\n"
	      "drm-shared-vram:\t0\ndrm-resident-gtt:\t0\ndrm-shared-gtt:\t0\n");
	/* i915 before 6.7: engines only, one client shared by two processes */
	const char *eng = "drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t7\n"
			  "drm-engine-render:\t5 ns\ndrm-engine-video:\t0 ns\n";
	dt_proc(root, 200, 20, "xclock");
	dt_fd(root, 200, 5, "/dev/dri/renderD129", eng);
	dt_proc(root, 201, 21, "xclock");
	dt_fd(root, 201, 5, "/dev/dri/renderD129", eng);
	dt_proc(root, 300, 30, "noid");
	dt_fd(root, 300, 5, "/dev/dri/renderD128",
	      "drm-driver:\tamdgpu\ndrm-resident-vram:\t64 KiB\ndrm-shared-vram:\t0\n"
	      "drm-resident-gtt:\t8 KiB\ndrm-shared-gtt:\t0\n");

	json_t *j = run_json(bin, root, "--json --no-probe");
	for (int i = 0; i < 2; i++) {
		json_t *g = gpu_at(j, i);
		tu_check(json_is_null(json_object_get(g, "uuid")), "review: GPU %d uuid null (no unique id), got %s", i,
		      str(g, "uuid"));
		tu_check(json_is_null(json_object_get(g, "driver_version")),
		      "review: GPU %d driver_version null (no module version), got %s", i, str(g, "driver_version"));
	}
	for (long long pid = 100; pid <= 101; pid++) {
		json_t *u = use_of(j, pid, 0);
		tu_check(u && json_is_null(json_object_get(u, "vram_bytes")) && json_is_null(json_object_get(u, "spill_bytes")),
		      "unparseable (pid %lld): VRAM and spill null", pid);
		tu_check(u && !strcmp(str(u, "vram_na_reason"), "unparseable value"),
		      "unparseable (pid %lld): reason, got %s", pid, u ? str(u, "vram_na_reason") : "no row");
		tu_check(ref_null(u, "resident_vram_bytes") && ref_null(u, "resident_gtt_bytes") &&
			      ref_null(u, "shared_bytes"),
		      "unparseable (pid %lld): drm_reference fields null, no partial sum", pid);
	}
	json_t *e = use_of(j, 200, 1);
	tu_check(e && !strcmp(str(e, "vram_na_reason"), "driver reports no memory"),
	      "engine-only: reason, got %s", e ? str(e, "vram_na_reason") : "no row");
	tu_check(ref_null(e, "resident_vram_bytes") && ref_null(e, "resident_gtt_bytes") && ref_null(e, "shared_bytes"),
	      "engine-only: drm_reference fields null, never 0");
	tu_check(use_of(j, 0, 1) == NULL, "engine-only: no unattributed row on the Intel iGPU");
	json_t *xp = process_of(j, 200);
	tu_check(xp && !strcmp(str(xp, "category"), "other"),
	      "engine-only X client: category other (graphics client), not 3d; got %s (%s)",
	      xp ? str(xp, "category") : "no row", xp ? str(xp, "category_reason") : "");
	json_t *n = use_of(j, 300, 0), *un = use_of(j, 0, 0);
	tu_check(n && !strcmp(str(n, "vram_na_reason"), "no client id"), "no id: reason, got %s",
	      n ? str(n, "vram_na_reason") : "no row");
	tu_check(un && num(un, "vram_bytes") == 64ll * 1024, "no id: its bytes in the unattributed row only (%lld)",
	      un ? num(un, "vram_bytes") : -1);
	tu_check(any_note(j, "without drm-client-id"), "no id: a note says the row cannot be de-duplicated");
	json_decref(j);
	tu_rmrf(root);
	free(root);
}

/* An NVIDIA GPU that NVML (the fake library) and nvidia-drm both show, beside
 * an AMD card: listed once, from NVML, first. */
/* --json has no earlier refresh to take engine loads against: with a
 * client whose engine times are cumulative it samples again after a short
 * wait, so the loads are measured (0 %: the fixture's counters stand still)
 * where one sample could only say N/A. */
static void one_shot_second_sample(const char *bin)
{
	char *root = tu_tempdir();
	const char *igpu = "0000:00:02.0";

	dt_device(root, 0, 128, igpu, "i915", 0x8086, 0xa780);
	dt_proc(root, 400, 40, "glxgears");
	dt_fd(root, 400, 5, "/dev/dri/renderD128",
	      "drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t9\n"
	      "drm-engine-render:\t5000000 ns\ndrm-engine-video:\t0 ns\n");
	json_t *j = run_json(bin, root, "--json --no-probe");
	json_t *u = use_of(j, 400, 0);
	json_t *g = u ? json_object_get(u, "graphics_pct") : NULL;
	tu_check(json_is_number(g) && json_number_value(g) == 0,
	      "one shot: a second sample measures the client's render load (0 %%), not null");
	g = json_object_get(json_object_get(gpu_at(j, 0), "utilization"), "gpu_pct");
	tu_check(json_is_number(g) && json_number_value(g) == 0, "one shot: the iGPU's load measured (0 %%), not null");
	if (tu_failures())
		json_dumpf(j, stderr, JSON_INDENT(1));
	json_decref(j);
	tu_rmrf(root);
	free(root);
}

static void nvidia_beside_amd(const char *bin, const char *fake_nvml_dir)
{
	char *root = tu_tempdir(), scen[4096], env[8192];
	const char *amd = "0000:03:00.0";

	snprintf(scen, sizeof scen, "%s/nvml.scenario", root);
	const char *text = "device name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-e2e-drm bus=00000000:01:00.0 "
			   "mem_total=85520809984 mem_used=1048576\n";
	tu_write_file(scen, text, strlen(text));
	dt_device(root, 0, 128, "0000:01:00.0", "nvidia", 0x10de, 0x2330);
	amd_card(root, 1, amd, 0x744c, "25753026560\n", "samsung\n");
	char *game = amd_body(amd, 30, 1000, 0, 0);
	dt_proc(root, 3000, 700, "game");
	dt_fd(root, 3000, 40, "/dev/dri/renderD129", game);
	snprintf(env, sizeof env, "LD_LIBRARY_PATH='%s' GTM_FAKE_NVML_SCENARIO='%s'", fake_nvml_dir, scen);

	json_t *j = run_json_env(env, bin, root, "--json --no-probe");
	json_t *g0 = gpu_at(j, 0), *g1 = gpu_at(j, 1);
	tu_check(json_array_size(json_object_get(j, "gpus")) == 2, "NVIDIA+AMD: 2 GPUs (the H100 once), got %zu",
	      json_array_size(json_object_get(j, "gpus")));
	tu_check(!strcmp(str(g0, "source"), "nvml") && !strcmp(str(g0, "vendor"), "nvidia"),
	      "NVIDIA+AMD: GPU 0 is NVML's H100, got %s/%s", str(g0, "source"), str(g0, "vendor"));
	tu_check(!strcmp(str(g1, "pci_bus_id"), amd) && num(g1, "index") == 1, "NVIDIA+AMD: GPU 1 is the AMD card");
	json_t *u = use_of(j, 3000, 1);
	tu_check(u && num(u, "vram_bytes") == 1000ll * 1024, "NVIDIA+AMD: the AMD process follows its card to index 1");
	json_decref(j);
	free(game);
	tu_rmrf(root);
	free(root);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s GPUTASKMAN [FAKE_NVML_DIR]\n", argv[0]);
		return 2;
	}
	/* needs no capture: runs before the cases that skip without them */
	review_cases(argv[1]);
	one_shot_second_sample(argv[1]);
	if (tu_failures()) {
		fprintf(stderr, "%d check(s) failed\n", tu_failures());
		return 1;
	}
	desktop(argv[1]);
	compute(argv[1]);
	if (argc > 2)
		nvidia_beside_amd(argv[1], argv[2]);
	if (tu_failures())
		fprintf(stderr, "%d check(s) failed\n", tu_failures());
	return tu_failures() ? 1 : 0;
}
