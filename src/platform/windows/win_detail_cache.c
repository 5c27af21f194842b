#include "win_detail_cache.h"

#include <stdlib.h>

#include "core/util.h"

/* Linux's rescan rules (src/platform/linux/proc.h), the same numbers */
#define RESCAN_AGE_NS (120ull * 1000000000ull)
#define RESCAN_MIN_INTERVAL_NS (5ull * 1000000000ull)
#define RESCAN_RSS_BYTES (64ull * 1024 * 1024)
#define RESCAN_RSS_PERCENT 10

static int cmp_entry(const void *a, const void *b)
{
	uint32_t x = ((const struct win_detail_entry *)a)->pid, y = ((const struct win_detail_entry *)b)->pid;
	return (x > y) - (x < y);
}

static bool due(const struct win_detail_entry *e, uint64_t rss, uint64_t now)
{
	uint64_t age = now - e->read_ns, delta = rss > e->rss ? rss - e->rss : e->rss - rss;

	if (age >= RESCAN_AGE_NS)
		return true;
	if (age < RESCAN_MIN_INTERVAL_NS)
		return false;
	return delta >= RESCAN_RSS_BYTES || (delta > 0 && delta >= e->rss / 100 * RESCAN_RSS_PERCENT);
}

static void push_next(struct win_detail_cache *c, const struct win_detail_entry *e)
{
	c->next = grow_array(c->next, sizeof *c->next, &c->cap_next, c->n_next);
	c->next[c->n_next++] = *e;
}

static bool gives(const struct win_detail_entry *e, enum win_detail_want want)
{
	switch (want) {
	case WIN_WANT_DETAIL:
		return e->detail != NULL;
	case WIN_WANT_DETAIL_OR_REFUSAL:
		return e->detail || e->refused;
	case WIN_WANT_USER:
		return true;
	}
	return false;
}

/* The entry of pid already in the next generation (carried or put since the
 * last scan ended: proc_detail_load reads between scans), or NULL. */
static struct win_detail_entry *in_next(struct win_detail_cache *c, uint32_t pid)
{
	for (size_t i = 0; i < c->n_next; i++)
		if (c->next[i].pid == pid)
			return &c->next[i];
	return NULL;
}

static bool usable(const struct win_detail_entry *f, uint64_t start_time, uint64_t rss, uint64_t now_ns,
		   enum win_detail_want want)
{
	/* start time 0 is unknown: it cannot tell a reused PID, so no reuse */
	return f && !f->carried && start_time && f->start_time == start_time && gives(f, want) && !due(f, rss, now_ns);
}

const struct win_detail_entry *win_detail_cache_get(struct win_detail_cache *c, uint32_t pid, uint64_t start_time,
						    uint64_t rss, uint64_t now_ns, enum win_detail_want want)
{
	struct win_detail_entry key = {.pid = pid};
	struct win_detail_entry *f = c->n ? bsearch(&key, c->v, c->n, sizeof key, cmp_entry) : NULL, *g = in_next(c, pid);

	if (g) /* read or carried since: that is the newest */
		return usable(g, start_time, rss, now_ns, want) ? g : NULL;
	if (!usable(f, start_time, rss, now_ns, want))
		return NULL;
	push_next(c, f);
	f->carried = true; /* its reference moved to the next generation */
	c->next[c->n_next - 1].carried = false;
	return &c->next[c->n_next - 1];
}

void win_detail_cache_put(struct win_detail_cache *c, const struct win_detail_entry *e)
{
	if (!e->start_time)
		return;
	struct win_detail_entry *old = in_next(c, e->pid);
	if (e->detail)
		proc_detail_ref(e->detail);
	if (old) { /* one entry per PID: the new read replaces the old */
		if (old->detail)
			proc_detail_unref(old->detail);
		*old = *e;
		old->carried = false;
		return;
	}
	push_next(c, e);
	c->next[c->n_next - 1].carried = false;
}

static void drop_all(struct win_detail_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].detail && !v[i].carried)
			proc_detail_unref(v[i].detail);
}

void win_detail_cache_end_scan(struct win_detail_cache *c)
{
	drop_all(c->v, c->n);
	struct win_detail_entry *t = c->v;
	size_t cap = c->cap;
	c->v = c->next, c->cap = c->cap_next, c->n = c->n_next;
	c->next = t, c->cap_next = cap, c->n_next = 0;
	if (c->n) /* qsort of a NULL array is undefined, even of none */
		qsort(c->v, c->n, sizeof *c->v, cmp_entry);
}

void win_detail_cache_free(struct win_detail_cache *c)
{
	drop_all(c->v, c->n);
	drop_all(c->next, c->n_next);
	free(c->v);
	free(c->next);
	c->v = c->next = NULL;
	c->n = c->n_next = c->cap = c->cap_next = 0;
}
