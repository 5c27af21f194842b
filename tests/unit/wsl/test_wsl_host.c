/* The Linux side around the stream: detection from fixture roots (two
 * signals needed), the helper's command (GPUTASKMAN_WSL_RUN, placement in a
 * Windows-side cache folder, the PowerShell fallback's encoding), and the
 * host adapter ↔ device pairing by memory use, the hint cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/wsl_pair.h"
#include "collect/wsl_rows.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "platform.h"
#include "wsl_detect.h"
#include "wsl_helper.h"
#include "wsl_stream.h"

static char tmp[256];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	snprintf(path, sizeof path, "%s%s", tmp, rel);
	str_copy(dir, path, sizeof dir);
	for (char *s = dir + strlen(tmp) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int detect_in(const char *root)
{
	struct wsl_signals s;
	setenv("GPUTASKMAN_ROOT", root, 1);
	unsetenv("WSL_DISTRO_NAME");
	sysroot_reset();
	int n = wsl_detect(&s);
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	return n;
}

static void detection(void **state)
{
	(void)state;
	char root[300];
	snprintf(root, sizeof root, "%s", tmp);
	put("/proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n");
	assert_int_equal(detect_in(root), 1); /* one signal is not WSL */
	put("/proc/sys/fs/binfmt_misc/WSLInterop-late", "disabled\ninterpreter /init\n");
	assert_int_equal(detect_in(root), 2);
	put("/dev/dxg", "");
	setenv("GPUTASKMAN_ROOT", root, 1);
	sysroot_reset();
	struct wsl_signals s;
	assert_int_equal(wsl_detect(&s), 3);
	assert_true(s.interop_registered);
	assert_false(s.interop_enabled); /* registered, switched off */
	put("/proc/sys/fs/binfmt_misc/WSLInterop", "enabled\ninterpreter /init\n");
	wsl_detect(&s);
	assert_true(s.interop_enabled);
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
}

static void command_run(void **state)
{
	(void)state;
	struct wsl_cmd c;
	char why[160];
	setenv("GPUTASKMAN_WSL_RUN", "/usr/lib/wine/wine64", 1);
	setenv("GPUTASKMAN_WSL_HELPER", "/opt/gtm/gputaskman.exe", 1);
	assert_int_equal(wsl_helper_command(&c, 250, NULL, why, sizeof why), 0);
	assert_string_equal(c.argv[0], "/usr/lib/wine/wine64");
	assert_string_equal(c.argv[1], "/opt/gtm/gputaskman.exe");
	assert_string_equal(c.argv[2], "--host-stream");
	assert_string_equal(c.argv[4], "250");
	assert_null(c.argv[5]);
	assert_string_equal(c.cwd, "");
	wsl_helper_command_free(&c);
	unsetenv("GPUTASKMAN_WSL_RUN");
}

