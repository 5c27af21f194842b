/* One refresh of the pipeline: sources → /proc → owners → identify → explain.
 * The collector owns every cache that outlives a snapshot. */
#include "collect/collector.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/attribute.h"
#include "collect/devices_order.h"
#include "collect/opens_collect.h"
#include "collect/wsl_collect.h"
#include "core/sysroot.h"
#include "core/util.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "platform.h"
#include "platform/platform_time.h"
#include "sources/source.h"

/* The platform's sources (platform.h), in the order their devices are listed
 * before devices_order sorts them (NVIDIA first). */
static const struct gtm_source_ops *const *const source_table = platform_sources;

#define N_SOURCES PLATFORM_MAX_SOURCES

struct source_slot {
	const struct gtm_source_ops *ops;
	void *priv;
	bool opened;
	struct gtm_source_status status;
};

struct collector {
	struct collector_opts opts;
	struct source_slot sources[N_SOURCES + 1];
	struct gtm_raw_uses uses;
	enum gtm_mode mode;
	char hostname[64];
	struct proc_cache *proc;
	uint32_t *prio;          /* the driver's PIDs of this refresh, sorted */
	size_t cap_prio;
	uint32_t *parents;       /* the GPU runners' parents of the last refresh */
	size_t n_parents, cap_parents;
	struct attribute_state *attribute;
	struct identify_ctx *identify;
	struct explain_ctx *explain;
	struct wsl_collect *wsl;  /* WSL2 only: the host stream and the matcher */
	bool sampled_twice;       /* one-shot: the second sample for the loads was taken */
	struct opens_collect *opens; /* --trace-opens, or NULL */
};

static void load_environ(void *arg, const struct gtm_process *p)
{
	struct collector *c = arg;
	proc_detail_load_environ(c->proc, p);
}

struct collector *collector_new(const struct collector_opts *o)
{
	struct collector *c = xcalloc(1, sizeof *c);

	c->opts = *o;
	if (c->opts.budget_ns == 0 && !c->opts.one_shot)
		c->opts.budget_ns = 50ull * 1000 * 1000;
	for (size_t i = 0; source_table[i]; i++)
		c->sources[i].ops = source_table[i];
	c->mode = platform_detect_mode();
	if (gethostname(c->hostname, sizeof c->hostname) != 0)
		str_copy(c->hostname, "unknown", sizeof c->hostname);
	c->hostname[sizeof c->hostname - 1] = '\0';
	c->proc = proc_cache_new();
	if (c->mode == GTM_MODE_WSL && !o->devices_only)
		c->wsl = wsl_collect_new(o->no_host, o->one_shot, o->interval_s > 0 ? o->interval_s : 1.0);
	if (o->trace_opens && !o->devices_only)
		c->opens = opens_collect_new();
	c->attribute = attribute_state_new();
	c->identify = identify_ctx_new();
	identify_set_environ_loader(c->identify, load_environ, c);
	if (o->one_shot)
		identify_set_one_shot(c->identify);
	/* A replayed tree's ports are not this machine's: asking this loopback would
	 * answer for whatever server happens to listen here. GPUTASKMAN_ROOT_PROBE=1
	 * asks anyway, for a tree copied from this machine's own live processes. */
	const char *rp = getenv("GPUTASKMAN_ROOT_PROBE");
	bool replay = sysroot_prefix()[0] && !(rp && !strcmp(rp, "1"));
	c->explain = explain_ctx_new(!o->no_probe && !replay);
	if (replay && !o->no_probe)
		explain_ctx_no_probe_why(c->explain, "a replay under GPUTASKMAN_ROOT: its ports are not this machine's");
	return c;
}

/* Sources are opened at their first refresh, once: a missing driver stays
 * missing for the life of the process, and its reason is kept. Returns
 * whether a source needs a second sample for its loads. */
static bool sample_sources(struct collector *c, struct gtm_snapshot *snap)
{
	bool again = false;

	struct gtm_source_opts so = {.one_shot = c->opts.one_shot, .scan_budget_ns = c->opts.budget_ns};

	raw_uses_clear(&c->uses);
	for (size_t i = 0; source_table[i]; i++) {
		struct source_slot *s = &c->sources[i];
		if (!s->opened) {
			str_copy(s->status.name, s->ops->name, sizeof s->status.name);
			s->priv = s->ops->open(&so, &s->status);
			s->status.available = s->priv != NULL;
			s->opened = true;
		}
		if (s->priv) {
			s->status.message[0] = '\0';
			/* present, even when this refresh failed: its devices stay listed */
			s->status.failed = s->ops->sample(s->priv, snap, &c->uses, &s->status) != 0;
			s->status.available = true;
			again |= !s->status.failed && s->ops->needs_second_sample && s->ops->needs_second_sample(s->priv);
		}
		*snapshot_add_source(snap, s->ops->name) = s->status;
	}
	return again;
}

