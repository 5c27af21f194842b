/* Owner attribution on synthetic snapshots: local, '*' matched, '?' guessed,
 * H: host rows, unattributed bytes, pinning by start, PID coincidence, order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/attribute.h"
#include "core/util.h"

#define CUDA "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"

/* A local process row as the /proc scan leaves it (owner NONE). */
static void add_local(struct gtm_snapshot *s, uint32_t pid, uint64_t start, const char *map)
{
	struct gtm_process *p = snapshot_add_process(s);
	p->pid = pid;
	p->start_time = start;
	p->owner = GTM_OWNER_NONE;
	p->rss = gtm_u64_of(4096, GTM_MEASURED);
	snprintf(p->label, sizeof p->label, "%u", pid);
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	const char *maps[] = {"/usr/bin/python3.11", map};
	d->n_maps = map ? 2 : 1;
	d->maps = xcalloc(d->n_maps, sizeof *d->maps);
	for (size_t i = 0; i < d->n_maps; i++)
		d->maps[i] = xstrdup(maps[i]);
	p->detail = d;
}

static struct gtm_raw_use *add_raw(struct gtm_raw_uses *u, uint32_t pid, int dev, uint64_t vram)
{
	struct gtm_raw_use *r = raw_uses_add(u);
	r->pid = pid;
	r->use.dev_index = dev;
	r->use.source_pid = pid;
	r->use.compute = true;
	r->use.vram = gtm_u64_of(vram, GTM_MEASURED);
	return r;
}

/* A use in NVML's graphics list only (a display server, a GL/Vulkan client). */
static void add_raw_graphics(struct gtm_raw_uses *u, uint32_t pid, int dev, uint64_t vram)
{
	struct gtm_raw_use *r = add_raw(u, pid, dev, vram);
	r->use.compute = false;
	r->use.graphics = true;
}

static const struct gtm_process *row(const struct gtm_snapshot *s, const char *label)
{
	for (int i = 0; i < s->n_processes; i++)
		if (strcmp(s->processes[i].label, label) == 0)
			return &s->processes[i];
	fail_msg("no row labelled %s", label);
	return NULL;
}

static struct gtm_snapshot *snap_in(enum gtm_mode mode)
{
	struct gtm_snapshot *s = snapshot_new();
	s->mode = mode;
	return s;
}

static void test_local_and_order(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_NATIVE);
	struct gtm_raw_uses u = {0};
	add_local(s, 1, 1, NULL);
	add_local(s, 100, 50, CUDA);
	add_local(s, 200, 60, CUDA);
	add_local(s, 300, 70, CUDA);
	add_raw(&u, 100, 0, 1 << 20);
	add_raw(&u, 200, 0, 8 << 20);
	add_raw(&u, 200, 1, 8 << 20);
	struct gtm_raw_use *na = add_raw(&u, 300, 0, 0);
	na->use.vram = GTM_U64_NA;
	attribute_uses(st, s, &u);
	assert_int_equal(s->n_gpu_processes, 3);
	assert_int_equal(s->n_processes, 4);
	assert_string_equal(s->processes[0].label, "200"); /* 16 MiB over two GPUs */
	assert_int_equal(s->processes[0].n_uses, 2);
	assert_string_equal(s->processes[1].label, "100");
	assert_string_equal(s->processes[2].label, "300"); /* unavailable sorts after measured */
	assert_string_equal(s->processes[3].label, "1");   /* the non-GPU row keeps its place after */
	assert_int_equal(s->processes[0].owner, GTM_OWNER_LOCAL);
	assert_int_equal(s->processes[0].host_pid, 0);
	assert_string_equal(s->processes[0].owner_reason, "PID is this process");
	assert_int_equal(s->processes[3].owner, GTM_OWNER_NONE);
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