static void command_placed(void **state)
{
	(void)state;
	struct wsl_cmd c;
	char why[160], src[300], cache[300], placed[600];
	struct stat st;
	snprintf(src, sizeof src, "%s/bin/gputaskman.exe", tmp);
	put("/bin/gputaskman.exe", "MZ this build");
	snprintf(cache, sizeof cache, "%s/mnt/c/ProgramData/gtm", tmp);
	put("/mnt/c/ProgramData/.keep", "");
	setenv("GPUTASKMAN_WSL_HELPER", src, 1);
	setenv("GPUTASKMAN_WSL_CACHE", cache, 1);
	assert_int_equal(wsl_helper_command(&c, 1000, NULL, why, sizeof why), 0);
	snprintf(placed, sizeof placed, "%s/gputaskman.exe", cache);
	assert_string_equal(c.argv[0], placed); /* the copy runs, from its Windows folder */
	assert_string_equal(c.cwd, cache);
	assert_string_equal(c.what, "gputaskman.exe");
	assert_int_equal(stat(placed, &st), 0);
	assert_int_equal(st.st_size, 13);
	wsl_helper_command_free(&c);
	put("/bin/gputaskman.exe", "MZ a newer build"); /* another size: copied again */
	assert_int_equal(wsl_helper_place(src, cache, "gputaskman.exe", placed, sizeof placed), 0);
	assert_int_equal(stat(placed, &st), 0);
	assert_int_equal(st.st_size, 16);
	/* another gputaskman's copy under way (its temporary file): this one's is its own */
	char theirs[700];
	snprintf(theirs, sizeof theirs, "%s/gputaskman.exe.tmp", cache);
	assert_int_equal(mkdir(theirs, 0755), 0); /* a name this process cannot write */
	put("/bin/gputaskman.exe", "MZ a third build, longer");
	assert_int_equal(wsl_helper_place(src, cache, "gputaskman.exe", placed, sizeof placed), 0);
	assert_int_equal(stat(placed, &st), 0);
	assert_int_equal(st.st_size, 24);
	rmdir(theirs);
	/* a cache that cannot be made: the PowerShell fallback, absent here: a reason */
	setenv("GPUTASKMAN_WSL_CACHE", "/proc/no/such/dir", 1);
	if (access("/mnt/c/Windows/System32/WindowsPowerShell/v1.0/powershell.exe", X_OK) != 0) {
		char msg[1024];
		const char *ps = "and no PowerShell at /mnt/c/Windows/System32/WindowsPowerShell/v1.0/powershell.exe (";
		/* each step that failed is named, with why, and PowerShell's whole path */
		assert_int_equal(wsl_helper_command(&c, 1000, NULL, msg, sizeof msg), -1);
		assert_non_null(strstr(msg, "gputaskman.exe could not be copied to /proc/no/such/dir ("));
		assert_non_null(strstr(msg, ps));
		wsl_helper_command_free(&c);
		assert_int_equal(wsl_helper_command(&c, 1000, "gputaskman.exe exited (status 1): no PDH", msg, sizeof msg), -1);
		assert_non_null(strstr(msg, "gputaskman.exe ran and gave no line, twice (gputaskman.exe exited (status 1): no PDH)"));
		assert_null(strstr(msg, "not installed"));
		assert_non_null(strstr(msg, ps));
		wsl_helper_command_free(&c);
		setenv("GPUTASKMAN_WSL_HELPER", "/no/such/gputaskman.exe", 1);
		assert_int_equal(wsl_helper_command(&c, 1000, NULL, msg, sizeof msg), -1);
		assert_non_null(strstr(msg, "no gputaskman.exe at /no/such/gputaskman.exe (No such file or directory)"));
		wsl_helper_command_free(&c);
		/* the header's field holds it whole */
		struct gtm_host_stream hs;
		assert_true(strlen(msg) < sizeof hs.why);
	}
	unsetenv("GPUTASKMAN_WSL_CACHE");
	unsetenv("GPUTASKMAN_WSL_HELPER");
}

static void powershell_encoding(void **state)
{
	(void)state;
	char *e = wsl_ps_encode("ab");
	assert_string_equal(e, "YQBiAA=="); /* base64 of UTF-16LE "ab" */
	free(e);
	e = wsl_ps_encode("abc");
	assert_string_equal(e, "YQBiAGMA");
	free(e);
	char *s = wsl_ps_script(750);
	assert_non_null(strstr(s, "$ms=750;"));
	assert_non_null(strstr(s, "GTMH1 seq=$seq"));
	assert_null(strstr(s, "__MS__"));
	free(s);
}

