/* DRM fdinfo scan: a generated /proc of N processes with F fds each, some of
 * them DRM clients, and a /sys/class/drm with one amdgpu card. Times the fd
 * scan cold (one-shot: every fd listed), a steady live refresh (cached lists),
 * and the whole source sample (scan + fdinfo reads + attribution).
 * Usage: bench_drm [PROCS FDS_PER_PROC DRM_PROCS RUNS]. Prints medians. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/snapshot.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "sources/drm.h"
#include "sources/drm_scan.h"

static void mkdirs(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

static void put(const char *path, const char *data)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(data, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void gen_tree(const char *root, int procs, int fds, int drm_procs)
{
	char p[4096], body[1024];
	static const char *const plain[] = {"/dev/null", "socket:[4242]", "pipe:[99]", "/var/log/app.log",
					    "anon_inode:[eventfd]", "/usr/lib/x86_64-linux-gnu/libc.so.6"};

	snprintf(p, sizeof p, "%s/sys/devices/pci0000:00/0000:03:00.0", root);
	mkdirs(p);
	snprintf(p, sizeof p, "%s/sys/devices/pci0000:00/0000:03:00.0/uevent", root);
	put(p, "DRIVER=amdgpu\nPCI_ID=1002:744C\nPCI_SLOT_NAME=0000:03:00.0\n");
	for (int k = 0; k < 2; k++) {
		snprintf(p, sizeof p, "%s/sys/class/drm/%s", root, k ? "renderD128" : "card0");
		mkdirs(p);
		strcat(p, "/device");
		if (symlink("../../../devices/pci0000:00/0000:03:00.0", p) != 0 && errno != EEXIST)
			perror(p);
	}
	for (int i = 0; i < procs; i++) {
		unsigned pid = 1000u + (unsigned)i;
		snprintf(p, sizeof p, "%s/proc/%u/fd", root, pid);
		mkdirs(p);
		snprintf(p, sizeof p, "%s/proc/%u/fdinfo", root, pid);
		mkdirs(p);
		snprintf(p, sizeof p, "%s/proc/%u/stat", root, pid);
		snprintf(body, sizeof body,
			 "%u (worker) S 1 %u %u 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 4 0 %u 1 2 3\n", pid, pid,
			 pid, pid);
		put(p, body);
		for (int f = 0; f < fds; f++) {
			bool drm = i < drm_procs && f >= fds - 2;
			snprintf(p, sizeof p, "%s/proc/%u/fd/%d", root, pid, f);
			if (symlink(drm ? (f == fds - 1 ? "/dev/dri/renderD128" : "/dev/dri/card0") : plain[f % 6], p) != 0 &&
			    errno != EEXIST)
				perror(p);
			snprintf(p, sizeof p, "%s/proc/%u/fdinfo/%d", root, pid, f);
			if (drm)
				snprintf(body, sizeof body,
					 "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t614\ndrm-driver:\tamdgpu\n"
					 "drm-pdev:\t0000:03:00.0\ndrm-client-id:\t%u\ndrm-total-vram:\t4096 KiB\n"
					 "drm-shared-vram:\t0\ndrm-resident-vram:\t4096 KiB\ndrm-total-gtt:\t512 KiB\n"
					 "drm-shared-gtt:\t0\ndrm-resident-gtt:\t512 KiB\ndrm-memory-vram:\t4096 KiB\n"
					 "drm-memory-gtt:\t512 KiB\ndrm-engine-gfx:\t%u ns\n",
					 pid * 2 + (unsigned)(f & 1), pid * 1000);
			else
				snprintf(body, sizeof body, "pos:\t0\nflags:\t02\nmnt_id:\t25\nino:\t%d\n", f);
			put(p, body);
		}
	}
}

static uint64_t cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void report(const char *what, uint64_t *wall, uint64_t *cpu, int n)
{
	qsort(wall, (size_t)n, sizeof *wall, cmp_u64);
	qsort(cpu, (size_t)n, sizeof *cpu, cmp_u64);
	printf("%-34s wall median %7.3f ms  min %7.3f ms   cpu median %7.3f ms\n", what, wall[n / 2] / 1e6,
	       wall[0] / 1e6, cpu[n / 2] / 1e6);
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 400, fds = argc > 2 ? atoi(argv[2]) : 20;
	int drm_procs = argc > 3 ? atoi(argv[3]) : 40, runs = argc > 4 ? atoi(argv[4]) : 21;
	char root[256];
	snprintf(root, sizeof root, "%s/gtm-bench-drm-XXXXXX", getenv("BENCH_TMP") ? getenv("BENCH_TMP") : "/tmp");
	uint64_t *wall = xcalloc((size_t)runs, sizeof *wall), *cpu = xcalloc((size_t)runs, sizeof *cpu);

	if (procs < 1 || fds < 2 || runs < 1 || !mkdtemp(root))
		return 2;
	gen_tree(root, procs, fds, drm_procs);
	setenv("GPUTASKMAN_ROOT", root, 1);
	sysroot_reset();
	printf("tree %s: %d processes x %d fds = %d fds, %d DRM clients\n", root, procs, fds, procs * fds,
	       drm_procs * 2);

	for (int r = 0; r < runs; r++) {
		struct drm_scan s;
		drm_scan_init(&s);
		uint64_t w = now_monotonic_ns(), c = cpu_ns();
		drm_scan_refresh(&s, true, 0);
		wall[r] = now_monotonic_ns() - w;
		cpu[r] = cpu_ns() - c;
		drm_scan_free(&s);
	}
	report("fd scan, cold (one-shot)", wall, cpu, runs);

	struct drm_scan s;
	drm_scan_init(&s);
	drm_scan_refresh(&s, false, 50000000);
	for (int r = 0; r < runs; r++) {
		uint64_t w = now_monotonic_ns(), c = cpu_ns();
		drm_scan_refresh(&s, false, 50000000);
		wall[r] = now_monotonic_ns() - w;
		cpu[r] = cpu_ns() - c;
	}
	drm_scan_free(&s);
	report("fd scan, steady (live, cached)", wall, cpu, runs);

	struct gtm_source_opts o = {.one_shot = true};
	struct gtm_source_status st = {0};
	void *priv = drm_source_ops.open(&o, &st);
	struct gtm_raw_uses uses = {0};
	for (int r = 0; r < runs && priv; r++) {
		struct gtm_snapshot *snap = snapshot_new();
		raw_uses_clear(&uses);
		uint64_t w = now_monotonic_ns(), c = cpu_ns();
		drm_source_ops.sample(priv, snap, &uses, &st);
		wall[r] = now_monotonic_ns() - w;
		cpu[r] = cpu_ns() - c;
		snapshot_free(snap);
	}
	if (priv) {
		report("source sample (one-shot, whole)", wall, cpu, runs);
		printf("  %zu uses, %s\n", uses.n, st.message);
		drm_source_ops.close(priv);
	}
	raw_uses_free(&uses);
	free(wall);
	free(cpu);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : 1;
}