static void test_unattributed_and_host(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_NATIVE);
	struct gtm_raw_uses u = {0};
	add_local(s, 10, 5, CUDA);
	add_raw(&u, 0, 0, 100);
	add_raw(&u, 0, 0, 50);
	add_raw(&u, 0, 1, 7);
	add_raw(&u, 4000001, 0, 1000); /* outside a container: not ours, not paired */
	attribute_uses(st, s, &u);
	assert_int_equal(s->n_gpu_processes, 3);
	const struct gtm_process *h = row(s, "H:4000001");
	assert_int_equal(h->owner, GTM_OWNER_HOST);
	assert_int_equal(h->pid, 0);
	assert_int_equal(h->host_pid, 4000001);
	assert_null(h->detail);
	assert_int_equal(h->uses[0].vram.v, 1000);
	assert_string_equal(h->owner_reason, "not in this /proc: exited, or hidden from this user");
	int n_un = 0;
	for (int i = 0; i < s->n_processes; i++) {
		const struct gtm_process *p = &s->processes[i];
		if (p->owner != GTM_OWNER_UNATTRIBUTED)
			continue;
		n_un++;
		assert_string_equal(p->label, "unattributed");
		assert_int_equal(p->n_uses, 1);
		assert_int_equal(p->uses[0].vram.v, p->uses[0].dev_index == 0 ? 150 : 7);
	}
	assert_int_equal(n_un, 2);
	assert_int_equal(row(s, "10")->owner, GTM_OWNER_NONE);
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

/* Equal counts: paired in creation order, certain; load follows the match. */
static void test_container_matched(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_CONTAINER);
	struct gtm_raw_uses u = {0};
	add_local(s, 10, 500, CUDA);
	add_local(s, 11, 100, CUDA);
	add_local(s, 12, 50, NULL); /* maps no libcuda: never a candidate */
	add_raw(&u, 4000002, 0, 2 << 20);
	struct gtm_raw_use *r = add_raw(&u, 4000001, 0, 1 << 20);
	r->use.sm_pct = gtm_f64_of(40, GTM_MEASURED);
	attribute_uses(st, s, &u);
	const struct gtm_process *p = row(s, "*11"); /* oldest local ↔ lowest host PID */
	assert_int_equal(p->owner, GTM_OWNER_MATCHED);
	assert_int_equal(p->pid, 11);
	assert_int_equal(p->host_pid, 4000001);
	assert_int_equal(p->uses[0].source_pid, 4000001);
	assert_true(p->uses[0].sm_pct.v == 40 && p->uses[0].vram.v == 1 << 20);
	assert_string_equal(p->owner_reason, "paired by creation order: 2 host PIDs, 2 CUDA processes here");
	p = row(s, "*10");
	assert_int_equal(p->host_pid, 4000002);
	assert_int_equal(row(s, "12")->owner, GTM_OWNER_NONE);
	assert_int_equal(s->n_gpu_processes, 2);
	assert_string_equal(s->processes[0].label, "*10"); /* more VRAM first */
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

/* NVML lists more than the container has: '?' and the rest H:. */
static void test_container_guessed(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_CONTAINER);
	struct gtm_raw_uses u = {0};
	add_local(s, 20, 100, CUDA);
	add_local(s, 21, 200, CUDA);
	add_raw(&u, 4000001, 0, 1);
	add_raw(&u, 4000002, 0, 2);
	add_raw(&u, 4000003, 0, 3);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "?20")->host_pid, 4000001);
	assert_int_equal(row(s, "?21")->host_pid, 4000002);
	assert_int_equal(row(s, "?21")->owner, GTM_OWNER_GUESSED);
	assert_string_equal(row(s, "?20")->owner_reason, "guessed by creation order: 3 host PIDs for 2 CUDA processes here");
	const struct gtm_process *h = row(s, "H:4000003");
	assert_string_equal(h->owner_reason, "host PID: no process of this container to pair it with");
	assert_int_equal(s->n_gpu_processes, 3);
	raw_uses_free(&u);
	snapshot_free(s);

	/* fewer NVML PIDs than CUDA processes here: not certain either */
	s = snap_in(GTM_MODE_CONTAINER);
	add_local(s, 20, 100, CUDA);
	add_local(s, 21, 200, CUDA);
	add_raw(&u, 4000009, 0, 1);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "?20")->owner, GTM_OWNER_GUESSED);
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

/* Refresh 1: A paired by guess with X, Z left as H:. Refresh 2: B and Y
 * appear together and pin each other; X stays with A; Z stays H:. */
