/* libcurl through a small dlsym table (design.md: measured ~5 ms of start-up
 * when linked), compiled against the Debian <curl/curl.h> types. Options from
 * the libcurl documentation (curl_easy_setopt(3)). */
#include "explain/probe.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const char *const allowed_paths[] = {
	"/props", "/slots", "/metrics", "/v1/models", "/health", "/api/ps", "/api/v1/models", "/api/v0/models",
};

static struct {
	void *lib;
	CURLcode (*global_init)(long);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	bool ok;
	char why[160];
} cu;
static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

static void cu_load(void)
{
	static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};
	for (size_t i = 0; i < ARRAY_LEN(names) && !cu.lib; i++)
		cu.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib) {
		snprintf(cu.why, sizeof cu.why, "libcurl.so.4 not loadable: %s", dlerror());
		return;
	}
	*(void **)&cu.global_init = dlsym(cu.lib, "curl_global_init");
	*(void **)&cu.easy_init = dlsym(cu.lib, "curl_easy_init");
	*(void **)&cu.easy_setopt = dlsym(cu.lib, "curl_easy_setopt");
	*(void **)&cu.easy_perform = dlsym(cu.lib, "curl_easy_perform");
	*(void **)&cu.easy_getinfo = dlsym(cu.lib, "curl_easy_getinfo");
	*(void **)&cu.easy_cleanup = dlsym(cu.lib, "curl_easy_cleanup");
	*(void **)&cu.easy_strerror = dlsym(cu.lib, "curl_easy_strerror");
	if (!cu.global_init || !cu.easy_init || !cu.easy_setopt || !cu.easy_perform || !cu.easy_getinfo ||
	    !cu.easy_cleanup || !cu.easy_strerror) {
		snprintf(cu.why, sizeof cu.why, "libcurl.so.4 lacks an entry point");
		return;
	}
	if (cu.global_init(CURL_GLOBAL_NOTHING) != CURLE_OK) {
		snprintf(cu.why, sizeof cu.why, "curl_global_init failed");
		return;
	}
	cu.ok = true;
}

bool probe_available(char *message, size_t n)
{
	pthread_once(&cu_once, cu_load);
	if (!cu.ok && message)
		str_copy(message, cu.why, n);
	return cu.ok;
}

bool probe_path_allowed(const char *path)
{
	for (size_t i = 0; i < ARRAY_LEN(allowed_paths); i++)
		if (strcmp(path, allowed_paths[i]) == 0)
			return true;
	return false;
}

struct sink {
	char *buf;
	size_t len, cap;
	bool overflow;
};

static size_t sink_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;
	if (nmemb && n / nmemb != size)
		return 0;
	if (s->len + n > EX_MAX_BODY) {
		s->overflow = true;
		return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
	}
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->len + n + 1)
			cap *= 2;
		s->buf = xrealloc(s->buf, cap);
		s->cap = cap;
	}
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	s->buf[s->len] = 0;
	return n;
}

static enum ex_ep_state state_of_status(int status)
{
	if (status >= 200 && status < 300)
		return EP_OK;
	if (status >= 300 && status < 400)
		return EP_REDIRECT;
	if (status == 401 || status == 403)
		return EP_UNAUTHORIZED;
	if (status == 404 || status == 405)
		return EP_ABSENT;
	if (status == 501)
		return EP_DISABLED;
	if (status == 503)
		return EP_LOADING;
	return EP_HTTP_ERROR;
}

static enum ex_ep_state state_of_error(CURLcode rc, const struct sink *s)
{
	if (s->overflow)
		return EP_TOO_LARGE;
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return EP_TIMEOUT;
	case CURLE_COULDNT_CONNECT:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
		return EP_REFUSED;
	case CURLE_FILESIZE_EXCEEDED:
		return EP_TOO_LARGE;
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return EP_GARBAGE;
	default:
		return EP_ERROR;
	}
}

static void set_options(CURL *h, const char *url, uint32_t timeout_ms, struct sink *s)
{
	cu.easy_setopt(h, CURLOPT_URL, url);
	cu.easy_setopt(h, CURLOPT_HTTPGET, 1L);
	cu.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	cu.easy_setopt(h, CURLOPT_PROXY, "");
	cu.easy_setopt(h, CURLOPT_NOPROXY, "*");
	cu.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
	cu.easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	cu.easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)EX_MAX_BODY);
	cu.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
	cu.easy_setopt(h, CURLOPT_USERAGENT, "gputaskman/" GTM_VERSION);
	cu.easy_setopt(h, CURLOPT_WRITEFUNCTION, sink_write);
	cu.easy_setopt(h, CURLOPT_WRITEDATA, s);
}

enum ex_ep_state probe_get(const char *host, uint16_t port, const char *path, uint32_t timeout_ms,
			   struct probe_result *r)
{
	memset(r, 0, sizeof *r);
	bool v6 = strcmp(host, "::1") == 0;
	if ((!v6 && strcmp(host, "127.0.0.1") != 0) || !probe_path_allowed(path) || port == 0) {
		snprintf(r->error, sizeof r->error, "refused by policy: loopback and known paths only");
		return r->state = EP_ERROR;
	}
	if (!probe_available(r->error, sizeof r->error))
		return r->state = EP_ERROR;
	char url[128];
	snprintf(url, sizeof url, v6 ? "http://[::1]:%u%s" : "http://127.0.0.1:%u%s", port, path);
	CURL *h = cu.easy_init();
	if (!h) {
		snprintf(r->error, sizeof r->error, "curl_easy_init failed");
		return r->state = EP_ERROR;
	}
	struct sink s = {0};
	uint64_t t0 = now_monotonic_ns();
	set_options(h, url, timeout_ms, &s);
	CURLcode rc = cu.easy_perform(h);
	long status = 0;
	cu.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	cu.easy_cleanup(h);
	r->ms = (uint32_t)((now_monotonic_ns() - t0) / 1000000u);
	r->http_status = (int)status;
	if (rc != CURLE_OK) {
		snprintf(r->error, sizeof r->error, "%s", cu.easy_strerror(rc));
		r->state = state_of_error(rc, &s);
		free(s.buf);
		return r->state;
	}
	r->body = s.buf;
	r->len = s.len;
	return r->state = state_of_status((int)status);
}

void probe_result_clear(struct probe_result *r)
{
	free(r->body);
	memset(r, 0, sizeof *r);
}

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

static size_t path_bit(const char *path)
{
	for (size_t i = 0; i < ARRAY_LEN(allowed_paths); i++)
		if (strcmp(allowed_paths[i], path) == 0)
			return (size_t)1 << i;
	return 0;
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
	if (plan == ARRAY_LEN(plans) - 1)
		s->kind[0] = 0;
	for (int i = 0; i < 6 && plans[plan].paths[i]; i++) {
		const char *path = plans[plan].paths[i];
		if (done & path_bit(path))
			continue;
		done |= path_bit(path);
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
