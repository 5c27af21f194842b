#include "sources/drm_attrib.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* One DRM client (one open DRM file, named by drm-client-id on its device),
 * however many fds and processes hold it. */
struct client {
	int dev;
	const struct drm_obs *info;  /* a successful read of it; NULL: none */
	int n_holders;               /* distinct (pid, start) holding it */
	bool render;                 /* opened through a render node */
	bool has_mem;                /* reports VRAM- or GTT-class regions */
	bool bad_value;              /* a VRAM- or GTT-class key did not parse: sums incomplete */
	bool no_id;                  /* no drm-client-id: cannot be told apart from its duplicates */
	bool shared_keys;            /* every such region has drm-shared-* */
	bool shared_nonzero;         /* some drm-shared-* region is non-zero */
	bool unattributed;           /* its bytes go to the device's unattributed row */
	uint64_t vram, gtt, shared;
	struct drm_class_load cls[DRM_ENG_N];
};

static bool obs_keyed(const struct drm_obs *o)
{
	return o->read_ok && o->fi.has_client_id;
}

/* Client order: device, then client id (unkeyed reads last, each alone),
 * then holder. */
static int by_client(const void *a, const void *b)
{
	const struct drm_obs *x = *(const struct drm_obs *const *)a, *y = *(const struct drm_obs *const *)b;
	if (x->dev != y->dev)
		return x->dev - y->dev;
	bool kx = obs_keyed(x), ky = obs_keyed(y);
	if (kx != ky)
		return ky - kx;
	if (kx && x->fi.client_id != y->fi.client_id)
		return (x->fi.client_id > y->fi.client_id) - (x->fi.client_id < y->fi.client_id);
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	if (x->start_time != y->start_time)
		return (x->start_time > y->start_time) - (x->start_time < y->start_time);
	return (x > y) - (x < y);
}

static int by_process(const void *a, const void *b)
{
	const struct drm_obs *x = *(const struct drm_obs *const *)a, *y = *(const struct drm_obs *const *)b;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	if (x->start_time != y->start_time)
		return (x->start_time > y->start_time) - (x->start_time < y->start_time);
	if (x->dev != y->dev)
		return x->dev - y->dev;
	return (x > y) - (x < y);
}

static bool same_client(const struct drm_obs *a, const struct drm_obs *b)
{
	return a->dev == b->dev && obs_keyed(a) && obs_keyed(b) && a->fi.client_id == b->fi.client_id;
}

static bool same_holder(const struct drm_obs *a, const struct drm_obs *b)
{
	return a->pid == b->pid && a->start_time == b->start_time;
}

static void client_memory(struct client *c, const char *driver)
{
	const struct drm_fdinfo *fi = &c->info->fi;

	c->shared_keys = true;
	for (int i = 0; i < fi->n_regions; i++) {
		const struct drm_fdinfo_region *r = &fi->regions[i];
		uint64_t bytes;
		if (r->have & DRM_RK_SHARED) {
			c->shared += r->shared;
			c->shared_nonzero |= r->shared > 0;
		}
		enum drm_mem_class cls = drm_region_class(driver, r->name);
		if (cls != DRM_MEM_IGNORE && (r->have & DRM_RK_BAD))
			c->bad_value = true;
		if (cls == DRM_MEM_IGNORE || !drm_region_resident(r, &bytes))
			continue;
		c->has_mem = true;
		if (!(r->have & DRM_RK_SHARED))
			c->shared_keys = false;
		if (cls == DRM_MEM_VRAM)
			c->vram += bytes;
		else
			c->gtt += bytes;
	}
}

/* Engine load by class: the busiest engine of each class. A class with no
 * key is 0 for drivers that print only engines that ran (amdgpu), once the
 * client has been seen before. */
static void client_engines(struct client *c, const struct drm_dev_ctx *dx, struct drm_engine_state *st)
{
	struct drm_engine_pct pct[DRM_FDINFO_MAX_ENGINES];
	const struct drm_fdinfo *fi = &c->info->fi;
	const char *driver = fi->driver[0] ? fi->driver : dx->driver;
	bool present[DRM_ENG_N] = {false};

	bool had_prev = drm_engine_update(st, c->dev, fi->client_id, c->info->read_ns, fi, pct);
	for (int i = 0; i < fi->n_engines; i++) {
		enum drm_engine_class k = drm_engine_class(driver, fi->engines[i].name, dx->vcn_unified);
		present[k] = true;
		if (!pct[i].ok)
			continue;
		if (!c->cls[k].ok || pct[i].pct > c->cls[k].pct)
			c->cls[k] = (struct drm_class_load){true, pct[i].pct};
	}
	if (had_prev && drm_driver_omits_idle_engines(driver))
		for (int k = 1; k < DRM_ENG_N; k++) {
			/* a unified video ring has no encode or decode of its own */
			bool absent_class = dx->vcn_unified && (k == DRM_ENG_ENC || k == DRM_ENG_DEC);
			if (!present[k] && !absent_class)
				c->cls[k] = (struct drm_class_load){true, 0};
		}
}

