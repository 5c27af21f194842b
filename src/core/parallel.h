/* A parallel for-loop for one-shot work that is mostly system calls: reading
 * hundreds of processes' /proc files or fd folders. The kernel's time per
 * read is the floor of a cold scan, so on a machine with idle CPUs spreading
 * the reads is the one way to cut its wall time. */
#ifndef GTM_PARALLEL_H
#define GTM_PARALLEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define PARALLEL_MAX_WORKERS 4 /* more gains little: the reads share /proc's locks */

/* fn(ctx, i, worker) for every i in [0, n), worker in [0, workers). */
typedef void (*parallel_fn)(void *ctx, size_t i, int worker);

/* How many workers parallel_for would use for n items: 1 unless there are at
 * least min_per_worker items per worker and more than one usable CPU (the
 * affinity mask, so taskset and cgroup cpusets count), at most
 * PARALLEL_MAX_WORKERS. GPUTASKMAN_THREADS=N (1 to 4) sets the count instead
 * of the CPUs: 1 turns threads off; tests use it to run the threaded path on
 * any machine. */
int parallel_workers(size_t n, size_t min_per_worker);

/* Runs fn over [0, n) on `workers` threads, the caller's included, handing
 * out small batches so that a slow item does not hold up one worker's share.
 * Returns when all are done. A thread that cannot be created leaves its
 * share to the others. */
void parallel_for(size_t n, int workers, parallel_fn fn, void *ctx);

#endif
