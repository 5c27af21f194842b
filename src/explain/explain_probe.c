/* When and what to probe: a process's listening loopback ports (and, for an
 * Ollama runner, its parent's API port), again only when the port or model
 * set changes or the steady interval passed, within a per-refresh budget.
 * Cached per (PID, start time). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "explain/explain_internal.h"
#include "explain/probe.h"
#include "identify/ident.h"

#define OLLAMA_DEFAULT_PORT 11434

static bool parent_is_ollama(const struct gtm_process *p)
{
	char comm[32];
	if (!p->ppid || sysroot_read(comm, sizeof comm, "/proc/%u/comm", p->ppid) <= 0)
		return false;
	return str_starts(comm, "ollama");
}

bool ex_is_ollama_runner(const struct gtm_process *p)
{
	if (!p->ident || !p->detail || p->detail->argc < 1 || !p->detail->argv[0])
		return false;
	bool ollama = ident_find_runtime(p->ident, "ollama") != NULL;
	for (int i = 1; ollama && i < p->detail->argc; i++)
		if (p->detail->argv[i] && !strcmp(p->detail->argv[i], "runner"))
			return true;
	/* llama-server launched by `ollama serve` (current Ollama runs GGUF models through it) */
	return str_starts(path_base(p->detail->argv[0]), "llama-server") && (ollama || parent_is_ollama(p));
}

/* The server kind the process's runtime speaks, or NULL when unknown. */
static const char *kind_hint(const struct gtm_process *p)
{
	static const struct { const char *rt, *kind; } kinds[] = {
		{"ollama", "ollama"}, {"lmstudio", "lmstudio"}, {"vllm", "vllm"}, {"sglang", "sglang"},
	};
	if (ex_is_ollama_runner(p))
		return "llama-server";
	for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
		if (ident_find_runtime(p->ident, kinds[i].rt))
			return kinds[i].kind;
	const char *a0 = p->detail && p->detail->argc ? p->detail->argv[0] : NULL;
	if (a0 && str_starts(path_base(a0), "llama-server"))
		return "llama-server";
	return NULL;
}

/* Ollama's API port for a runner: OLLAMA_HOST from its environment (inherited
 * from `ollama serve`), else the default. */
static uint16_t ollama_api_port(const struct gtm_process *p)
{
	const char *h = proc_detail_getenv(p->detail, "OLLAMA_HOST");
	if (h && h[0]) {
		const char *colon = strrchr(h, ':');
		long port = colon ? strtol(colon + 1, NULL, 10) : 0;
		if (port > 0 && port < 65536)
			return (uint16_t)port;
	}
	return OLLAMA_DEFAULT_PORT;
}

struct target {
	uint16_t port;
	const char *kind;
};

static void add_target(struct target *t, int *n, uint16_t port, const char *kind)
{
	for (int i = 0; i < *n; i++)
		if (t[i].port == port)
			return;
	if (*n < EX_MAX_SERVERS)
		t[(*n)++] = (struct target){port, kind};
}

/* The process's own loopback ports; for an Ollama runner also its parent's
 * (`ollama serve`: the ports it listens on when the snapshot has them, else
 * OLLAMA_HOST from the runner's environment, else 11434). */
static int targets_of(const struct gtm_snapshot *snap, const struct gtm_process *p, struct target *t)
{
	int n = 0;
	const char *k = kind_hint(p);
	/* the port the command line names first: other loopback ports (vLLM's
	 * ZMQ sockets, say) are not HTTP and only cost budget */
	long named = -1;
	for (int i = 1; p->detail && i + 1 < p->detail->argc; i++)
		if (p->detail->argv[i] && !strcmp(p->detail->argv[i], "--port") && p->detail->argv[i + 1])
			named = strtol(p->detail->argv[i + 1], NULL, 10);
	for (int i = 0; i < p->n_ports; i++)
		if (p->ports[i] == named)
			add_target(t, &n, p->ports[i], k);
	for (int i = 0; i < p->n_ports; i++)
		add_target(t, &n, p->ports[i], k);
	if (!ex_is_ollama_runner(p))
		return n;
	bool parent_ports = false;
	for (int i = 0; snap && i < snap->n_processes; i++) {
		const struct gtm_process *q = &snap->processes[i];
		if (q->pid != p->ppid || !q->pid)
			continue;
		for (int k2 = 0; k2 < q->n_ports; k2++, parent_ports = true)
			add_target(t, &n, q->ports[k2], "ollama");
	}
	if (!parent_ports)
		add_target(t, &n, ollama_api_port(p), "ollama");
	return n;
}

static uint64_t model_key(const struct gtm_process *p)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; p->ident && i < p->ident->n_models; i++) {
		const char *s = p->ident->models[i].path ? p->ident->models[i].path : p->ident->models[i].name;
		for (; s && *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
	}
	return h;
}

static struct probe_entry *entry_for(struct explain_ctx *c, const struct gtm_process *p)
{
	struct probe_entry *lru = &c->probes[0];
	for (int i = 0; i < EXC_PROBES; i++) {
		if (c->probes[i].pid == p->pid && c->probes[i].start_time == p->start_time && c->probes[i].used)
			return &c->probes[i];
		if (c->probes[i].used < lru->used)
			lru = &c->probes[i];
	}
	memset(lru, 0, sizeof *lru);
	lru->pid = p->pid;
	lru->start_time = p->start_time;
	return lru;
}

static bool same_ports(const struct probe_entry *pe, const struct target *t, int n)
{
	if (pe->n_ports != n)
		return false;
	for (int i = 0; i < n; i++)
		if (pe->ports[i] != t[i].port)
			return false;
	return true;
}

