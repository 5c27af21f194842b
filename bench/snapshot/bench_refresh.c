/* Steady-state refresh cost: runs the collector N times in one process (as
 * the live view does) and prints the median CPU time and wall time of a
 * refresh after the first, plus peak RSS. Usage: bench_refresh [N [INTERVAL_MS]]:
 * with an interval it sleeps that long between refreshes, as the live view does
 * (the staggered stat re-reads and the 2 s port checks then come due). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collect/collector.h"
#include "core/snapshot.h"

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, interval_ms = argc > 2 ? atoi(argv[2]) : 0;
	if (n < 3 || n > 100000)
		n = 50;
	double *cpu = calloc((size_t)n, sizeof *cpu), *wall = calloc((size_t)n, sizeof *wall);
	struct collector_opts o = {.one_shot = false, .gpu_filter = -1, .no_probe = true};
	struct collector *c = collector_new(&o);
	int procs = 0, gpu_rows = 0, devices = 0;

	/* The first refresh fills the caches (maps, cmdlines); it is not steady state. */
	snapshot_free(collector_refresh(c));
	for (int i = 0; i < n; i++) {
		if (interval_ms > 0)
			usleep((useconds_t)interval_ms * 1000u);
		double c0 = cpu_seconds(), w0 = wall_seconds();
		struct gtm_snapshot *s = collector_refresh(c);
		cpu[i] = cpu_seconds() - c0;
		wall[i] = wall_seconds() - w0;
		procs = s->n_procs_total;
		gpu_rows = s->n_gpu_processes;
		devices = s->n_devices;
		snapshot_free(s);
	}
	collector_free(c);
	qsort(cpu, (size_t)n, sizeof *cpu, cmp_double);
	qsort(wall, (size_t)n, sizeof *wall, cmp_double);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("refreshes=%d devices=%d processes=%d gpu_rows=%d cpu_median_ms=%.3f cpu_p90_ms=%.3f "
	       "wall_median_ms=%.3f peak_rss_kib=%ld\n",
	       n, devices, procs, gpu_rows, cpu[n / 2] * 1e3, cpu[n * 9 / 10] * 1e3, wall[n / 2] * 1e3, ru.ru_maxrss);
	free(cpu);
	free(wall);
	return 0;
}