static void test_pinned_by_start(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_CONTAINER);
	struct gtm_raw_uses u = {0};
	add_local(s, 30, 100, CUDA);
	add_raw(&u, 4000001, 0, 1); /* X */
	add_raw(&u, 4000002, 0, 2); /* Z */
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "?30")->host_pid, 4000001);
	row(s, "H:4000002");
	raw_uses_free(&u);
	snapshot_free(s);

	s = snap_in(GTM_MODE_CONTAINER);
	add_local(s, 30, 100, CUDA);
	add_local(s, 31, 900, CUDA); /* B, new */
	add_raw(&u, 4000001, 0, 1);
	add_raw(&u, 4000002, 0, 2);
	add_raw(&u, 4000007, 0, 3); /* Y, new */
	attribute_uses(st, s, &u);
	const struct gtm_process *b = row(s, "*31");
	assert_int_equal(b->host_pid, 4000007);
	assert_string_equal(b->owner_reason, "pinned: this process and the host PID appeared in the same refresh");
	assert_int_equal(row(s, "?30")->host_pid, 4000001); /* kept */
	row(s, "H:4000002");
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

/* A pairing holds while both sides remain, even when the order would change. */
static void test_pairing_is_sticky(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_CONTAINER);
	struct gtm_raw_uses u = {0};
	add_local(s, 40, 100, CUDA);
	add_local(s, 41, 200, CUDA);
	add_raw(&u, 4000010, 0, 1);
	add_raw(&u, 4000020, 0, 2);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "*40")->host_pid, 4000010);
	raw_uses_free(&u);
	snapshot_free(s);

	/* process 40 is gone, a new one started: 4000020 must stay with 41 */
	s = snap_in(GTM_MODE_CONTAINER);
	add_local(s, 41, 200, CUDA);
	add_local(s, 42, 50, CUDA); /* an older start, but 41's pairing holds */
	add_raw(&u, 4000020, 0, 2);
	add_raw(&u, 4000030, 0, 3);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "*41")->host_pid, 4000020);
	assert_int_equal(row(s, "*42")->host_pid, 4000030);
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

/* A host PID equal to an unrelated container PID (a shell mapping no
 * libcuda) is paired, not charged to the shell; outside containers it is. */
static void test_pid_coincidence(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_CONTAINER);
	struct gtm_raw_uses u = {0};
	add_local(s, 50, 10, NULL);
	add_local(s, 60, 20, CUDA);
	add_local(s, 61, 30, CUDA);
	add_raw(&u, 50, 0, 5);
	add_raw(&u, 4000002, 0, 6);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "50")->owner, GTM_OWNER_NONE);
	assert_int_equal(row(s, "*60")->host_pid, 50);
	assert_int_equal(row(s, "*61")->host_pid, 4000002);
	raw_uses_free(&u);
	snapshot_free(s);

	/* no idle CUDA process lacks an entry: the same PID is trusted (another
	 * container: a fresh state, or its pairings above would hold) */
	attribute_state_free(st);
	st = attribute_state_new();
	s = snap_in(GTM_MODE_CONTAINER);
	add_local(s, 50, 10, NULL);
	add_local(s, 60, 20, CUDA);
	add_raw(&u, 50, 0, 5);
	add_raw(&u, 4000002, 0, 6);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "50")->owner, GTM_OWNER_LOCAL);
	assert_int_equal(row(s, "*60")->host_pid, 4000002);
	raw_uses_free(&u);
	snapshot_free(s);

	/* an OpenCL user (libnvidia-opencl, no libcuda) is itself */
	attribute_state_free(st);
	st = attribute_state_new();
	s = snap_in(GTM_MODE_CONTAINER);
	add_local(s, 50, 10, "/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.550.54.15");
	add_local(s, 60, 20, CUDA);
	add_local(s, 61, 30, CUDA);
	add_raw(&u, 50, 0, 5);
	add_raw(&u, 4000002, 0, 6);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "50")->owner, GTM_OWNER_LOCAL);
	raw_uses_free(&u);
	snapshot_free(s);

	/* a graphics user mapping no libcuda is still itself */
	attribute_state_free(st);
	st = attribute_state_new();
	s = snap_in(GTM_MODE_CONTAINER);
	add_local(s, 50, 10, NULL);
	add_local(s, 60, 20, CUDA);
	add_raw(&u, 50, 0, 5)->use.graphics = true;
	add_raw(&u, 4000002, 0, 6);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "50")->owner, GTM_OWNER_LOCAL);
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);

	st = attribute_state_new();
	s = snap_in(GTM_MODE_NATIVE);
	add_local(s, 50, 10, NULL);
	add_raw(&u, 50, 0, 5);
	add_raw(&u, 4000002, 0, 6);
	attribute_uses(st, s, &u);
	assert_int_equal(row(s, "50")->owner, GTM_OWNER_LOCAL);
	row(s, "H:4000002");
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

