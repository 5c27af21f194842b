/* footprint(1) on a thread of its own (the one program gputaskman starts on
 * macOS): the IOKit source asks for a process's graphics footprint where the
 * graphics ledger does not answer and reads the last size found; the worker
 * runs /usr/bin/footprint -f bytes -p PID... by fp_sched.h's schedule, never
 * on the collector's or the UI's thread, and parses its output
 * (footprint.h). */
#ifndef GTM_FP_WORKER_H
#define GTM_FP_WORKER_H

#include <stdbool.h>
#include <stdint.h>

struct fp_worker;

/* NULL (and why) when no thread could be started: sizes stay N/A. */
struct fp_worker *fp_worker_start(char *why, size_t cap);
void fp_worker_stop(struct fp_worker *w);
/* Asks for (pid, start)'s size; busy: it used the GPU since the last refresh. */
void fp_worker_want(struct fp_worker *w, uint32_t pid, uint64_t start, bool busy);
/* The last size footprint gave for it (true), or none yet (false; *denied:
 * footprint refused it, another user's process). */
bool fp_worker_get(struct fp_worker *w, uint32_t pid, uint64_t start, uint64_t *size, bool *denied);
/* Waits up to timeout_ns for the processes wanted so far to have an answer
 * (one-shot output: no later refresh would show them). */
void fp_worker_settle(struct fp_worker *w, uint64_t timeout_ns);

#endif