static struct gtm_snapshot *collector_snapshot_new(const struct collector *c)
{
	struct gtm_snapshot *snap = snapshot_new();
	str_copy(snap->hostname, c->hostname, sizeof snap->hostname);
	snap->mode = c->mode;
	return snap;
}

/* The sources' sample of a refresh. A one-shot run (--once, --json,
 * inspect) has no earlier refresh to take engine loads against: when a
 * source read such counters, they are read again GTM_SECOND_SAMPLE_NS
 * later, once, into a fresh snapshot (the first one's readings are
 * dropped, its time with them). The live view's next refresh is its second. */
static struct gtm_snapshot *sample_snapshot(struct collector *c)
{
	static const volatile sig_atomic_t never;
	struct gtm_snapshot *snap = collector_snapshot_new(c);

	if (!sample_sources(c, snap) || !c->opts.one_shot || c->sampled_twice)
		return snap;
	c->sampled_twice = true;
	snapshot_free(snap);
	os_sleep_until(now_monotonic_ns() + GTM_SECOND_SAMPLE_NS, &never);
	snap = collector_snapshot_new(c);
	sample_sources(c, snap);
	return snap;
}

/* Keeps only one device's rows when --gpu N was given. Device indexes stay
 * as they are, so "GPU 1" means the same card in every view. */
static void filter_gpu(struct gtm_snapshot *snap, int keep)
{
	int w = 0;

	for (int i = 0; i < snap->n_devices; i++)
		if (snap->devices[i].index == keep)
			snap->devices[w++] = snap->devices[i];
	snap->n_devices = w;
}

static void filter_uses(struct gtm_raw_uses *uses, int keep)
{
	size_t w = 0;

	for (size_t i = 0; i < uses->n; i++)
		if (uses->v[i].use.dev_index == keep)
			uses->v[w++] = uses->v[i];
		else
			gpu_use_release(&uses->v[i].use);
	uses->n = w;
}


/* Servers start listening after loading a model: AI rows get their ports
 * (every 2 s in the live view, which also reads other GPU rows' every 10 s:
 * each look loads the listening sockets, a sock_diag dump), others only
 * with --all; a row whose fds were not read says so. */
#define PORTS_AI_EVERY_NS (2ull * 1000000000ull)
#define PORTS_GPU_EVERY_NS (10ull * 1000000000ull)

static void refresh_ports(struct collector *c, const struct gtm_snapshot *snap, int i)
{
	struct gtm_process *p = &snap->processes[i];
	bool ai = ident_is_ai(p->ident);

	if ((ai || (i < snap->n_gpu_processes && !c->opts.one_shot)) && !c->opts.all)
		proc_refresh_ports_if_older(c->proc, p,
					    c->opts.one_shot ? 0 : ai ? PORTS_AI_EVERY_NS : PORTS_GPU_EVERY_NS);
}

static struct gtm_process *find_pid(struct gtm_snapshot *snap, uint32_t pid, int from)
{
	for (int i = from; i < snap->n_processes; i++)
		if (snap->processes[i].pid == pid)
			return &snap->processes[i];
	return NULL;
}

/* The parents GPU runners serve through (an Ollama runner's API is `ollama
 * serve`'s; a vLLM or SGLang worker's is its API server's, up to
 * RUNNER_MAX_HOPS levels up: API server -> engine core -> worker): read now
 * when the scan left them without details, identified, given their ports
 * before the runner is explained, listed beside the GPU rows, and detailed
 * by the next refresh's scan. */
#define RUNNER_MAX_HOPS 3

static void runner_parents(struct collector *c, struct gtm_snapshot *snap)
{
	c->n_parents = 0;
	for (int i = 0; i < snap->n_gpu_processes; i++) {
		const struct gtm_process *g = &snap->processes[i];
		for (int hop = 0; hop < RUNNER_MAX_HOPS && g->ppid > 1 && explain_serves_via_parent(g); hop++) {
			struct gtm_process *q = find_pid(snap, g->ppid, snap->n_gpu_processes);
			if (!q || q->runner_parent)
				break;
			if (!q->detail && proc_detail_load(c->proc, q) == 1)
				snap->n_procs_uninspectable++;
			if (q->detail)
				identify_process(c->identify, q);
			/* a shell or service manager above the server is no part of it */
			if (hop && !ident_is_ai(q->ident))
				break;
			q->runner_parent = true;
			c->parents = grow_array(c->parents, sizeof *c->parents, &c->cap_parents, c->n_parents);
			c->parents[c->n_parents++] = q->pid;
			refresh_ports(c, snap, (int)(q - snap->processes));
			if (q->n_ports)
				break; /* it listens: the API is here */
			g = q;
		}
	}
}

/* GPU rows first, then the parents they serve through, then the rest that
 * has details (every row with --all). */