static void probe_targets(struct explain_ctx *c, struct probe_entry *pe, const struct target *t, int n)
{
	struct ex_server old[EX_MAX_SERVERS];
	int n_old = pe->n_servers;
	memcpy(old, pe->servers, sizeof old);
	pe->n_servers = 0;
	for (int i = 0; i < n; i++) {
		struct ex_server *s = &pe->servers[pe->n_servers++];
		ex_server_init(s, t[i].port);
		for (int k = 0; k < n_old; k++) /* keep the /metrics counters for rates */
			if (old[k].port == t[i].port)
				*s = old[k];
		probe_server(s, "127.0.0.1", t[i].kind, c->timeout_ms, c->deadline_ns);
		if (s->n_eps && s->eps[0].state == EP_REFUSED && now_monotonic_ns() < c->deadline_ns)
			probe_server(s, "::1", t[i].kind, c->timeout_ms, c->deadline_ns);
	}
	pe->n_ports = n;
	for (int i = 0; i < n; i++)
		pe->ports[i] = t[i].port;
	pe->probed_ns = now_monotonic_ns();
}

/* A server's loaded models are evidence for the process that runs them: not
 * for `ollama serve` (its runners hold the models), and for a runner only when
 * Ollama lists exactly one model (with several, which is whose is not known). */
static void add_api_evidence(const struct gtm_process *p, const struct ex_server *s)
{
	char detail[48];
	if (!strcmp(s->kind, "ollama") && (!ex_is_ollama_runner(p) || s->n_models != 1))
		return;
	for (int i = 0; p->ident && i < s->n_models; i++) {
		const struct ex_server_model *m = &s->models[i];
		if (!m->loaded)
			continue;
		snprintf(detail, sizeof detail, "%s :%u", s->kind[0] ? s->kind : "api", s->port);
		char key[1024];
		ex_model_key(p, m->path[0] ? m->path : m->name, key, sizeof key);
		if (key[0])
			ident_add_model_evidence_detail(p->ident, key, MODEL_EV_API, detail);
	}
}

/* A port whose answers the probe could not read (bytes that are not HTTP,
 * or a body that is not the runtime's JSON): its figures stay N/A, and the
 * note says so, so that a hostile or foreign service on the port reads as
 * such rather than as a server with nothing to say. */
static void note_garbage(struct gtm_explain *e, const struct ex_server *s)
{
	int n = 0;
	const char *first = NULL;
	for (int i = 0; i < s->n_eps; i++)
		if (s->eps[i].state == EP_GARBAGE && n++ == 0)
			first = s->eps[i].path;
	if (n)
		ex_add_note(e, "local API :%u: %d answer%s not understood (%s%s: %s), %s figures are N/A", s->port, n,
			    n == 1 ? "" : "s", first, n == 1 ? "" : " and others",
			    s->reachable ? "not the runtime's JSON" : "not HTTP", n == 1 ? "its" : "their");
}

/* The process's probe entry, probed again when due and the budget allows;
 * NULL when it has no port to probe or probes are off. *deferred: due, but
 * this refresh's budget went to other servers. */
static struct probe_entry *refresh_entry(struct explain_ctx *c, const struct gtm_snapshot *snap,
					 const struct gtm_process *p, bool *deferred)
{
	struct target t[EX_MAX_SERVERS];
	int n = targets_of(snap, p, t);
	*deferred = false;
	if (!n || !p->pid || !c->allow_probe)
		return NULL;
	struct probe_entry *pe = entry_for(c, p);
	uint64_t now = now_monotonic_ns(), key = model_key(p);
	bool due = !pe->used || !same_ports(pe, t, n) || pe->model_key != key ||
		   now - pe->probed_ns >= (uint64_t)c->interval_ms * 1000000u;
	pe->used = c->refresh;
	if (due && now + 20000000ull < c->deadline_ns) { /* probe.c needs a 20 ms slice */
		probe_targets(c, pe, t, n);
		pe->model_key = key;
	} else if (due) {
		*deferred = true;
	}
	return pe;
}

const struct ex_server *ex_probe_metrics_of(struct explain_ctx *c, const struct gtm_snapshot *snap,
					    const struct gtm_process *q)
{
	bool deferred;
	const struct probe_entry *pe = refresh_entry(c, snap, q, &deferred);
	const struct ex_server *any = NULL;
	for (int i = 0; pe && i < pe->n_servers; i++)
		for (int k = 0; k < pe->servers[i].n_eps; k++) {
			if (strcmp(pe->servers[i].eps[k].path, "/metrics") != 0)
				continue;
			if (pe->servers[i].eps[k].state == EP_OK)
				return &pe->servers[i];
			if (!any)
				any = &pe->servers[i];
		}
	return any;
}

void ex_probes_explain(struct explain_ctx *c, const struct gtm_snapshot *snap, const struct gtm_process *p,
		       struct gtm_explain *e)
{
	struct target t[EX_MAX_SERVERS];
	if (!targets_of(snap, p, t) || !p->pid)
		return;
	if (!c->allow_probe) {
		ex_add_note(e, "local API not probed (%s)", c->no_probe_why);
		return;
	}
	bool deferred;
	const struct probe_entry *pe = refresh_entry(c, snap, p, &deferred);
	if (deferred)
		ex_add_note(e, "local API not probed: this refresh's probe budget went to other servers "
			       "(the live view probes it at a later refresh)");
	for (int i = 0; i < pe->n_servers && e->n_servers < EX_MAX_SERVERS; i++) {
		e->servers[e->n_servers++] = pe->servers[i];
		add_api_evidence(p, &pe->servers[i]);
		note_garbage(e, &pe->servers[i]);
	}
}
