/* When to ask footprint(1) about which process (pure; the worker thread in
 * fp_worker.c runs it). A process's graphics footprint where the graphics
 * ledger does not answer: busy and new processes every FP_BUSY_NS, idle ones
 * every FP_IDLE_NS (about 70 ms of footprint a process); a failure keeps the
 * last size, and every FP_FAILS_BACKOFF failures in a row back off for
 * FP_BACKOFF_NS. A process is known by (PID, start time): a reused PID starts
 * over. One not wanted for FP_FORGET_NS is forgotten. */
#ifndef GTM_FP_SCHED_H
#define GTM_FP_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FP_SCHED_MAX 256
#define FP_BUSY_NS (2ull * 1000000000ull)
#define FP_IDLE_NS (30ull * 1000000000ull)
#define FP_BACKOFF_NS (60ull * 1000000000ull)
#define FP_FORGET_NS (60ull * 1000000000ull)
#define FP_FAILS_BACKOFF 3

enum fp_outcome { FP_OK, FP_DENIED, FP_FAILED };

struct fp_entry {
	bool used, busy, in_flight, has_size, denied;
	uint32_t pid;
	uint64_t start;
	uint64_t size;            /* the last graphics footprint read (bytes) */
	uint64_t due_ns, wanted_ns;
	int fails;                /* in a row */
};

struct fp_sched {
	struct fp_entry e[FP_SCHED_MAX];
};

/* The source wants this process's size (each refresh); busy: it used the
 * GPU since the last one. A new process is due at once. */
void fp_sched_want(struct fp_sched *s, uint32_t pid, uint64_t start, bool busy, uint64_t now_ns);
/* The PIDs to ask now (at most max), marked in flight; forgets the unwanted. */
size_t fp_sched_due(struct fp_sched *s, uint64_t now_ns, uint32_t *pids, size_t max);
/* What asking about pid (in flight) gave. */
void fp_sched_done(struct fp_sched *s, uint32_t pid, enum fp_outcome o, uint64_t size, uint64_t now_ns);
struct fp_result;
/* What one footprint run over pids (in flight) said of each: its graphics
 * rows' Dirty (FP_OK), a refusal (FP_DENIED), or nothing (FP_FAILED); r NULL:
 * the run did not start or printed nothing readable. A single process's
 * output may name no PID: it is that one's. */
void fp_sched_record(struct fp_sched *s, const uint32_t *pids, size_t n, const struct fp_result *r, uint64_t now_ns);
/* The last size of (pid, start): true with *size, else false; *denied: the
 * last answer was footprint's refusal (another user's process). */
bool fp_sched_get(const struct fp_sched *s, uint32_t pid, uint64_t start, uint64_t *size, bool *denied);

#endif
