/* Probing one server port: which endpoints each server kind answers, in
 * what order, within a deadline; each answer is applied by its parser
 * (server_json.c, metrics.c). The GETs go through probe_get. */
#include "explain/probe.h"

#include <string.h>

#include "core/util.h"

#define PROBE_MIN_SLICE_NS (20ull * 1000000ull)

typedef bool (*body_parser)(const char *, size_t, struct ex_server *);

/* Which endpoints each server kind answers, in probing order. */
static const struct {
	const char *kind;
	const char *paths[6];
} plans[] = {
	{"llama-server", {"/props", "/slots", "/metrics", "/v1/models", "/health"}},
	{"ollama", {"/api/ps"}},
	{"lmstudio", {"/api/v1/models", "/api/v0/models"}},
	{"vllm", {"/v1/models", "/metrics", "/health"}},
	{"sglang", {"/v1/models", "/metrics", "/health"}},
	{NULL, {"/props", "/api/ps", "/v1/models", "/api/v1/models", "/metrics", "/slots"}},
};

static const struct {
	const char *path;
	body_parser parse;
} parsers[] = {
	{"/props", server_parse_props}, {"/slots", server_parse_slots}, {"/v1/models", server_parse_v1_models},
	{"/api/ps", server_parse_ollama_ps}, {"/api/v1/models", server_parse_lmstudio_v1},
	{"/api/v0/models", server_parse_lmstudio_v0},
};

static enum ex_ep_state apply_body(struct ex_server *s, const char *path, const struct probe_result *r)
{
	if (strcmp(path, "/health") == 0)
		return server_parse_health(r->body, r->len, r->http_status, s) ? EP_OK : EP_GARBAGE;
	if (r->state != EP_OK) {
		if (r->body && server_body_is_disabled(r->body, r->len))
			return EP_DISABLED;
		return r->state;
	}
	if (strcmp(path, "/metrics") == 0)
		return server_apply_metrics(r->body, r->len, now_monotonic_ns(), s) ? EP_OK : EP_GARBAGE;
	for (size_t i = 0; i < ARRAY_LEN(parsers); i++)
		if (strcmp(parsers[i].path, path) == 0)
			return parsers[i].parse(r->body, r->len, s) ? EP_OK : EP_GARBAGE;
	return EP_GARBAGE;
}

static struct ex_endpoint *endpoint_slot(struct ex_server *s, const char *path)
{
	for (int i = 0; i < s->n_eps; i++)
		if (strcmp(s->eps[i].path, path) == 0)
			return &s->eps[i];
	if (s->n_eps == EX_MAX_ENDPOINTS)
		return NULL;
	struct ex_endpoint *e = &s->eps[s->n_eps++];
	memset(e, 0, sizeof *e);
	str_copy(e->path, path, sizeof e->path);
	return e;
}

static size_t plan_of(const char *kind)
{
	for (size_t i = 0; kind && i + 1 < ARRAY_LEN(plans); i++)
		if (strcmp(plans[i].kind, kind) == 0)
			return i;
	return ARRAY_LEN(plans) - 1;
}


/* One endpoint: GET, record, apply. Returns false when the port should not be asked again. */
static bool probe_endpoint(struct ex_server *s, const char *host, const char *path, uint32_t timeout_ms,
			   uint64_t deadline_ns)
{
	struct ex_endpoint *e = endpoint_slot(s, path);
	uint64_t now = now_monotonic_ns();
	if (!e)
		return false;
	if (now + PROBE_MIN_SLICE_NS >= deadline_ns) { /* too little left to learn anything */
		e->state = EP_NOT_PROBED;
		e->http_status = 0;
		e->ms = 0;
		return false;
	}
	uint64_t left_ms = (deadline_ns - now) / 1000000u;
	uint32_t t = left_ms < timeout_ms ? (uint32_t)(left_ms ? left_ms : 1) : timeout_ms;
	struct probe_result r;
	probe_get(host, s->port, path, t, &r);
	e->http_status = r.http_status;
	e->ms = r.ms;
	e->state = apply_body(s, path, &r);
	if (r.http_status)
		s->reachable = true;
	probe_result_clear(&r);
	/* a port that does not answer HTTP would cost every remaining timeout */
	return !(e->state == EP_TIMEOUT || e->state == EP_REFUSED || e->state == EP_ERROR);
}

void probe_server(struct ex_server *s, const char *host, const char *kind_hint, uint32_t timeout_ms,
		  uint64_t deadline_ns)
{
	size_t plan = plan_of(kind_hint), done = 0;
	bool go = true;
	/* facts of the previous probe are replaced; rates keep their counters */
	s->n_models = 0;
	s->reachable = false;
	ex_server_clear_gauges(s);
	if (plan == ARRAY_LEN(plans) - 1)
		s->kind[0] = 0;
	for (int i = 0; i < 6 && plans[plan].paths[i]; i++) {
		const char *path = plans[plan].paths[i];
		if (done & probe_path_bit(path))
			continue;
		done |= probe_path_bit(path);
		if (go)
			go = probe_endpoint(s, host, path, timeout_ms, deadline_ns);
		else
			probe_endpoint(s, host, path, timeout_ms, 0); /* recorded as not probed */
		/* an unknown server: once its kind shows, follow that kind's plan */
		size_t known = plan_of(s->kind);
		if (plan != known && s->kind[0]) {
			plan = known;
			i = -1;
		}
	}
}
