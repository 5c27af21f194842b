/* The Apple GPU rules of agx.h. */
#include "agx.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

bool agx_creator_parse(const char *s, uint32_t *pid, char *name, size_t cap)
{
	if (!s || strncmp(s, "pid ", 4) != 0)
		return false;
	const char *p = s + 4;
	uint64_t v = 0;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return false;
	}
	if (*p != ',' && *p != '\0')
		return false;
	if (*p == ',')
		p++;
	while (*p == ' ')
		p++;
	*pid = (uint32_t)v;
	str_copy(name, p, cap);
	return true;
}

static gtm_u64 bytes_of(const struct ptree *d, const char *key)
{
	int64_t v;
	return ptree_get_num(d, key, &v) && v >= 0 ? gtm_u64_of((uint64_t)v, GTM_MEASURED) : GTM_U64_NA;
}

static gtm_f64 pct_of(const struct ptree *d, const char *key)
{
	int64_t v;
	return ptree_get_num(d, key, &v) && v >= 0 && v <= 100 ? gtm_f64_of((double)v, GTM_MEASURED) : GTM_F64_NA;
}

bool agx_device_read(const struct ioreg_entry *e, struct agx_device *out)
{
	const struct ptree *ps = ptree_get(e->props, "PerformanceStatistics");
	if (!ps || ps->kind != PT_DICT)
		return false;
	memset(out, 0, sizeof *out);
	const char *model = ptree_get_str(e->props, "model");
	if (!model)
		model = ptree_get_str(e->props, "IOClass");
	str_copy(out->model, model ? model : e->cls, sizeof out->model);
	if (!ptree_get_num(e->props, "gpu-core-count", &out->cores))
		out->cores = -1;
	out->alloc_mem = bytes_of(ps, "Alloc system memory");
	out->in_use_mem = bytes_of(ps, "In use system memory");
	out->device_pct = pct_of(ps, "Device Utilization %");
	if (!gtm_f64_ok(out->device_pct))
		out->device_pct = pct_of(ps, "GPU Activity(%)"); /* older drivers (stats' reader.swift) */
	out->renderer_pct = pct_of(ps, "Renderer Utilization %");
	out->tiler_pct = pct_of(ps, "Tiler Utilization %");
	return true;
}

/* A client's GPU time: AppUsage's accumulatedGPUTime summed (one entry per
 * API the process used; "AppUsage" = () when it never submitted work). */
static void client_usage(const struct ptree *props, struct agx_client *c)
{
	const struct ptree *au = ptree_get(props, "AppUsage");
	for (const struct ptree *u = au && au->kind == PT_ARRAY ? au->first : NULL; u; u = u->next) {
		int64_t ns;
		if (ptree_get_num(u, "accumulatedGPUTime", &ns) && ns > 0 &&
		    c->gpu_ns <= UINT64_MAX - (uint64_t)ns)
			c->gpu_ns += (uint64_t)ns;
		c->has_usage = true;
	}
}

int agx_walk(const struct ioreg_list *l, struct agx_device *devs, int max_devs, struct agx_client **clients,
	     size_t *n_clients)
{
	int nd = 0, cur = -1;
	size_t cap = 0;
	*clients = NULL;
	*n_clients = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct ioreg_entry *e = &l->v[i];
		if (e->depth == 0) {
			cur = -1;
			if (nd < max_devs && agx_device_read(e, &devs[nd]))
				cur = nd++;
			continue;
		}
		const struct ioreg_entry *parent = ioreg_parent(l, i);
		if (cur < 0 || e->depth != 1 || !parent)
			continue;
		struct agx_client c;
		memset(&c, 0, sizeof c);
		if (!agx_creator_parse(ptree_get_str(e->props, "IOUserClientCreator"), &c.pid, c.name, sizeof c.name))
			continue;
		c.id = e->id;
		c.dev = cur;
		client_usage(e->props, &c);
		*clients = grow_array(*clients, sizeof **clients, &cap, *n_clients);
		(*clients)[(*n_clients)++] = c;
	}
	return nd;
}

static struct agx_seen *seen_find(struct agx_tracker *t, uint64_t key)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].key == key)
			return &t->v[i];
	return NULL;
}

