#include "core/parallel.h"
#include "portable.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define BATCH 8

struct job {
	size_t n;
	atomic_size_t next;
	parallel_fn fn;
	void *ctx;
};

struct worker {
	struct job *job;
	int index;
	pthread_t thread;
};

int parallel_workers(size_t n, size_t min_per_worker)
{
	/* too little for two workers, whatever the CPUs: not asked (a steady live
	 * refresh would ask the kernel for its affinity each time) */
	if (n < 2 * (min_per_worker ? min_per_worker : 1))
		return 1;
	const char *set = getenv("GPUTASKMAN_THREADS");
	long v = set && *set ? strtol(set, NULL, 10) : 0;
	int w = v >= 1 && v <= PARALLEL_MAX_WORKERS ? (int)v : os_usable_cpus();

	if (w > PARALLEL_MAX_WORKERS)
		w = PARALLEL_MAX_WORKERS;
	if (min_per_worker == 0)
		min_per_worker = 1;
	while (w > 1 && n / (size_t)w < min_per_worker)
		w--;
	return w < 1 ? 1 : w;
}

static void run_batches(struct job *j, int index)
{
	for (;;) {
		size_t i = atomic_fetch_add(&j->next, BATCH);
		if (i >= j->n)
			return;
		size_t end = i + BATCH < j->n ? i + BATCH : j->n;
		for (; i < end; i++)
			j->fn(j->ctx, i, index);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	run_batches(w->job, w->index);
	return NULL;
}

void parallel_for(size_t n, int workers, parallel_fn fn, void *ctx)
{
	struct job job = {.n = n, .fn = fn, .ctx = ctx};
	struct worker w[PARALLEL_MAX_WORKERS];
	int started = 0;

	atomic_init(&job.next, 0);
	if (workers > PARALLEL_MAX_WORKERS)
		workers = PARALLEL_MAX_WORKERS;
	for (int k = 1; k < workers; k++) {
		w[started] = (struct worker){.job = &job, .index = k};
		if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]) == 0)
			started++;
	}
	run_batches(&job, 0);
	for (int k = 0; k < started; k++)
		pthread_join(w[k].thread, NULL);
}
