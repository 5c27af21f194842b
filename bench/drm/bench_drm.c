/* DRM fdinfo scan: a generated /proc of N processes with F fds each, some of
 * them DRM clients, and a /sys/class/drm with one amdgpu card. Times the fd
 * scan cold (one-shot: every fd listed), a steady live refresh (cached lists),
 * and the whole source sample (scan + fdinfo reads + attribution).
 * Each timing is set beside the floor, measured in the same run, in turns:
 * one readlinkat of every fd (relative to the tree's /proc folder fd, the
 * paths built beforehand), nothing listed or parsed.
 * With --live first, the same on a real procfs, where GPUTASKMAN_ROOT is
 * unset and the scan takes the path the live view takes (live_procs.h).
 * Usage: bench_drm [--live] [PROCS FDS_PER_PROC DRM_PROCS RUNS]. Prints medians. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/snapshot.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "live_procs.h"
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

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_u64);
	return v[n / 2];
}

static uint64_t floor_wall_median, floor_cpu_median; /* set after the floor's report */

static void report(const char *what, uint64_t *wall, uint64_t *cpu, int n)
{
	uint64_t w = median(wall, n);
	printf("%-34s wall median %7.3f ms  min %7.3f ms   cpu median %7.3f ms", what, w / 1e6, wall[0] / 1e6,
	       median(cpu, n) / 1e6);
	if (floor_wall_median)
		printf("   %.2fx the floor (CPU %.2fx)", (double)w / (double)floor_wall_median,
		       (double)median(cpu, n) / (double)floor_cpu_median);
	printf("\n");
}

/* The floor: one readlinkat per fd, the paths ready, nothing parsed. */
struct fd_floor {
	int procfd;
	char (*paths)[32];
	int n;
};

static void floor_init(struct fd_floor *f, const char *proc, const pid_t *pids, int procs, int fds)
{
	f->procfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	f->n = procs * fds;
	f->paths = xcalloc((size_t)f->n, sizeof *f->paths);
	for (int i = 0; i < procs; i++)
		for (int k = 0; k < fds; k++)
			snprintf(f->paths[i * fds + k], sizeof f->paths[0], "%d/fd/%d", (int)pids[i], k);
}

static void floor_run(const struct fd_floor *f)
{
	char target[256];
	for (int i = 0; i < f->n; i++)
		if (readlinkat(f->procfd, f->paths[i], target, sizeof target) <= 0)
			abort();
}

/* The floor taking turns with the cold and the steady scan, run by run. */
static void measure_scans(struct fd_floor *fl, int runs)
{
	uint64_t *wall = xcalloc((size_t)runs, sizeof *wall), *cpu = xcalloc((size_t)runs, sizeof *cpu);
	uint64_t *fwall = xcalloc((size_t)runs * 2, sizeof *fwall), *fcpu = xcalloc((size_t)runs * 2, sizeof *fcpu);
	uint64_t *swall = xcalloc((size_t)runs, sizeof *swall), *scpu = xcalloc((size_t)runs, sizeof *scpu);
	struct drm_scan s;
	drm_scan_init(&s);
	drm_scan_refresh(&s, false, 50000000);
	floor_run(fl); /* warm-up: dentries and inodes of the tree */
	for (int r = 0; r < runs; r++) {
		uint64_t w = now_monotonic_ns(), c = cpu_ns();
		floor_run(fl);
		fwall[2 * r] = now_monotonic_ns() - w;
		fcpu[2 * r] = cpu_ns() - c;

		struct drm_scan cold;
		drm_scan_init(&cold);
		w = now_monotonic_ns(), c = cpu_ns();
		drm_scan_refresh(&cold, true, 0);
		wall[r] = now_monotonic_ns() - w;
		cpu[r] = cpu_ns() - c;
		drm_scan_free(&cold);

		w = now_monotonic_ns(), c = cpu_ns();
		floor_run(fl);
		fwall[2 * r + 1] = now_monotonic_ns() - w;
		fcpu[2 * r + 1] = cpu_ns() - c;

		w = now_monotonic_ns(), c = cpu_ns();
		drm_scan_refresh(&s, false, 50000000);
		swall[r] = now_monotonic_ns() - w;
		scpu[r] = cpu_ns() - c;
	}
	int found = 0;
	for (size_t i = 0; i < s.n; i++)
		found += s.procs[i].n_fds;
	drm_scan_free(&s);
	printf("the steady scan holds %d DRM fds\n", found);
	report("floor (one readlinkat per fd)", fwall, fcpu, runs * 2);
	floor_wall_median = median(fwall, runs * 2);
	floor_cpu_median = median(fcpu, runs * 2);
	report("fd scan, cold (one-shot)", wall, cpu, runs);
	report("fd scan, steady (live, cached)", swall, scpu, runs);
	printf("  targets: cold <= 1.5x the floor, steady <= 0.5x\n");
	free(fwall), free(fcpu), free(swall), free(scpu), free(wall), free(cpu);
}

/* The whole DRM source, one-shot, on the replayed tree (its sysfs card). */
static void measure_source(int runs)
{
	uint64_t *wall = xcalloc((size_t)runs, sizeof *wall), *cpu = xcalloc((size_t)runs, sizeof *cpu);
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
}

static int run_live(int procs, int fds, int drm_procs, int runs)
{
	pid_t *pids = live_procs_start(procs, fds, drm_procs);
	if (!pids)
		return 77;
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	printf("live procfs: %d stopped processes x %d fds = %d fds, %d DRM clients (and this bench, PID 1)\n",
	       procs, fds, procs * fds, drm_procs * 2);
	struct fd_floor fl;
	floor_init(&fl, "/proc", pids, procs, fds);
	measure_scans(&fl, runs);
	close(fl.procfd);
	free(fl.paths);
	live_procs_stop(pids, procs);
	return 0;
}

static int run_replay(int procs, int fds, int drm_procs, int runs)
{
	char root[256], proc[300];
	snprintf(root, sizeof root, "%s/gtm-bench-drm-XXXXXX", getenv("BENCH_TMP") ? getenv("BENCH_TMP") : "/tmp");
	if (!mkdtemp(root))
		return 2;
	gen_tree(root, procs, fds, drm_procs);
	setenv("GPUTASKMAN_ROOT", root, 1);
	sysroot_reset();
	printf("tree %s: %d processes x %d fds = %d fds, %d DRM clients\n", root, procs, fds, procs * fds,
	       drm_procs * 2);
	pid_t *pids = xcalloc((size_t)procs, sizeof *pids);
	for (int i = 0; i < procs; i++)
		pids[i] = 1000 + i;
	struct fd_floor fl;
	snprintf(proc, sizeof proc, "%s/proc", root);
	floor_init(&fl, proc, pids, procs, fds);
	measure_scans(&fl, runs);
	close(fl.procfd);
	free(fl.paths);
	free(pids);
	measure_source(runs);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	bool live = argc > 1 && strcmp(argv[1], "--live") == 0;
	if (live)
		argc--, argv++;
	int procs = argc > 1 ? atoi(argv[1]) : 400, fds = argc > 2 ? atoi(argv[2]) : 20;
	int drm_procs = argc > 3 ? atoi(argv[3]) : 40, runs = argc > 4 ? atoi(argv[4]) : 21;
	if (procs < 1 || fds < 2 || runs < 1)
		return 2;
	return live ? run_live(procs, fds, drm_procs, runs) : run_replay(procs, fds, drm_procs, runs);
}
