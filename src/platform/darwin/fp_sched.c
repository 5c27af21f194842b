/* footprint(1)'s schedule (fp_sched.h). */
#include "fp_sched.h"

#include <string.h>

#include "footprint.h"

static struct fp_entry *find(struct fp_sched *s, uint32_t pid)
{
	for (int i = 0; i < FP_SCHED_MAX; i++)
		if (s->e[i].used && s->e[i].pid == pid)
			return &s->e[i];
	return NULL;
}

static bool backing_off(const struct fp_entry *e)
{
	return e->fails > 0 && e->fails % FP_FAILS_BACKOFF == 0;
}

void fp_sched_want(struct fp_sched *s, uint32_t pid, uint64_t start, bool busy, uint64_t now_ns)
{
	struct fp_entry *e = find(s, pid);

	if (e && e->start != start && !e->in_flight)
		memset(e, 0, sizeof *e); /* a reused PID: another process */
	else if (e && e->start != start)
		return; /* the old one's answer is on its way: the new one waits for it */
	for (int i = 0; !e && i < FP_SCHED_MAX; i++)
		if (!s->e[i].used)
			e = &s->e[i];
	if (!e)
		return; /* full: this one gets no size (N/A) */
	if (!e->used) {
		*e = (struct fp_entry){.used = true, .pid = pid, .start = start, .due_ns = now_ns};
	} else if (busy && !e->busy && !backing_off(e) && e->due_ns > now_ns + FP_BUSY_NS) {
		e->due_ns = now_ns + FP_BUSY_NS; /* woke up: its size moves again */
	}
	e->busy = busy;
	e->wanted_ns = now_ns;
}

size_t fp_sched_due(struct fp_sched *s, uint64_t now_ns, uint32_t *pids, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < FP_SCHED_MAX; i++) {
		struct fp_entry *e = &s->e[i];
		if (!e->used || e->in_flight)
			continue;
		if (e->wanted_ns + FP_FORGET_NS < now_ns) {
			e->used = false;
			continue;
		}
		if (e->due_ns <= now_ns && n < max) {
			e->in_flight = true;
			pids[n++] = e->pid;
		}
	}
	return n;
}

void fp_sched_done(struct fp_sched *s, uint32_t pid, enum fp_outcome o, uint64_t size, uint64_t now_ns)
{
	struct fp_entry *e = find(s, pid);

	if (!e || !e->in_flight)
		return;
	e->in_flight = false;
	if (o == FP_OK) {
		e->has_size = true;
		e->size = size;
		e->fails = 0;
		e->denied = false;
		e->due_ns = now_ns + (e->busy ? FP_BUSY_NS : FP_IDLE_NS);
		return;
	}
	e->denied = o == FP_DENIED; /* the last size, if any, stays */
	e->fails++;
	e->due_ns = now_ns + (backing_off(e) ? FP_BACKOFF_NS : FP_BUSY_NS);
}

bool fp_sched_get(const struct fp_sched *s, uint32_t pid, uint64_t start, uint64_t *size, bool *denied)
{
	for (int i = 0; i < FP_SCHED_MAX; i++) {
		const struct fp_entry *e = &s->e[i];
		if (e->used && e->pid == pid && e->start == start) {
			*denied = e->denied && !e->has_size;
			*size = e->size;
			return e->has_size;
		}
	}
	*denied = false;
	return false;
}

void fp_sched_record(struct fp_sched *s, const uint32_t *pids, size_t n, const struct fp_result *r, uint64_t now_ns)
{
	for (size_t i = 0; i < n; i++) {
		enum fp_outcome o = FP_FAILED;
		uint64_t size = 0;
		for (size_t k = 0; r && k < r->n && o != FP_OK; k++)
			if (r->procs[k].pid == pids[i] || (n == 1 && r->procs[k].pid == 0)) {
				o = FP_OK;
				size = r->procs[k].graphics_dirty;
			}
		for (size_t k = 0; r && o != FP_OK && k < r->n_denied; k++)
			if (r->denied[k] == pids[i])
				o = FP_DENIED;
		fp_sched_done(s, pids[i], o, size, now_ns);
	}
}