/* One attribution state over several refreshes: refresh() attributes the
 * uses to the snapshot, then frees both for the next one. */
struct fx {
	struct attribute_state *st;
	struct gtm_snapshot *s;
	struct gtm_raw_uses u;
};

static int fx_setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof *f);
	f->st = attribute_state_new();
	f->s = snap_in(GTM_MODE_CONTAINER);
	*state = f;
	return 0;
}

static void fx_drop_refresh(struct fx *f)
{
	raw_uses_free(&f->u);
	snapshot_free(f->s);
	f->s = NULL;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	fx_drop_refresh(f);
	attribute_state_free(f->st);
	free(f);
	return 0;
}

static void fx_attribute(struct fx *f)
{
	attribute_uses(f->st, f->s, &f->u);
}

/* The next refresh of the same container (state kept), or with fresh state. */
static void fx_next(struct fx *f, bool keep_state)
{
	fx_drop_refresh(f);
	if (!keep_state) {
		attribute_state_free(f->st);
		f->st = attribute_state_new();
	}
	f->s = snap_in(GTM_MODE_CONTAINER);
}

/* Two CUDA processes of the container: 10 (older), 11. */
static void add_two_cuda(struct fx *f)
{
	add_local(f->s, 10, 100, CUDA);
	add_local(f->s, 11, 200, CUDA);
}

/* NVML's graphics list names processes that draw (the host's display server),
 * not CUDA processes: a graphics-only host PID takes no part in pairing, so
 * the compute PIDs and the CUDA processes here are as many and both are '*'.
 * A PID in both lists is a compute PID, counted once. */
static void test_graphics_only_host_pid(void **state)
{
	struct fx *f = *state;
	add_two_cuda(f);
	add_raw(&f->u, 4000001, 0, 1)->use.graphics = true; /* both lists: compute */
	add_raw(&f->u, 4000002, 0, 2);
	add_raw_graphics(&f->u, 3000, 0, 64 << 20); /* the host's Xorg: graphics only */
	fx_attribute(f);
	const struct gtm_process *p = row(f->s, "*10");
	assert_int_equal(p->owner, GTM_OWNER_MATCHED);
	assert_int_equal(p->host_pid, 4000001);
	assert_string_equal(p->owner_reason, "paired by creation order: 2 host PIDs, 2 CUDA processes here");
	assert_int_equal(row(f->s, "*11")->host_pid, 4000002);
	const struct gtm_process *h = row(f->s, "H:3000");
	assert_int_equal(h->owner, GTM_OWNER_HOST);
	assert_string_equal(h->owner_reason, "host PID in the graphics list only: no process here is proven to be it");

	/* a PID graphics-only on one device and compute on another is one compute PID */
	fx_next(f, false);
	add_two_cuda(f);
	add_raw_graphics(&f->u, 4000001, 0, 1);
	add_raw(&f->u, 4000001, 1, 5);
	add_raw(&f->u, 4000002, 0, 2);
	fx_attribute(f);
	assert_int_equal(row(f->s, "*10")->n_uses, 2);
	assert_int_equal(row(f->s, "*11")->host_pid, 4000002);

	/* fewer compute PIDs than CUDA processes: a guess, and still never the graphics PID */
	fx_next(f, false);
	add_two_cuda(f);
	add_raw_graphics(&f->u, 2000, 0, 64 << 20);
	add_raw(&f->u, 4000002, 0, 2);
	fx_attribute(f);
	assert_int_equal(row(f->s, "?10")->host_pid, 4000002);
	assert_string_equal(row(f->s, "?10")->owner_reason,
			    "guessed by creation order: 1 host PIDs for 2 CUDA processes here");
	assert_int_equal(row(f->s, "11")->owner, GTM_OWNER_NONE);
	row(f->s, "H:2000");
}

/* A new CUDA process and a new compute host PID pin each other even when the
 * host's display server restarted in the same refresh (a new graphics PID). */