/* Groups the reads (sorted by client) into clients; client_of[i] is the
 * client of in->obs[i]. */
static struct client *build_clients(const struct drm_attrib_in *in, const struct drm_obs **sorted, size_t n,
				    size_t *n_clients, size_t *client_of)
{
	struct client *cl = xcalloc(n ? n : 1, sizeof *cl);
	size_t nc = 0;

	for (size_t i = 0; i < n; i++) {
		const struct drm_obs *o = sorted[i];
		if (i == 0 || !same_client(sorted[i - 1], o)) {
			cl[nc] = (struct client){.dev = o->dev, .render = true};
			nc++;
		}
		struct client *c = &cl[nc - 1];
		client_of[o - in->obs] = nc - 1;
		if (i == 0 || !same_client(sorted[i - 1], o) || !same_holder(sorted[i - 1], o))
			c->n_holders++;
		c->render &= o->render;
		if (!c->info && o->read_ok)
			c->info = o;
	}
	for (size_t k = 0; k < nc; k++) {
		struct client *c = &cl[k];
		if (!c->info)
			continue;
		const struct drm_dev_ctx *dx = &in->devs[c->dev];
		/* a read without a client id cannot be told apart from its
		 * duplicates (each is a client of its own) nor followed between
		 * samples: its bytes are read, its engine load is not */
		c->no_id = !c->info->fi.has_client_id;
		client_memory(c, c->info->fi.driver[0] ? c->info->fi.driver : dx->driver);
		if (in->engines && !c->no_id)
			client_engines(c, dx, in->engines);
	}
	*n_clients = nc;
	return cl;
}

/* Why this process's VRAM cannot be charged to it, or NULL when it can. */
static const char *na_reason(const struct drm_attrib_in *in, struct client *const *mine, int n)
{
	static const struct {
		const char *reason;
		int check; /* index into the tests below */
	} order[] = {
		{DRM_NA_INCOMPLETE, 0}, {DRM_NA_UNPARSEABLE, 7}, {DRM_NA_NO_CLIENT_ID, 8}, {DRM_NA_PARTIAL, 1},
		{DRM_NA_NO_MEMORY, 2}, {DRM_NA_LEGACY, 3}, {DRM_NA_SHARED_CLIENT, 4}, {DRM_NA_PRIMARY, 5},
		{DRM_NA_SHARED_BUFFERS, 6},
	};
	bool fails[9] = {false};

	fails[1] = in->partial;
	for (int i = 0; i < n; i++) {
		const struct client *c = mine[i];
		fails[0] |= !c->info;
		if (!c->info)
			continue;
		fails[3] |= c->has_mem && !c->shared_keys;
		fails[4] |= c->n_holders > 1;
		fails[5] |= !c->render;
		fails[6] |= c->shared_nonzero;
		/* another holder's unreadable value is not this process's reason:
		 * a client held by several processes is a shared client */
		fails[7] |= c->bad_value && c->n_holders <= 1;
		fails[8] |= c->no_id;
	}
	/* no memory keys at all (i915 before 6.7 printed engines only) */
	bool any_mem = false;
	for (int i = 0; i < n; i++)
		any_mem |= mine[i]->info && mine[i]->has_mem;
	fails[2] = !any_mem && !fails[0];
	for (size_t k = 0; k < ARRAY_LEN(order); k++)
		if (fails[order[k].check])
			return order[k].reason;
	return NULL;
}