/* A client's key: its registry id, else its PID and its place among that
 * PID's clients (ids are always there on a Mac; ioreg -a may omit them). */
static uint64_t client_key(const struct agx_client *c, size_t i)
{
	if (c->id)
		return c->id;
	size_t ord = 0;
	for (size_t j = 0; j < i; j++)
		ord += c[(ptrdiff_t)j - (ptrdiff_t)i].pid == c->pid;
	return (uint64_t)c->pid << 20 | (ord & 0xfffff);
}

static struct agx_proc *row_of(struct agx_proc *rows, size_t *n, const struct agx_client *c, uint64_t st)
{
	for (size_t i = 0; i < *n; i++)
		if (rows[i].pid == c->pid && rows[i].dev == c->dev)
			return &rows[i];
	struct agx_proc *r = &rows[(*n)++];
	memset(r, 0, sizeof *r);
	r->pid = c->pid;
	r->dev = c->dev;
	r->start_time = st;
	str_copy(r->name, c->name, sizeof r->name);
	return r;
}

/* How much GPU time a client spent since the last sample, by the rules of
 * agx.h; updates its memory. */
static uint64_t client_delta(struct agx_tracker *t, const struct agx_client *c, uint64_t key, uint64_t st,
			     uint64_t dt)
{
	struct agx_seen *s = seen_find(t, key);
	uint64_t d = 0;
	if (!s) {
		t->v = grow_array(t->v, sizeof *t->v, &t->cap, t->n);
		s = &t->v[t->n++];
		memset(s, 0, sizeof *s);
		s->key = key;
		s->pid = c->pid;
		s->start_time = st;
		/* opened since the last sample: all its time is new */
		if (t->last_ns)
			d = c->gpu_ns;
	} else if (s->pid != c->pid || (st && s->start_time && st != s->start_time)) {
		s->stale = true; /* a lingering client of an exited process, its PID reused */
	} else if (c->gpu_ns >= s->gpu_ns) {
		d = c->gpu_ns - s->gpu_ns;
	}
	if (!s->start_time)
		s->start_time = st;
	s->gpu_ns = c->gpu_ns;
	s->dev = c->dev;
	s->gen = t->gen;
	return d > dt ? dt : d; /* one client, one queue of work: never more than the wall time */
}

size_t agx_tracker_update(struct agx_tracker *t, const struct agx_client *c, size_t n, uint64_t now_ns,
			  agx_start_fn start_of, void *ctx, struct agx_proc *out, size_t max)
{
	uint64_t dt = t->last_ns && now_ns > t->last_ns ? now_ns - t->last_ns : 0;
	bool rates = dt > 0;
	struct agx_proc *rows = xcalloc(n ? n : 1, sizeof *rows);
	size_t nr = 0, kept = 0;
	t->gen++;
	for (size_t i = 0; i < n; i++) {
		uint64_t st = start_of ? start_of(ctx, c[i].pid) : 0;
		uint64_t key = client_key(&c[i], i);
		uint64_t d = client_delta(t, &c[i], key, st, dt);
		if (seen_find(t, key)->stale)
			continue;
		struct agx_proc *r = row_of(rows, &nr, &c[i], st);
		r->gpu_ns += d;
		r->total_ns = r->total_ns + c[i].gpu_ns < r->total_ns ? UINT64_MAX : r->total_ns + c[i].gpu_ns;
		r->n_clients++;
	}
	for (size_t j = 0; j < nr && kept < max; j++) {
		struct agx_proc *r = &rows[j];
		bool busy = rates ? r->gpu_ns > 0 : r->total_ns > 0;
		if (!busy && strcmp(r->name, "WindowServer") != 0)
			continue;
		double pct = rates ? (double)r->gpu_ns * 100.0 / (double)dt : 0.0;
		r->gpu_pct = rates ? gtm_f64_of(pct > 100.0 ? 100.0 : pct, GTM_MEASURED) : GTM_F64_NA;
		out[kept++] = *r;
	}
	free(rows);
	/* closed clients are forgotten: their time went with them */
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].gen == t->gen)
			t->v[k++] = t->v[i];
	t->n = k;
	t->last_ns = now_ns;
	return kept;
}

void agx_tracker_free(struct agx_tracker *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}