static void test_graphics_pid_does_not_block_pinning(void **state)
{
	struct fx *f = *state;
	add_local(f->s, 30, 100, CUDA);
	add_raw(&f->u, 4000001, 0, 1);
	fx_attribute(f);
	assert_int_equal(row(f->s, "*30")->host_pid, 4000001);

	fx_next(f, true);
	add_local(f->s, 30, 100, CUDA);
	add_local(f->s, 31, 900, CUDA);
	add_raw(&f->u, 4000001, 0, 1);
	add_raw(&f->u, 4000007, 0, 3);
	add_raw_graphics(&f->u, 3001, 0, 64 << 20);
	fx_attribute(f);
	const struct gtm_process *b = row(f->s, "*31");
	assert_int_equal(b->host_pid, 4000007);
	assert_string_equal(b->owner_reason, "pinned: this process and the host PID appeared in the same refresh");
	row(f->s, "H:3001");
}

/* A same-PID shell is distrusted when the container has more idle CUDA
 * processes than unresolved *compute* PIDs: a graphics-only host PID is no
 * CUDA process's missing entry. */
static void test_coincidence_counts_compute_only(void **state)
{
	struct fx *f = *state;
	add_local(f->s, 50, 10, NULL);
	add_local(f->s, 60, 20, CUDA);
	add_local(f->s, 61, 30, CUDA);
	add_raw(&f->u, 50, 0, 5);
	add_raw(&f->u, 4000002, 0, 6);
	add_raw_graphics(&f->u, 4000003, 0, 64 << 20);
	fx_attribute(f);
	assert_int_equal(row(f->s, "50")->owner, GTM_OWNER_NONE);
	assert_int_equal(row(f->s, "*60")->host_pid, 50);
	assert_int_equal(row(f->s, "*61")->host_pid, 4000002);
	row(f->s, "H:4000003");
}

/* A use with a start time came from this /proc (DRM), not from the host: when
 * its process is gone it is no host PID to pair. */
static void test_local_source_pid_not_paired(void **state)
{
	struct fx *f = *state;
	add_local(f->s, 10, 100, CUDA);
	add_raw(&f->u, 77, 0, 5)->start_time = 4242; /* KFD client that exited mid-refresh */
	fx_attribute(f);
	assert_int_equal(row(f->s, "10")->owner, GTM_OWNER_NONE);
	assert_string_equal(row(f->s, "H:77")->owner_reason, "not in this /proc: exited, or hidden from this user");
}

/* n compute host PIDs: 4000010 (1 MiB), 4000020 (2 MiB), ... */
static void add_hosts(struct fx *f, int n)
{
	for (int k = 1; k <= n; k++)
		add_raw(&f->u, 4000000 + 10 * (uint32_t)k, 0, (uint64_t)k << 20);
}

static void set_name(struct gtm_snapshot *s, const char *name)
{
	str_copy(s->processes[s->n_processes - 1].name, name, sizeof s->processes[0].name);
}

/* A paired host PID keeps its owner: when that process exits while NVML
 * still lists the PID, the row shows it exited until NVML drops the PID, and
 * the PID is never handed to another process (a new one, or one reusing the
 * PID). */
static void test_exited_owner_keeps_host_pid(void **state)
{
	struct fx *f = *state;
	add_local(f->s, 40, 100, CUDA);
	set_name(f->s, "trainer");
	add_local(f->s, 41, 200, CUDA);
	add_hosts(f, 2);
	fx_attribute(f);
	assert_int_equal(row(f->s, "*40")->host_pid, 4000010);

	/* 40 exits, 42 starts; NVML still lists 4000010 (the context is being torn down) */
	fx_next(f, true);
	add_local(f->s, 41, 200, CUDA);
	add_local(f->s, 42, 300, CUDA);
	add_hosts(f, 2);
	fx_attribute(f);
	const struct gtm_process *x = row(f->s, "*x40");
	assert_int_equal(x->owner, GTM_OWNER_EXITED);
	assert_int_equal(x->pid, 0);
	assert_int_equal(x->host_pid, 4000010);
	assert_int_equal(x->exited_pid, 40);
	assert_int_equal(x->exited_pairing, GTM_OWNER_MATCHED);
	assert_int_equal(x->start_time, 100);
	assert_string_equal(x->name, "trainer");
	assert_null(x->detail);
	assert_int_equal(x->uses[0].vram.v, 1 << 20);
	assert_string_equal(x->owner_reason, "exited: the process paired with this host PID is gone; the driver still lists it");
	assert_int_equal(row(f->s, "42")->owner, GTM_OWNER_NONE);
	assert_int_equal(row(f->s, "*41")->host_pid, 4000020);
	assert_int_equal(f->s->n_gpu_processes, 2);

	/* PID 40 reused by a new CUDA process, which starts with its own host PID */
	fx_next(f, true);
	add_local(f->s, 40, 500, CUDA);
	add_local(f->s, 41, 200, CUDA);
	add_local(f->s, 42, 300, CUDA);
	add_hosts(f, 3);
	fx_attribute(f);
	assert_int_equal(row(f->s, "*x40")->host_pid, 4000010);
	const struct gtm_process *n = row(f->s, "*40");
	assert_int_equal(n->start_time, 500);
	assert_int_equal(n->host_pid, 4000030);
	assert_string_equal(n->owner_reason, "pinned: this process and the host PID appeared in the same refresh");
	assert_int_equal(row(f->s, "42")->owner, GTM_OWNER_NONE);

	/* NVML drops the PID: the exited row goes, and so does the hold */
	fx_next(f, true);
	add_local(f->s, 40, 500, CUDA);
	add_local(f->s, 41, 200, CUDA);
	add_local(f->s, 42, 300, CUDA);
	add_raw(&f->u, 4000020, 0, 2 << 20);
	add_raw(&f->u, 4000030, 0, 3 << 20);
	fx_attribute(f);
	assert_int_equal(f->s->n_gpu_processes, 2);
	assert_int_equal(row(f->s, "*40")->host_pid, 4000030);
	assert_int_equal(row(f->s, "42")->owner, GTM_OWNER_NONE);
}