static int count_of(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* The PowerShell fallback cannot run here (no Windows): its text is checked
 * for what the protocol needs. A sample with a bad status (or none) is '-',
 * never 0; every value written goes through F/G ('-' for a missing one, never
 * "key=", which refuses the line); engine loads are keyed by PID and adapter. */
static void powershell_script_properties(void **state)
{
	(void)state;
	char *s = wsl_ps_script(1000);
	assert_non_null(strstr(s, "$ok=($s.Status -eq 0) -and ($null -ne $s.CookedValue); $d=$null; $v='-'"));
	assert_non_null(strstr(s, "if($ok){$d=[math]::Max(0,[double]$s.CookedValue)"));
	assert_int_equal(count_of(s, "CookedValue"), 2); /* the guard, the guarded read: no other */
	for (const char *p = s; (p = strstr(p, "=$(")); p++) { /* every key=$(...) value */
		const char *v = p + 3;
		if (strncmp(v, "F ", 2) && strncmp(v, "G ", 2) && strncmp(v, "E ", 2) && strncmp(v, "$vm.Count)", 10))
			fail_msg("a value written unguarded: %.40s", p - 8);
	}
	assert_non_null(strstr(s, "function F($x){if($null -eq $x){'-'}"));
	assert_non_null(strstr(s, "_luid_(0x[0-9a-f]{8}_0x[0-9a-f]{8})_.*_engtype_(.+)$"));
	assert_non_null(strstr(s, "$_.StartsWith(\"$k|\")")); /* $k: pid|luid */
	assert_null(strstr(s, "StartsWith(\"$pid_|\")"));
	free(s);
}

static void pairing(void **state)
{
	(void)state;
	struct gtm_snapshot *snap = snapshot_new();
	struct wsl_host_sample *s = calloc(1, sizeof *s);
	int dev[WSL_MAX_ADAPTERS];
	struct gtm_device *d = snapshot_add_device(snap);
	d->index = 0;
	d->mem_used = gtm_u64_of(3 * GIB, GTM_MEASURED);
	s->n_adapters = 1;
	s->adapters[0].dedicated = gtm_u64_of(3 * GIB + 100 * MIB, GTM_MEASURED);
	wsl_pair_adapters(s, snap, dev);
	assert_int_equal(dev[0], 0);
	s->adapters[0].dedicated = gtm_u64_of(6 * GIB, GTM_MEASURED); /* nothing that close */
	wsl_pair_adapters(s, snap, dev);
	assert_int_equal(dev[0], -1);
	d = snapshot_add_device(snap); /* two devices using as much: ambiguous */
	d->index = 1;
	d->mem_used = gtm_u64_of(6 * GIB + 10 * MIB, GTM_MEASURED);
	snap->devices[0].mem_used = gtm_u64_of(6 * GIB - 10 * MIB, GTM_MEASURED);
	wsl_pair_adapters(s, snap, dev);
	assert_int_equal(dev[0], -1);
	s->adapters[0].dedicated = GTM_U64_NA; /* no reading: never a guess */
	wsl_pair_adapters(s, snap, dev);
	assert_int_equal(dev[0], -1);
	free(s);
	snapshot_free(snap);
}

/* Every host adapter unmatched, a /dev/dxg holder pending: the holder goes on
 * the NVIDIA device, never on what lies in dev[] past the sample's adapters. */
static void pending_without_paired_adapter(void **state)
{
	(void)state;
	struct gtm_snapshot *snap = snapshot_new();
	struct gtm_device *d = snapshot_add_device(snap);
	d->index = 3;
	d->vendor = GTM_VENDOR_NVIDIA;
	struct gtm_process *p = snapshot_add_process(snap);
	p->pid = 700;
	p->start_time = 55;
	struct wsl_row row = {.adapter = -1, .ctx = -1, .owner = WSL_OWNER_PENDING, .pid = 700, .start = 55};
	struct wsl_result r = {.rows = &row, .n_rows = 1};
	const int dev[WSL_MAX_ADAPTERS] = {-1, 22010, 21923, 22010}; /* past n_adapters: not the sample's */
	wsl_apply_rows(snap, &r, dev, 1);
	assert_int_equal(snap->processes[0].n_uses, 1);
	assert_int_equal(snap->processes[0].uses[0].dev_index, 3);
	assert_false(gtm_u64_ok(snap->processes[0].uses[0].vram)); /* N/A, not 0 */
	snapshot_free(snap);
}

static struct gtm_gpu_use *vm_row_of(struct gtm_snapshot *snap, const struct wsl_host_sample *s)
{
	wsl_add_vm_row(snap, s, 0, 0, 0, 0);
	struct gtm_process *p = &snap->processes[snap->n_processes - 1];
	assert_true(p->wsl_vm_row);
	assert_int_equal(p->n_uses, 1);
	return &p->uses[0];
}

/* A host sample of vmwp.exe 4242 with two contexts on one adapter. */
static struct wsl_host_sample *two_contexts(struct wsl_ctx newer, struct wsl_ctx older)
{
	struct wsl_host_sample *s = calloc(1, sizeof *s);
	s->vmwp_pid = 4242;
	s->n_adapters = 1;
	s->adapters[0].vm.n = 2;
	s->adapters[0].vm.ctx[0] = newer;
	s->adapters[0].vm.ctx[1] = older;
	return s;
}

/* A context without Total Committed ('-') makes the VM row's paged N/A, not
 * "0 (estimated)"; the matched row's too. */
static void committed_unavailable(void **state)
{
	(void)state;
	struct gtm_snapshot *snap = snapshot_new();
	struct wsl_host_sample *s = two_contexts((struct wsl_ctx){.local = GIB, .committed = 2 * GIB},
						 (struct wsl_ctx){.local = GIB, .committed_na = true});
	struct gtm_gpu_use *u = vm_row_of(snap, s);
	assert_int_equal(u->vram.v, 2 * GIB);
	assert_false(gtm_u64_ok(u->paged));
	s->adapters[0].vm.ctx[1].committed_na = false; /* both known: the estimate */
	s->adapters[0].vm.ctx[1].committed = 2 * GIB;
	u = vm_row_of(snap, s);
	assert_int_equal(u->paged.v, 2 * GIB);
	assert_int_equal(u->paged.prov, GTM_ESTIMATED);
	struct gtm_process *p = snapshot_add_process(snap);
	p->pid = 700;
	struct wsl_row row = {.adapter = 0, .ctx = 1, .owner = WSL_OWNER_PROC, .pid = 700, .matched = true,
			      .v = {.local = GIB, .committed_na = true}};
	struct wsl_result r = {.rows = &row, .n_rows = 1};
	const int dev[WSL_MAX_ADAPTERS] = {0, -1, -1, -1};
	wsl_apply_rows(snap, &r, dev, 1);
	p = &snap->processes[snap->n_processes - 1];
	assert_int_equal(p->uses[0].vram.prov, GTM_MATCHED);
	assert_false(gtm_u64_ok(p->uses[0].paged));
	free(s);
	snapshot_free(snap);
}

/* Sums that would wrap are N/A, never a small "measured" number. */
static void sums_do_not_wrap(void **state)
{
	(void)state;
	struct gtm_snapshot *snap = snapshot_new();
	struct wsl_host_sample *s = two_contexts((struct wsl_ctx){.local = 2 * GIB, .committed = 2 * GIB},
						 (struct wsl_ctx){.local = UINT64_MAX, .committed = UINT64_MAX});
	struct gtm_gpu_use *u = vm_row_of(snap, s);
	assert_false(gtm_u64_ok(u->vram));
	assert_false(gtm_u64_ok(u->paged));
	free(s);
	snapshot_free(snap);
}

/* --once with the helper exe failing: the wait is not over at its first
 * failure while the PowerShell fallback is still due within the bound (here
 * absent, so the fallback's own failure settles it, and says so). */
static void once_waits_for_the_fallback(void **state)
{
	(void)state;
	char src[300], cache[300];
	struct gtm_host_stream st; /* a copy: read after the stream is stopped */
	if (access("/mnt/c/Windows/System32/WindowsPowerShell/v1.0/powershell.exe", X_OK) == 0)
		skip(); /* a real fallback here would answer */
	put("/failing/gputaskman.exe", "#!/bin/sh\nexit 1\n"); /* an exe that dies without a line */
	snprintf(src, sizeof src, "%s/failing/gputaskman.exe", tmp);
	assert_int_equal(chmod(src, 0755), 0);
	snprintf(cache, sizeof cache, "%s/failing/cache", tmp);
	setenv("GPUTASKMAN_WSL_HELPER", src, 1);
	setenv("GPUTASKMAN_WSL_CACHE", cache, 1);
	unsetenv("GPUTASKMAN_WSL_RUN");
	struct wsl_stream *w = wsl_stream_start(1.0);
	assert_false(wsl_stream_wait(w, 8ull * 1000000000ull));
	wsl_stream_get(w, NULL, &st);
	wsl_stream_stop(w);
	unsetenv("GPUTASKMAN_WSL_HELPER");
	unsetenv("GPUTASKMAN_WSL_CACHE");
	assert_string_equal(st.state, "failed");
	if (!strstr(st.why, "WindowsPowerShell"))
		fail_msg("the wait ended before the fallback was tried: %s", st.why);
}

/* Hints are cached per boot id under the cache folder; a bad boot id writes nothing. */
static void hint_cache(void **state)
{
	(void)state;
	uint64_t in[] = {128 * MIB, 0, 3 * GIB}, out[8];
	char path[512];
	setenv("XDG_CACHE_HOME", tmp, 1);
	platform_wsl_hints_save(NULL, "8d2c3a4e-1111-4222-8333-444455556666", in, 3);
	snprintf(path, sizeof path, "%s/gputaskman/wsl-hints-8d2c3a4e-1111-4222-8333-444455556666", tmp);
	assert_int_equal(access(path, R_OK), 0);
	assert_int_equal(platform_wsl_hints_load(NULL, "8d2c3a4e-1111-4222-8333-444455556666", out, 8), 3);
	assert_int_equal(out[2], 3 * GIB);
	assert_int_equal(platform_wsl_hints_load(NULL, "another-boot", out, 8), 0);
	platform_wsl_hints_save(NULL, "../../etc/x", in, 3); /* not a boot id: refused */
	snprintf(path, sizeof path, "%s/gputaskman/wsl-hints-../../etc/x", tmp);
	assert_int_not_equal(access(path, F_OK), 0);
	unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/gtm-wslhost-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(detection), cmocka_unit_test(command_run), cmocka_unit_test(command_placed),
		cmocka_unit_test(powershell_encoding), cmocka_unit_test(powershell_script_properties), cmocka_unit_test(pairing), cmocka_unit_test(hint_cache),
		cmocka_unit_test(pending_without_paired_adapter), cmocka_unit_test(committed_unavailable),
		cmocka_unit_test(sums_do_not_wrap), cmocka_unit_test(once_waits_for_the_fallback),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
