/* Busy time (drm-engine-<e>, ns against wall time) or busy cycles
 * (drm-cycles-<e> against drm-total-cycles-<e>), divided by
 * drm-engine-capacity-<e>. A counter seen going backwards is held at its
 * larger previous value, as drm-usage-stats.rst asks of userspace. */
#include "sources/drm_engines.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct engine_prev {
	char name[DRM_FDINFO_NAME];
	uint64_t busy_ns, cycles, total_cycles;
	unsigned have;
	struct drm_engine_pct last; /* this refresh's result, for repeated calls */
};

struct client_prev {
	bool used;
	int dev;
	uint64_t client_id;
	uint64_t ts_ns;
	uint32_t gen;
	bool had_prev;  /* this refresh's answer, for repeated calls */
	int n;
	struct engine_prev e[DRM_FDINFO_MAX_ENGINES];
};

struct drm_engine_state {
	struct client_prev *slots;
	size_t cap, n; /* open addressing, cap a power of two, n < cap/2 */
	uint32_t gen;
	size_t n_first; /* this refresh's clients with engines and no earlier sample */
};

static size_t hash_key(int dev, uint64_t id)
{
	uint64_t h = id * 0x9e3779b97f4a7c15ull ^ ((uint64_t)(unsigned)dev * 0xc2b2ae3d27d4eb4full);
	return (size_t)(h ^ (h >> 29));
}

static struct client_prev *find_slot(struct client_prev *slots, size_t cap, int dev, uint64_t id)
{
	size_t i = hash_key(dev, id) & (cap - 1);
	while (slots[i].used && !(slots[i].dev == dev && slots[i].client_id == id))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* Rebuilds the table at new_cap keeping entries seen in generation keep_gen
 * (or all entries when keep_all). */
static void rehash(struct drm_engine_state *s, size_t new_cap, bool keep_all)
{
	struct client_prev *ns = xcalloc(new_cap, sizeof *ns);
	size_t n = 0;
	for (size_t i = 0; i < s->cap; i++) {
		struct client_prev *c = &s->slots[i];
		if (!c->used || (!keep_all && c->gen != s->gen))
			continue;
		*find_slot(ns, new_cap, c->dev, c->client_id) = *c;
		n++;
	}
	free(s->slots);
	s->slots = ns;
	s->cap = new_cap;
	s->n = n;
}

struct drm_engine_state *drm_engine_state_new(void)
{
	struct drm_engine_state *s = xcalloc(1, sizeof *s);
	s->cap = 64;
	s->slots = xcalloc(s->cap, sizeof *s->slots);
	return s;
}

void drm_engine_state_free(struct drm_engine_state *s)
{
	if (!s)
		return;
	free(s->slots);
	free(s);
}

void drm_engine_state_begin(struct drm_engine_state *s)
{
	s->gen++;
	s->n_first = 0;
}

void drm_engine_state_end(struct drm_engine_state *s)
{
	size_t cap = 64;
	while (cap < s->n * 4)
		cap *= 2;
	rehash(s, cap, false);
}

size_t drm_engine_state_size(const struct drm_engine_state *s)
{
	return s->n;
}

size_t drm_engine_state_first_samples(const struct drm_engine_state *s)
{
	return s->n_first;
}

static double clamp_pct(double v)
{
	return v < 0 ? 0 : v > 100 ? 100 : v;
}

/* Advances a cumulative counter, holding it when it goes backwards. */
static uint64_t advance(uint64_t *prev, uint64_t cur)
{
	if (cur < *prev)
		return 0;
	uint64_t d = cur - *prev;
	*prev = cur;
	return d;
}

static struct drm_engine_pct engine_delta(struct engine_prev *p, const struct drm_fdinfo_engine *e, uint64_t dt_ns)
{
	struct drm_engine_pct r = {false, 0};
	const unsigned cyc = DRM_EK_CYCLES | DRM_EK_TOTAL_CYCLES;
	double cap = e->capacity ? (double)e->capacity : 1.0;