/* An exited process whose pairing was a guess stays a guess ('?x'), and the
 * host PIDs left over cannot be certain beside it: it may have been another. */
static void test_exited_guess_stays_guess(void **state)
{
	struct fx *f = *state;
	add_local(f->s, 40, 100, CUDA);
	add_hosts(f, 2);
	fx_attribute(f);
	assert_int_equal(row(f->s, "?40")->host_pid, 4000010);
	row(f->s, "H:4000020");

	fx_next(f, true);
	add_local(f->s, 41, 200, CUDA);
	add_hosts(f, 2);
	fx_attribute(f);
	const struct gtm_process *x = row(f->s, "?x40");
	assert_int_equal(x->owner, GTM_OWNER_EXITED);
	assert_int_equal(x->exited_pairing, GTM_OWNER_GUESSED);
	const struct gtm_process *p = row(f->s, "?41");
	assert_int_equal(p->host_pid, 4000020);
	assert_string_equal(p->owner_reason, "guessed: 1 host PIDs, 1 CUDA processes here, beside a pairing that is a guess");
}

/* Beside a pairing kept as a guess, equal counts of what is left prove
 * nothing: the guessed process may own the PID left over. */
static void test_kept_guess_keeps_rest_guessed(void **state)
{
	struct fx *f = *state;
	add_local(f->s, 40, 100, CUDA);
	add_hosts(f, 2);
	fx_attribute(f);
	assert_int_equal(row(f->s, "?40")->host_pid, 4000010);

	fx_next(f, true);
	add_local(f->s, 40, 100, CUDA);
	add_local(f->s, 41, 200, CUDA); /* new, but no new host PID to pin it to */
	add_hosts(f, 2);
	fx_attribute(f);
	assert_int_equal(row(f->s, "?40")->host_pid, 4000010);
	assert_int_equal(row(f->s, "?41")->host_pid, 4000020);
}

/* One refresh in which one process exits (its PID still listed) and another
 * starts with a new host PID: the new pair is pinned, nothing is reassigned. */
static void test_exit_and_start_in_one_refresh(void **state)
{
	struct fx *f = *state;
	add_local(f->s, 40, 100, CUDA);
	add_raw(&f->u, 4000010, 0, 1);
	fx_attribute(f);
	assert_int_equal(row(f->s, "*40")->host_pid, 4000010);

	fx_next(f, true);
	add_local(f->s, 41, 200, CUDA);
	add_raw(&f->u, 4000010, 0, 1);
	add_raw(&f->u, 4000011, 0, 5);
	fx_attribute(f);
	assert_int_equal(row(f->s, "*x40")->host_pid, 4000010);
	assert_int_equal(row(f->s, "*41")->host_pid, 4000011);
}

/* When /proc cannot be listed nobody is known to have exited: the pairings
 * are kept as they were (their host PIDs shown as H: meanwhile) and hold
 * again once the processes are seen. */
