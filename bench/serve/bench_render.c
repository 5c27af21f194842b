/* The exporter's collection-thread cost per interval: a steady refresh (what
 * the live view pays) plus rendering its text (cap 32). Prints medians over N
 * refreshes after the first. Usage: bench_render [N] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "collect/collector.h"
#include "core/snapshot.h"
#include "views/prom/prom_render.h"

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	if (n < 3 || n > 10000)
		n = 30;
	double *refresh = calloc((size_t)n, sizeof *refresh), *render = calloc((size_t)n, sizeof *render);
	struct collector_opts o = {.gpu_filter = -1, .no_probe = true};
	struct collector *c = collector_new(&o);
	struct prom_out out;
	struct prom_opts po = {.max_processes = PROM_MAX_PROCESSES_DEFAULT, .collect_seconds = 0.001, .version = "bench", .os = "linux"};
	size_t bytes = 0;
	int rows = 0;
	prom_out_init(&out);
	for (int i = 0; i <= n; i++) {
		double t0 = cpu_ms();
		struct gtm_snapshot *s = collector_refresh(c);
		double t1 = cpu_ms();
		prom_out_reset(&out);
		prom_render(s, &po, &out);
		double t2 = cpu_ms();
		if (i > 0) {
			refresh[i - 1] = t1 - t0;
			render[i - 1] = t2 - t1;
		}
		bytes = out.text.len;
		rows = s->n_gpu_processes;
		snapshot_free(s);
	}
	qsort(refresh, (size_t)n, sizeof *refresh, cmp);
	qsort(render, (size_t)n, sizeof *render, cmp);
	printf("gpu_rows %d refresh_cpu_ms %.3f render_cpu_ms %.3f text_bytes %zu\n", rows, refresh[n / 2], render[n / 2],
	       bytes);
	prom_out_free(&out);
	collector_free(c);
	free(refresh);
	free(render);
	return 0;
}
