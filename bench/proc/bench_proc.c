/* Cost of the /proc scan alone, over a known set of processes: forks N idle
 * children (default 500), then measures the CPU time of a steady scan (the
 * live view's refresh: cached details), a cold scan (a new cache: every
 * detail read), of `ps -e -o pid,comm,rss` over the same processes, and the
 * kernel's floor (list /proc, open+read+close every stat, nothing else).
 * Prints medians. Usage: bench_proc [N_CHILDREN] [N_REFRESHES] */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/snapshot.h"
#include "proc.h"

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double children_cpu_ms(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

/* One scan; returns its CPU ms (all threads) and the process count, and its
 * wall ms through *wall when not NULL. */
static double timed_scan(struct proc_cache *c, int *procs, double *wall)
{
	struct proc_scan_opts o = {.budget_ns = 0};
	double w0 = wall_ms(), t0 = cpu_ms();
	struct gtm_snapshot *s = snapshot_new();
	if (proc_cache_scan(c, s, &o) != 0) {
		fprintf(stderr, "bench_proc: cannot list /proc\n");
		exit(1);
	}
	*procs = s->n_procs_total;
	double cpu = cpu_ms() - t0;
	if (wall)
		*wall = wall_ms() - w0;
	snapshot_free(s);
	return cpu;
}

/* The kernel's floor for a steady scan: list /proc and read every stat once,
 * nothing parsed or kept. */
static double timed_floor(void)
{
	char path[64], buf[1024];
	double t0 = cpu_ms();
	DIR *d = opendir("/proc");
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "%s/stat", e->d_name);
		int fd = openat(dirfd(d), path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, buf, sizeof buf) < 0)
			buf[0] = '\0';
		close(fd);
	}
	closedir(d);
	return cpu_ms() - t0;
}

/* The alternative floor of keeping every stat open and re-reading it with
 * pread (no path walk, no open/close): what holding one fd per process would
 * save. fds[] is filled on the first call. */
static double timed_pread_floor(int *fds, int *nfds, int cap)
{
	char path[64], buf[1024];
	if (*nfds == 0) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		while (d && (e = readdir(d)) && *nfds < cap) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			snprintf(path, sizeof path, "%s/stat", e->d_name);
			int fd = openat(dirfd(d), path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				fds[(*nfds)++] = fd;
		}
		if (d)
			closedir(d);
	}
	double t0 = cpu_ms();
	DIR *d = opendir("/proc"); /* a scan still lists /proc to find new PIDs */
	while (d && readdir(d))
		;
	if (d)
		closedir(d);
	for (int i = 0; i < *nfds; i++)
		if (pread(fds[i], buf, sizeof buf, 0) < 0)
			buf[0] = '\0';
	return cpu_ms() - t0;
}

static double timed_ps(void)
{
	double t0 = children_cpu_ms();
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execlp("ps", "ps", "-e", "-o", "pid,comm,rss", (char *)NULL);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return children_cpu_ms() - t0;
}

int main(int argc, char **argv)
{
	int nkids = argc > 1 ? atoi(argv[1]) : 500, nref = argc > 2 ? atoi(argv[2]) : 50;
	if (nkids < 0 || nkids > 20000)
		nkids = 500;
	if (nref < 5 || nref > 100000)
		nref = 50;
	pid_t *kids = calloc((size_t)nkids + 1, sizeof *kids);
	double *steady = calloc((size_t)nref, sizeof *steady), *floor_ms = calloc((size_t)nref, sizeof *floor_ms);
	double *pfloor = calloc((size_t)nref, sizeof *pfloor), cold[7], cold_wall[7], ps[7];
	int *held = calloc(4096, sizeof *held), nheld = 0;
	int procs = 0, nps = 0;

	for (int i = 0; i < nkids; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			for (;;)
				pause();
		}
		if (kids[i] < 0) {
			nkids = i;
			break;
		}
	}
	for (int i = 0; i < 7; i++) {
		struct proc_cache *c = proc_cache_new();
		cold[i] = timed_scan(c, &procs, &cold_wall[i]);
		proc_cache_free(c);
	}
	struct proc_cache *c = proc_cache_new();
	timed_scan(c, &procs, NULL);
	for (int i = 0; i < nref; i++) { /* interleaved, so load changes hit both alike */
		steady[i] = timed_scan(c, &procs, NULL);
		floor_ms[i] = timed_floor();
		pfloor[i] = timed_pread_floor(held, &nheld, 4096);
	}
	for (int i = 0; i < nheld; i++)
		close(held[i]);
	proc_cache_free(c);
	for (int i = 0; i < 7; i++) {
		double t = timed_ps();
		if (t >= 0)
			ps[nps++] = t;
	}
	for (int i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	double st_med = median(steady, nref), st_p90 = steady[nref * 9 / 10];
	double cold_med = median(cold, 7), cold_wall_med = median(cold_wall, 7), floor_med = median(floor_ms, nref), pfloor_med = median(pfloor, nref);
	printf("processes=%d steady_cpu_median_ms=%.3f steady_cpu_p90_ms=%.3f steady_us_per_process=%.2f "
	       "cold_cpu_median_ms=%.3f cold_wall_median_ms=%.3f cold_us_per_process=%.1f",
	       procs, st_med, st_p90, procs ? st_med * 1e3 / procs : 0.0, cold_med, cold_wall_med,
	       procs ? cold_med * 1e3 / procs : 0.0);
	if (nps > 0) {
		double ps_med = median(ps, nps);
		printf(" ps_cpu_median_ms=%.3f steady_vs_ps=%.3f", ps_med, ps_med > 0 ? st_med / ps_med : 0.0);
	}
	printf(" floor_cpu_median_ms=%.3f steady_vs_floor=%.2f held_fd_pread_floor_ms=%.3f\n", floor_med,
	       floor_med > 0 ? st_med / floor_med : 0.0, pfloor_med);
	free(floor_ms);
	free(pfloor);
	free(held);
	free(kids);
	free(steady);
	return 0;
}