	if ((p->have & cyc) == cyc && (e->have & cyc) == cyc) {
		uint64_t dc = advance(&p->cycles, e->cycles);
		uint64_t dtot = advance(&p->total_cycles, e->total_cycles);
		if (dtot > 0)
			r = (struct drm_engine_pct){true, clamp_pct(100.0 * (double)dc / (double)dtot / cap)};
	} else if ((p->have & DRM_EK_NS) && (e->have & DRM_EK_NS)) {
		uint64_t db = advance(&p->busy_ns, e->busy_ns);
		if (dt_ns > 0)
			r = (struct drm_engine_pct){true, clamp_pct(100.0 * (double)db / (double)dt_ns / cap)};
	}
	return r;
}

static void engine_store(struct engine_prev *p, const struct drm_fdinfo_engine *e)
{
	memset(p, 0, sizeof *p);
	memcpy(p->name, e->name, sizeof p->name);
	p->busy_ns = e->busy_ns;
	p->cycles = e->cycles;
	p->total_cycles = e->total_cycles;
	p->have = e->have;
}

static struct engine_prev *engine_find(struct client_prev *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->e[i].name, name) == 0)
			return &c->e[i];
	return NULL;
}

static void update_client(struct client_prev *c, uint64_t now_ns, const struct drm_fdinfo *fi,
			  struct drm_engine_pct *out)
{
	uint64_t dt = now_ns > c->ts_ns ? now_ns - c->ts_ns : 0;

	for (int i = 0; i < fi->n_engines; i++) {
		const struct drm_fdinfo_engine *e = &fi->engines[i];
		struct engine_prev *p = engine_find(c, e->name);
		if (p) {
			unsigned fresh = e->have & ~p->have;
			out[i] = engine_delta(p, e, dt);
			/* a counter first seen now starts from its current value */
			if (fresh & DRM_EK_NS)
				p->busy_ns = e->busy_ns;
			if (fresh & DRM_EK_CYCLES)
				p->cycles = e->cycles;
			if (fresh & DRM_EK_TOTAL_CYCLES)
				p->total_cycles = e->total_cycles;
			p->have |= e->have;
		} else if (c->n < DRM_FDINFO_MAX_ENGINES) {
			/* first sample of this engine: nothing to compare with */
			p = &c->e[c->n++];
			engine_store(p, e);
			out[i] = (struct drm_engine_pct){false, 0};
		}
		if (p)
			p->last = out[i];
	}
	c->ts_ns = now_ns;
}

bool drm_engine_update(struct drm_engine_state *s, int dev, uint64_t client_id, uint64_t now_ns,
		       const struct drm_fdinfo *fi, struct drm_engine_pct out[DRM_FDINFO_MAX_ENGINES])
{
	for (int i = 0; i < DRM_FDINFO_MAX_ENGINES; i++)
		out[i] = (struct drm_engine_pct){false, 0};
	if (s->n + 1 > s->cap / 2)
		rehash(s, s->cap * 2, true);
	struct client_prev *c = find_slot(s->slots, s->cap, dev, client_id);
	if (!c->used) {
		memset(c, 0, sizeof *c);
		c->used = true;
		c->dev = dev;
		c->client_id = client_id;
		c->ts_ns = now_ns;
		c->gen = s->gen;
		s->n++;
		for (int i = 0; i < fi->n_engines && c->n < DRM_FDINFO_MAX_ENGINES; i++)
			engine_store(&c->e[c->n++], &fi->engines[i]);
		s->n_first += fi->n_engines > 0;
		return false;
	}
	if (c->gen == s->gen) {
		for (int i = 0; i < fi->n_engines; i++) {
			struct engine_prev *p = engine_find(c, fi->engines[i].name);
			if (p)
				out[i] = p->last;
		}
		return c->had_prev;
	}
	c->gen = s->gen;
	c->had_prev = true;
	update_client(c, now_ns, fi, out);
	return true;
}