static void set_engine_fields(struct gtm_gpu_use *u, const struct drm_class_load *cls)
{
	static const struct {
		enum drm_engine_class k;
		size_t off;
	} fields[] = {
		{DRM_ENG_GFX, offsetof(struct gtm_gpu_use, gfx_pct)},
		{DRM_ENG_COMPUTE, offsetof(struct gtm_gpu_use, sm_pct)},
		{DRM_ENG_COPY, offsetof(struct gtm_gpu_use, copy_pct)},
		{DRM_ENG_VIDEO, offsetof(struct gtm_gpu_use, video_pct)},
		{DRM_ENG_ENC, offsetof(struct gtm_gpu_use, enc_pct)},
		{DRM_ENG_DEC, offsetof(struct gtm_gpu_use, dec_pct)},
	};
	for (size_t i = 0; i < ARRAY_LEN(fields); i++) {
		gtm_f64 *f = (gtm_f64 *)((char *)u + fields[i].off);
		const struct drm_class_load *l = &cls[fields[i].k];
		*f = l->ok ? gtm_f64_of(l->pct > 100 ? 100 : l->pct, GTM_MEASURED) : GTM_F64_NA;
	}
}

/* Sums a class over clients; known only when every client knows it. */
static void sum_loads(struct drm_class_load *out, struct client *const *cs, int n)
{
	for (int k = 0; k < DRM_ENG_N; k++) {
		out[k] = (struct drm_class_load){n > 0, 0};
		for (int i = 0; i < n; i++) {
			if (!cs[i]->info || !cs[i]->cls[k].ok)
				out[k].ok = false;
			else
				out[k].pct += cs[i]->cls[k].pct;
		}
	}
}

static void set_bytes(struct gtm_gpu_use *u, bool is_apu, uint64_t vram, uint64_t gtt)
{
	/* on an APU GTT is the GPU's own memory: shown with VRAM, never as spill */
	if (is_apu) {
		u->ref_vram = gtm_u64_of(vram + gtt, GTM_MEASURED);
	} else {
		u->ref_vram = gtm_u64_of(vram, GTM_MEASURED);
		u->ref_spill = gtm_u64_of(gtt, GTM_MEASURED);
	}
}

/* Whether a client's bytes can go to the unattributed row: read whole, with
 * memory keys that all parsed. */
static bool client_countable(const struct client *c)
{
	return c->info && c->has_mem && !c->bad_value;
}

/* One (process, device): its distinct clients mine[0..n). */
static void emit_process(const struct drm_attrib_in *in, const struct drm_obs *o, bool kfd,
			 struct client **mine, int n, struct gtm_raw_uses *uses)
{
	const struct drm_dev_ctx *dx = &in->devs[o->dev];
	struct gtm_raw_use *r = raw_uses_add(uses);
	struct gtm_gpu_use *u = &r->use;
	uint64_t vram = 0, gtt = 0, shared = 0;
	bool any_mem = false, any_bad = false, all_shared_keys = true, sole = !in->partial;

	r->pid = o->pid;
	r->start_time = o->start_time;
	u->dev_index = in->dev_base + o->dev;
	u->source_pid = o->pid;
	/* the NVML lists' DRM counterparts: ROCm (KFD) is compute; a DRM client
	 * without KFD is a graphics-API (Mesa: GL, Vulkan, VA-API) client */
	u->compute = kfd;
	u->graphics = !kfd;
	u->n_clients = n;
	for (int i = 0; i < n; i++) {
		const struct client *c = mine[i];
		sole &= c->n_holders == 1 && c->info;
		if (!c->info)
			continue;
		any_bad |= c->bad_value;
		if (!c->has_mem)
			continue;
		any_mem = true;
		all_shared_keys &= c->shared_keys;
		vram += c->vram;
		gtt += c->gtt;
		shared += c->shared;
	}
	/* references come only from memory keys read whole: a client that
	 * prints none (i915 before 6.7) or one we could not parse has no
	 * reference, never a 0 or a partial sum */
	if (any_mem && !any_bad) {
		set_bytes(u, dx->is_apu, vram, gtt);
		if (all_shared_keys)
			u->ref_shared = gtm_u64_of(shared, GTM_MEASURED);
	}
	const char *why = na_reason(in, mine, n);
	if (why) {
		str_copy(u->na_reason, why, sizeof u->na_reason);
		for (int i = 0; i < n; i++)
			mine[i]->unattributed = client_countable(mine[i]);
	} else {
		u->vram = u->ref_vram;
		u->spill = u->ref_spill;
	}
	/* ROCm queues bypass the kernel's accounting: load N/A, never 0; a
	 * client another process also holds cannot say who ran the work */
	struct drm_class_load cls[DRM_ENG_N];
	sum_loads(cls, mine, n);
	if (kfd || !sole || !in->engines)
		memset(cls, 0, sizeof cls);
	set_engine_fields(u, cls);
}

