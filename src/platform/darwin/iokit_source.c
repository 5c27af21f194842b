/* The Apple GPU source (iokit_source.h). One device per IOAccelerator; its
 * memory is the GPU's share of the one pool it shares with the CPU (Alloc
 * system memory out of hw.memsize), its load Device Utilization %, with
 * Renderer and Tiler as engines. Per process: GPU% from the clients' GPU
 * time between samples (agx.h), memory from the graphics ledger where macOS
 * lets us read it, else from footprint(1)'s graphics rows, run on a thread of
 * its own (fp_worker.h: own processes; root: all), else N/A saying why. Metal
 * gives one GPU time per process: 3D, compute, copy and video stay N/A. */
#include "iokit_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysctl.h>

#include "agx.h"
#include "core/util.h"
#include "fp_worker.h"
#include "iokit_read.h"
#include "proc_darwin.h"

#define MAX_DEVS 4
#define MAX_ROWS 1024
#define SETTLE_NS (3ull * 1000000000ull) /* one-shot output waits this long for footprint */

struct iokit {
	struct agx_tracker tracker;
	uint64_t memsize; /* hw.memsize, 0 when unreadable */
	struct agx_proc *rows;
	struct fp_worker *fp;     /* NULL: no thread, footprint's sizes N/A */
	bool one_shot;
};

static uint64_t start_of(void *ctx, uint32_t pid)
{
	(void)ctx;
	return darwin_proc_start_time(pid);
}

static void *iokit_open(const struct gtm_source_opts *o, struct gtm_source_status *st)
{
	struct ioreg_list l;
	char why[128] = "";
	ioreg_list_init(&l);
	int n = iokit_read_accelerators(&l, why, sizeof why);
	ioreg_list_free(&l);
	if (n <= 0) {
		snprintf(st->message, sizeof st->message, "%s", n < 0 ? why : "no IOAccelerator in the IOKit registry");
		return NULL;
	}
	struct iokit *k = xcalloc(1, sizeof *k);
	size_t len = sizeof k->memsize;
	if (sysctlbyname("hw.memsize", &k->memsize, &len, NULL, 0) != 0)
		k->memsize = 0;
	k->rows = xcalloc(MAX_ROWS, sizeof *k->rows);
	k->one_shot = o->one_shot;
	char fp_why[128] = "";
	k->fp = fp_worker_start(fp_why, sizeof fp_why);
	snprintf(st->message, sizeof st->message, "IOKit: %d accelerator%s", n, n == 1 ? "" : "s");
	return k;
}

static void add_device(struct iokit *k, struct gtm_snapshot *snap, const struct agx_device *a, int seen)
{
	struct gtm_device *d = snapshot_add_device(snap);
	d->vendor = GTM_VENDOR_APPLE;
	str_copy(d->source, "iokit", sizeof d->source);
	str_copy(d->name, a->model, sizeof d->name);
	snprintf(d->uuid, sizeof d->uuid, "iokit:%s", a->model);
	str_copy(d->driver, "AGX", sizeof d->driver);
	d->is_apu = true;
	d->mem_used = a->alloc_mem;
	if (k->memsize)
		d->mem_total = gtm_u64_of(k->memsize, GTM_MEASURED);
	d->util_gpu_pct = a->device_pct;
	const struct { const char *name; gtm_f64 v; } eng[] = {{"renderer", a->renderer_pct}, {"tiler", a->tiler_pct}};
	for (size_t i = 0; i < ARRAY_LEN(eng); i++)
		if (gtm_f64_ok(eng[i].v)) {
			struct gtm_engine *e = &d->engines[d->n_engines++];
			str_copy(e->name, eng[i].name, sizeof e->name);
			e->busy_pct = eng[i].v;
		}
	d->n_processes_seen = seen;
	if (gtm_u64_ok(a->in_use_mem))
		snapshot_add_note(snap, "GPU %d (%s): In use system memory %llu MiB of the %llu MiB allocated", d->index,
				  a->model, (unsigned long long)(a->in_use_mem.v >> 20),
				  (unsigned long long)(a->alloc_mem.v >> 20));
}

