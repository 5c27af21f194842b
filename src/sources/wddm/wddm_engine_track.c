#include "sources/wddm/wddm_engine_track.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "sources/wddm/wddm_instance.h"

struct entry {
	uint64_t hash, start_time;
	uint64_t running, stamp;  /* the last sample */
	uint64_t gen;             /* the refresh that last updated it */
	bool have_pct;            /* this refresh's answer, for a repeated key */
	double pct;
	int next;                 /* bucket chain, -1 ends */
	uint16_t len;
	char name[WDDM_INSTANCE_MAX];
};

struct wddm_engine_tracker {
	struct entry *v;
	size_t n, cap;
	int *buckets;             /* heads, n_buckets a power of two */
	size_t n_buckets;
	uint64_t gen;
};

/* FNV-1a over the name and the start time. */
static uint64_t key_hash(const char *s, size_t n, uint64_t start)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	for (int i = 0; i < 8; i++)
		h = (h ^ ((start >> (8 * i)) & 0xff)) * 1099511628211ull;
	return h;
}

static void rehash(struct wddm_engine_tracker *t, size_t n_buckets)
{
	free(t->buckets);
	t->n_buckets = n_buckets;
	t->buckets = xmalloc(n_buckets * sizeof *t->buckets);
	memset(t->buckets, 0xff, n_buckets * sizeof *t->buckets);
	for (size_t i = 0; i < t->n; i++) {
		size_t b = t->v[i].hash & (n_buckets - 1);
		t->v[i].next = t->buckets[b];
		t->buckets[b] = (int)i;
	}
}

struct wddm_engine_tracker *wddm_engine_tracker_new(void)
{
	struct wddm_engine_tracker *t = xcalloc(1, sizeof *t);
	rehash(t, 64);
	return t;
}

void wddm_engine_tracker_free(struct wddm_engine_tracker *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->buckets);
	free(t);
}

void wddm_engine_tracker_begin(struct wddm_engine_tracker *t)
{
	t->gen++;
}

void wddm_engine_tracker_end(struct wddm_engine_tracker *t)
{
	size_t w = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].gen == t->gen)
			t->v[w++] = t->v[i];
	if (w == t->n)
		return;
	t->n = w;
	rehash(t, t->n_buckets);
}

static struct entry *find(struct wddm_engine_tracker *t, const char *s, size_t n, uint64_t start, uint64_t h)
{
	for (int i = t->buckets[h & (t->n_buckets - 1)]; i >= 0; i = t->v[i].next) {
		struct entry *e = &t->v[i];
		if (e->hash == h && e->start_time == start && e->len == n && memcmp(e->name, s, n) == 0)
			return e;
	}
	return NULL;
}

static struct entry *insert(struct wddm_engine_tracker *t, const char *s, size_t n, uint64_t start, uint64_t h)
{
	t->v = grow_array(t->v, sizeof *t->v, &t->cap, t->n);
	struct entry *e = &t->v[t->n++];
	memset(e, 0, sizeof *e);
	e->hash = h;
	e->start_time = start;
	e->len = (uint16_t)n;
	memcpy(e->name, s, n);
	if (t->n > t->n_buckets)
		rehash(t, t->n_buckets * 2);
	else {
		size_t b = h & (t->n_buckets - 1);
		e->next = t->buckets[b];
		t->buckets[b] = (int)(t->n - 1);
	}
	return e;
}

bool wddm_engine_tracker_update(struct wddm_engine_tracker *t, const char *inst, size_t n, uint64_t start_time,
				uint64_t running, uint64_t stamp, double *pct)
{
	*pct = 0;
	if (!inst || n == 0 || n > WDDM_INSTANCE_MAX)
		return false;
	uint64_t h = key_hash(inst, n, start_time);
	struct entry *e = find(t, inst, n, start_time, h);
	if (!e) {
		e = insert(t, inst, n, start_time, h);
		e->running = running;
		e->stamp = stamp;
		e->gen = t->gen;
		return false;
	}
	if (e->gen == t->gen) {
		*pct = e->pct;
		return e->have_pct;
	}
	e->gen = t->gen;
	e->have_pct = running >= e->running && stamp > e->stamp;
	e->pct = e->have_pct ? 100.0 * (double)(running - e->running) / (double)(stamp - e->stamp) : 0;
	/* a counter that went backwards is a recreated instance: it starts over */
	e->running = running;
	e->stamp = stamp;
	*pct = e->pct;
	return e->have_pct;
}

size_t wddm_engine_tracker_size(const struct wddm_engine_tracker *t)
{
	return t->n;
}