static void test_unlisted_proc_keeps_pairings(void **state)
{
	struct fx *f = *state;
	add_local(f->s, 40, 100, CUDA);
	add_local(f->s, 41, 200, CUDA);
	add_hosts(f, 2);
	fx_attribute(f);
	assert_int_equal(row(f->s, "*40")->host_pid, 4000010);

	fx_next(f, true);
	f->s->procs_unlisted = true;
	add_hosts(f, 2);
	fx_attribute(f);
	assert_int_equal(row(f->s, "H:4000010")->owner, GTM_OWNER_HOST);
	row(f->s, "H:4000020");

	fx_next(f, true);
	add_local(f->s, 39, 50, CUDA); /* older than both: creation order would give it 4000010 */
	add_local(f->s, 40, 100, CUDA);
	add_local(f->s, 41, 200, CUDA);
	add_hosts(f, 3);
	fx_attribute(f);
	assert_int_equal(row(f->s, "*40")->host_pid, 4000010);
	assert_int_equal(row(f->s, "*41")->host_pid, 4000020);
	assert_int_equal(row(f->s, "*39")->host_pid, 4000030);
}

/* A source that knows start times (DRM) never charges a reused PID. */
static void test_start_time_must_match(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_NATIVE);
	struct gtm_raw_uses u = {0};
	add_local(s, 70, 1234, NULL);
	add_raw(&u, 70, 0, 5)->start_time = 999;
	add_raw(&u, 70, 1, 6)->start_time = 1234;
	attribute_uses(st, s, &u);
	const struct gtm_process *p = row(s, "70");
	assert_int_equal(p->n_uses, 1);
	assert_int_equal(p->uses[0].dev_index, 1);
	assert_string_equal(p->owner_reason, "PID and start time are this process");
	row(s, "H:70");
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

/* Under WSL NVML's PIDs are Windows PIDs: never charged to a Linux process. */
static void test_wsl_pids_are_windows(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_WSL);
	struct gtm_raw_uses u = {0};
	add_local(s, 80, 5, CUDA);
	add_raw(&u, 80, 0, 5);
	add_raw(&u, 81, 0, 6)->start_time = 7; /* a source that read /proc (DRM): Linux */
	add_local(s, 81, 7, NULL);
	attribute_uses(st, s, &u);
	const struct gtm_process *w = row(s, "W:80");
	assert_int_equal(w->owner, GTM_OWNER_HOST);
	assert_int_equal(w->pid, 0);
	assert_string_equal(w->owner_reason, "a Windows PID (WSL): never looked up here");
	assert_int_equal(row(s, "80")->owner, GTM_OWNER_NONE);
	assert_int_equal(row(s, "81")->owner, GTM_OWNER_LOCAL);
	raw_uses_free(&u);
	snapshot_free(s);
	attribute_state_free(st);
}

static void test_no_uses(void **state)
{
	(void)state;
	struct attribute_state *st = attribute_state_new();
	struct gtm_snapshot *s = snap_in(GTM_MODE_CONTAINER);
	struct gtm_raw_uses u = {0};
	attribute_uses(st, s, &u);
	assert_int_equal(s->n_processes, 0);
	add_local(s, 1, 1, CUDA);
	attribute_uses(st, s, &u);
	assert_int_equal(s->n_gpu_processes, 0);
	assert_int_equal(s->n_processes, 1);
	snapshot_free(s);
	attribute_state_free(st);
	attribute_state_free(NULL);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_and_order),     cmocka_unit_test(test_unattributed_and_host),
		cmocka_unit_test(test_container_matched),   cmocka_unit_test(test_container_guessed),
		cmocka_unit_test(test_pinned_by_start),     cmocka_unit_test(test_pairing_is_sticky),
		cmocka_unit_test(test_pid_coincidence),     cmocka_unit_test(test_start_time_must_match),
		cmocka_unit_test(test_wsl_pids_are_windows), cmocka_unit_test(test_no_uses),
		FX(test_graphics_only_host_pid),
		FX(test_graphics_pid_does_not_block_pinning),
		FX(test_coincidence_counts_compute_only),
		FX(test_local_source_pid_not_paired),
		FX(test_exited_owner_keeps_host_pid),
		FX(test_exited_guess_stays_guess),
		FX(test_kept_guess_keeps_rest_guessed),
		FX(test_exit_and_start_in_one_refresh),
		FX(test_unlisted_proc_keeps_pairings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