/* The graphics ledger's size, else footprint's (asked for here, read when
 * its thread has it). */
static enum darwin_gfx graphics_bytes(struct iokit *k, const struct agx_proc *r, bool ask, uint64_t *bytes)
{
	enum darwin_gfx g = darwin_graphics_footprint(r->pid, bytes);
	bool denied = false;

	if (g == DARWIN_GFX_OK || g == DARWIN_GFX_GONE || !k->fp)
		return g;
	if (ask)
		fp_worker_want(k->fp, r->pid, r->start_time, gtm_f64_ok(r->gpu_pct) && r->gpu_pct.v > 0);
	if (fp_worker_get(k->fp, r->pid, r->start_time, bytes, &denied))
		return DARWIN_GFX_OK;
	return denied ? DARWIN_GFX_DENIED : DARWIN_GFX_PENDING;
}

static void add_use(struct iokit *k, struct gtm_raw_uses *uses, const struct agx_proc *r, int dev_base)
{
	static const char *const why[] = {
		[DARWIN_GFX_DENIED] = "another user's process (root sees it)",
		[DARWIN_GFX_GONE] = "the process exited",
		[DARWIN_GFX_UNSUPPORTED] = "no graphics ledger in this macOS",
		[DARWIN_GFX_PENDING] = "footprint has not answered yet",
	};
	struct gtm_raw_use *u = raw_uses_add(uses);
	u->pid = r->pid;
	u->start_time = r->start_time;
	u->use.dev_index = dev_base + r->dev;
	u->use.source_pid = r->pid;
	u->use.graphics = true;
	u->use.busy_pct = r->gpu_pct;
	u->use.n_clients = r->n_clients;
	uint64_t bytes = 0;
	enum darwin_gfx g = graphics_bytes(k, r, !k->one_shot, &bytes);
	if (g == DARWIN_GFX_OK)
		u->use.vram = gtm_u64_of(bytes, GTM_MEASURED);
	else
		str_copy(u->use.na_reason, why[g], sizeof u->use.na_reason);
}

static int iokit_sample(void *priv, struct gtm_snapshot *snap, struct gtm_raw_uses *uses,
			struct gtm_source_status *st)
{
	struct iokit *k = priv;
	struct ioreg_list l;
	struct agx_device devs[MAX_DEVS];
	struct agx_client *c = NULL;
	size_t nc = 0;
	char why[128] = "";
	ioreg_list_init(&l);
	if (iokit_read_accelerators(&l, why, sizeof why) < 0) {
		snprintf(st->message, sizeof st->message, "%s", why);
		ioreg_list_free(&l);
		return -1;
	}
	int nd = agx_walk(&l, devs, MAX_DEVS, &c, &nc);
	size_t nr = agx_tracker_update(&k->tracker, c, nc, now_monotonic_ns(), start_of, NULL, k->rows, MAX_ROWS);
	int base = snap->n_devices;
	for (int i = 0; i < nd; i++) {
		int seen = 0;
		for (size_t j = 0; j < nc; j++) {
			bool first = c[j].dev == i;
			for (size_t q = 0; q < j && first; q++)
				first = !(c[q].dev == i && c[q].pid == c[j].pid);
			seen += first;
		}
		add_device(k, snap, &devs[i], seen);
	}
	if (k->one_shot && k->fp) { /* no later refresh: ask for every size, wait for them (bounded) */
		uint64_t b;
		for (size_t i = 0; i < nr; i++)
			graphics_bytes(k, &k->rows[i], true, &b);
		fp_worker_settle(k->fp, SETTLE_NS);
	}
	for (size_t i = 0; i < nr; i++)
		add_use(k, uses, &k->rows[i], base);
	free(c);
	ioreg_list_free(&l);
	return 0;
}

static void iokit_close(void *priv)
{
	struct iokit *k = priv;
	if (!k)
		return;
	fp_worker_stop(k->fp);
	agx_tracker_free(&k->tracker);
	free(k->rows);
	free(k);
}

const struct gtm_source_ops iokit_source_ops = {
	.name = "iokit",
	.open = iokit_open,
	.sample = iokit_sample,
	.close = iokit_close,
};