static void enrich_processes(struct collector *c, struct gtm_snapshot *snap)
{
	for (int i = 0; i < snap->n_gpu_processes && i < snap->n_processes; i++)
		if (snap->processes[i].detail)
			identify_process(c->identify, &snap->processes[i]);
	runner_parents(c, snap);
	for (int i = 0; i < snap->n_processes; i++) {
		struct gtm_process *p = &snap->processes[i];
		if (!p->detail)
			continue;
		if (i >= snap->n_gpu_processes && !p->runner_parent) {
			identify_process(c->identify, p);
			refresh_ports(c, snap, i);
		} else if (i < snap->n_gpu_processes) {
			refresh_ports(c, snap, i);
		}
		if (explain_uses_environ(p))
			proc_detail_load_environ(c->proc, p);
		explain_process(c->explain, snap, p);
	}
	identify_refresh_done(c->identify);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* In a container, a driver PID that is not ours is paired with local CUDA
 * processes, which takes the whole process list. A PID the last scan listed
 * is ours without a look (a /proc lookup of every driver PID at every
 * refresh cost more than the scan of the processes that matter); any other
 * is looked up, but for the first scan, whose listing says (defer: the scan
 * is asked to read every process if one is missing, pair_if_missing). */
static bool needs_pairing(const struct collector *c, bool defer)
{
	if (c->mode != GTM_MODE_CONTAINER || defer)
		return false;
	for (size_t i = 0; i < c->uses.n; i++) {
		uint32_t pid = c->uses.v[i].pid;
		if (pid && !proc_cache_listed(c->proc, pid) && !proc_pid_exists(pid))
			return true;
	}
	return false;
}

struct gtm_snapshot *collector_refresh(struct collector *c)
{
	struct gtm_snapshot *snap = sample_snapshot(c);

	if (c->opts.devices_only) {
		devices_order(snap, &c->uses);
		return snap;
	}
	struct proc_scan_opts po = {.budget_ns = c->opts.one_shot ? 0 : c->opts.budget_ns};
	bool defer = !c->opts.only_pid && !proc_cache_scanned(c->proc);
	bool pairing = needs_pairing(c, defer);
	if (c->opts.only_pid && !pairing)
		po.only_pid = c->opts.only_pid;
	po.ports_on_demand = !c->opts.all;
	po.defer_environ = true; /* read for the rows identification finds a runtime in */
	/* what ps reads is all a process gets unless it matters: the sources' PIDs
	 * (GPU users), the runners' parents; every local CUDA candidate when host
	 * PIDs are to be paired; everything with --all */
	po.details_priority_only = !c->opts.all && !pairing && !po.only_pid;
	po.pair_if_missing = defer && c->mode == GTM_MODE_CONTAINER;
	/* the driver's PIDs are the rows shown first: never left undetailed by the budget;
	 * under WSL so are the /dev/dxg holders */
	size_t n_dxg = 0;
	const uint32_t *dxg = c->wsl ? wsl_collect_before_scan(c->wsl, snap, &c->uses, &n_dxg) : NULL;
	size_t n_prio = c->uses.n + c->n_parents + n_dxg;
	c->prio = grow_array(c->prio, sizeof *c->prio, &c->cap_prio, n_prio);
	for (size_t i = 0; i < c->uses.n; i++)
		c->prio[i] = c->uses.v[i].pid;
	if (c->n_parents)
		memcpy(c->prio + c->uses.n, c->parents, c->n_parents * sizeof *c->parents);
	if (n_dxg)
		memcpy(c->prio + c->uses.n + c->n_parents, dxg, n_dxg * sizeof *dxg);
	opens_collect_pids(c->opens, &c->prio, &n_prio, &c->cap_prio); /* their rows get details */
	qsort(c->prio, n_prio, sizeof *c->prio, cmp_u32);
	po.priority_pids = c->prio;
	po.n_priority = n_prio;
	if (proc_cache_scan(c->proc, snap, &po) != 0) {
		snap->procs_unlisted = true;
		snapshot_add_note(snap, "cannot list /proc: processes are not shown");
	}
	devices_order(snap, &c->uses);
	if (c->opts.gpu_filter >= 0) {
		filter_gpu(snap, c->opts.gpu_filter);
		filter_uses(&c->uses, c->opts.gpu_filter);
	}
	attribute_uses(c->attribute, snap, &c->uses);
	if (c->wsl) {
		wsl_collect_apply(c->wsl, snap);
		attribute_order_rows(c->attribute, snap);
	}
	enrich_processes(c, snap);
	opens_collect_apply(c->opens, snap);
	return snap;
}

const char *collector_trace_refused(const struct collector *c)
{
	return opens_collect_refused(c->opens);
}

void collector_set_all(struct collector *c, bool all)
{
	c->opts.all = all;
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	for (size_t i = 0; source_table[i]; i++)
		if (c->sources[i].priv)
			c->sources[i].ops->close(c->sources[i].priv);
	raw_uses_free(&c->uses);
	free(c->prio);
	free(c->parents);
	proc_cache_free(c->proc);
	attribute_state_free(c->attribute);
	identify_ctx_free(c->identify);
	explain_ctx_free(c->explain);
	wsl_collect_free(c->wsl);
	opens_collect_free(c->opens);
	free(c);
}