/* The rows of bytes no process could be charged with, one per device. */
static void emit_unattributed(const struct drm_attrib_in *in, const struct client *cl, size_t nc,
			      struct gtm_raw_uses *uses)
{
	for (int d = 0; d < in->n_devs; d++) {
		uint64_t vram = 0, gtt = 0, shared = 0;
		int n = 0, n_no_id = 0;
		bool all_shared_keys = true;
		for (size_t k = 0; k < nc; k++) {
			if (cl[k].dev != d || !cl[k].unattributed)
				continue;
			vram += cl[k].vram;
			gtt += cl[k].gtt;
			shared += cl[k].shared;
			all_shared_keys &= cl[k].shared_keys;
			n_no_id += cl[k].no_id;
			n++;
		}
		if (n == 0)
			continue;
		struct gtm_raw_use *r = raw_uses_add(uses);
		struct gtm_gpu_use *u = &r->use;
		u->dev_index = in->dev_base + d;
		u->n_clients = n;
		set_bytes(u, in->devs[d].is_apu, vram, gtt);
		if (all_shared_keys)
			u->ref_shared = gtm_u64_of(shared, GTM_MEASURED);
		/* clients without an id cannot be de-duplicated: a dup'ed fd of
		 * one is counted once per fd (the source adds a note) */
		if (n_no_id > 0)
			str_copy(u->na_reason, DRM_NA_UNATTRIB_NO_ID, sizeof u->na_reason);
		/* a buffer two of these clients share is in both their counts */
		u->vram = u->ref_vram;
		u->spill = u->ref_spill;
	}
}

static void device_loads(const struct drm_attrib_in *in, struct client *cl, size_t nc, struct drm_dev_load *loads)
{
	struct client **mine = xmalloc((nc ? nc : 1) * sizeof *mine);
	for (int d = 0; d < in->n_devs; d++) {
		int n = 0;
		for (size_t k = 0; k < nc; k++)
			if (cl[k].dev == d)
				mine[n++] = &cl[k];
		sum_loads(loads[d].cls, mine, n);
		for (int k = 0; k < DRM_ENG_N; k++) {
			loads[d].cls[k].ok &= !in->partial && in->engines != NULL;
			if (loads[d].cls[k].pct > 100)
				loads[d].cls[k].pct = 100;
		}
		loads[d].n_clients = n;
		for (int i = 0; i < n; i++)
			loads[d].n_no_id_unattributed += mine[i]->unattributed && mine[i]->no_id;
	}
	free(mine);
}

void drm_attribute(const struct drm_attrib_in *in, struct gtm_raw_uses *uses, struct drm_dev_load *loads)
{
	size_t n = in->n_obs, nc = 0;
	const struct drm_obs **sorted = xmalloc((n ? n : 1) * sizeof *sorted);
	size_t *client_of = xcalloc(n ? n : 1, sizeof *client_of);
	struct client **mine = xmalloc((n ? n : 1) * sizeof *mine);

	/* reads of devices the caller does not know are not counted anywhere */
	size_t kept = 0;
	for (size_t i = 0; i < in->n_obs; i++)
		if (in->obs[i].dev >= 0 && in->obs[i].dev < in->n_devs)
			sorted[kept++] = &in->obs[i];
	n = kept;
	qsort(sorted, n, sizeof *sorted, by_client);
	struct client *cl = build_clients(in, sorted, n, &nc, client_of);
	/* the same reads, now grouped by (process, device) */
	qsort(sorted, n, sizeof *sorted, by_process);
	if (loads)
		memset(loads, 0, (size_t)in->n_devs * sizeof *loads);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int m = 0;
		bool kfd = false;
		for (; j < n && same_holder(sorted[j], sorted[i]) && sorted[j]->dev == sorted[i]->dev; j++) {
			struct client *c = &cl[client_of[sorted[j] - in->obs]];
			bool dup = false;
			for (int k = 0; k < m && !dup; k++)
				dup = mine[k] == c;
			if (!dup)
				mine[m++] = c;
			kfd |= sorted[j]->kfd;
		}
		emit_process(in, sorted[i], kfd, mine, m, uses);
		if (loads)
			loads[sorted[i]->dev].n_processes++;
		i = j;
	}
	emit_unattributed(in, cl, nc, uses);
	if (loads)
		device_loads(in, cl, nc, loads);
	free(cl);
	free(sorted);
	free(client_of);
	free(mine);
}
