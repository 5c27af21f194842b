/* bench_record SCENARIO OUT.rec SAMPLES PID...: the recorder against real
 * refreshes. Two GPUs on the NVML test double list the given PIDs as compute
 * processes; before each refresh the scenario moves as a busy machine's does
 * (utilization, power, temperature, clocks every sample; a process's memory
 * now and then). Each snapshot is stamped one second after the one before,
 * as `record -i 1` would take them, and appended with recorder_take.
 * Prints the median CPU time of a refresh and of recording it, and the
 * recording's bytes per snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/recorder.h"
#include "collect/collector.h"
#include "core/util.h"

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static unsigned long long mem[64];

/* The scenario for sample i: a random walk, written atomically (rename). */
static void write_scenario(const char *path, int i, int n_pids, char **pids)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		exit(1);
	for (int d = 0; d < 2; d++) {
		unsigned long long used = 0;
		for (int p = d; p < n_pids; p += 2)
			used += mem[p];
		fprintf(f, "device name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-%d bus=00000000:0%d:00.0 mem_total=85899345920 "
			   "mem_used=%llu util_gpu=%d util_mem=%d temp=%d power_mw=%d power_limit_mw=700000 fan=%d "
			   "clock_sm=%d clock_mem=2619 clock_sm_max=1980 clock_mem_max=2619 pcie_tx_kbs=%d pcie_rx_kbs=%d "
			   "pcie_gen=5 pcie_width=16\n",
			d, d + 1, used, rand() % 101, rand() % 60, 55 + rand() % 20, 150000 + rand() % 500000, 30 + rand() % 40,
			1200 + rand() % 780, rand() % 200000, rand() % 200000);
	}
	for (int p = 0; p < n_pids; p++) {
		if (rand() % 30 == 0) /* now and then a process allocates or frees */
			mem[p] = (unsigned long long)(256 + rand() % 4096) << 20;
		fprintf(f, "process dev=%d pid=%s mem=%llu sm=%d mem_util=%d\n", p % 2, pids[p], mem[p], rand() % 100,
			rand() % 50);
	}
	(void)i;
	fclose(f);
	rename(tmp, path);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: bench_record SCENARIO OUT.rec SAMPLES PID...\n");
		return 2;
	}
	const char *scenario = argv[1], *out = argv[2];
	int n = atoi(argv[3]), n_pids = argc - 4;
	char **pids = argv + 4;
	double *refresh = xcalloc((size_t)n, sizeof *refresh), *rec = xcalloc((size_t)n, sizeof *rec);
	double *json = xcalloc((size_t)n, sizeof *json), *scratch = xcalloc((size_t)n, sizeof *scratch);
	struct collector_opts o = {.one_shot = false, .gpu_filter = -1, .no_probe = true};
	struct rec_writer_opts wo = {0};
	char err[512], note[512];
	int status;
	uint64_t t0 = now_realtime_ns();

	if (n_pids > 64)
		n_pids = 64;
	if (getenv("LEVEL")) /* the zstd level, to compare (the recorder's default is 3) */
		wo.level = atoi(getenv("LEVEL"));
	srand(16);
	for (int p = 0; p < n_pids; p++)
		mem[p] = (unsigned long long)(256 + rand() % 4096) << 20;
	unlink(out);
	struct rec_writer *w = rec_writer_open(out, &wo, &status, err, sizeof err, note, sizeof note);
	if (!w) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	/* the recorder, and one for timing the line alone: each keeps its own rows' text,
	 * so each writes every snapshot once, as a recorder does */
	struct recorder *recorder = recorder_new(w), *line_only = recorder_new(NULL);
	write_scenario(scenario, 0, n_pids, pids);
	struct collector *c = collector_new(&o);
	snapshot_free(collector_refresh(c));
	size_t line_bytes = 0;
	int rows = 0;
	for (int i = 0; i < n; i++) {
		write_scenario(scenario, i, n_pids, pids);
		double a = cpu_ms();
		struct gtm_snapshot *s = collector_refresh(c);
		double b = cpu_ms();
		s->taken_at_ns = t0 + (uint64_t)i * 1000000000ull;
		size_t len;
		double j0 = cpu_ms();
		char *line = recorder_line(line_only, s, &len);
		json[i] = cpu_ms() - j0;
		free(line);
		/* the same line written from scratch, no row kept: what the kept rows save */
		j0 = cpu_ms();
		line = recorder_line(NULL, s, &len);
		scratch[i] = cpu_ms() - j0;
		line_bytes += len + 1;
		free(line);
		double c0 = cpu_ms();
		if (recorder_take(recorder, s, err, sizeof err)) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		double d = cpu_ms();
		rows = s->n_gpu_processes;
		refresh[i] = b - a;
		rec[i] = d - c0;
		snapshot_free(s);
	}
	collector_free(c);
	recorder_free(recorder);
	recorder_free(line_only);
	rec_writer_close(w, err, sizeof err);
	struct stat st;
	stat(out, &st);
	qsort(refresh, (size_t)n, sizeof *refresh, cmp_double);
	qsort(rec, (size_t)n, sizeof *rec, cmp_double);
	qsort(json, (size_t)n, sizeof *json, cmp_double);
	qsort(scratch, (size_t)n, sizeof *scratch, cmp_double);
	printf("samples %d, GPU process rows %d, snapshot text %.0f B\n", n, rows, (double)line_bytes / n);
	printf("file %lld B: %.1f B per snapshot\n", (long long)st.st_size, (double)st.st_size / n);
	printf("refresh CPU median %.3f ms; recording it (JSON line + zstd + write) median %.3f ms = %.1f %%\n",
	       refresh[n / 2], rec[n / 2], 100.0 * rec[n / 2] / refresh[n / 2]);
	printf("of which the JSON line alone: median %.3f ms (written from scratch, no row kept: %.3f ms)\n", json[n / 2],
	       scratch[n / 2]);
	free(json);
	free(scratch);
	free(refresh);
	free(rec);
	return 0;
}
