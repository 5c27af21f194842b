/* The probe's policy and what every HTTP backend shares: only loopback, only
 * the known read-only paths, the body bound (EX_MAX_BODY), the meaning of an
 * HTTP status. The transfer itself is the host OS's backend (probe_backend.h):
 * probe_curl.c (libcurl through dlopen) or probe_winhttp.c (WinHTTP). */
#include "explain/probe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "explain/probe_backend.h"

static const char *const allowed_paths[] = {
	"/props", "/slots", "/metrics", "/v1/models", "/health", "/api/ps", "/api/v1/models", "/api/v0/models",
};

static struct {
	bool ok;
	char why[160];
} backend;
static pthread_once_t backend_once = PTHREAD_ONCE_INIT;

static void backend_load(void)
{
	backend.ok = probe_backend_load(backend.why, sizeof backend.why);
}

bool probe_available(char *message, size_t n)
{
	pthread_once(&backend_once, backend_load);
	if (!backend.ok && message)
		str_copy(message, backend.why, n);
	return backend.ok;
}

bool probe_path_allowed(const char *path)
{
	return probe_path_bit(path) != 0;
}

size_t probe_path_bit(const char *path)
{
	for (size_t i = 0; i < ARRAY_LEN(allowed_paths); i++)
		if (strcmp(allowed_paths[i], path) == 0)
			return (size_t)1 << i;
	return 0;
}

bool probe_body_add(struct probe_body *b, const void *data, size_t n)
{
	if (b->len + n > EX_MAX_BODY || b->len + n < b->len) {
		b->overflow = true;
		return false;
	}
	b->buf = grow_array(b->buf, 1, &b->cap, b->len + n); /* room for the NUL too */
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = 0;
	return true;
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
	struct probe_body b = {0};
	uint64_t t0 = now_monotonic_ns();
	enum ex_ep_state st = probe_backend_get(v6, port, path, timeout_ms, &b, r);
	r->ms = (uint32_t)((now_monotonic_ns() - t0) / 1000000u);
	if (st != EP_OK) {
		free(b.buf);
		return r->state = b.overflow ? EP_TOO_LARGE : st;
	}
	r->body = b.buf;
	r->len = b.len;
	return r->state = state_of_status(r->http_status);
}

void probe_result_clear(struct probe_result *r)
{
	free(r->body);
	memset(r, 0, sizeof *r);
}
