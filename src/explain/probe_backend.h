/* What an HTTP backend of the probe does (one per OS, picked by the build:
 * probe_curl.c, probe_winhttp.c). probe.c has checked the policy before any
 * call. Not a public surface. */
#ifndef GTM_PROBE_BACKEND_H
#define GTM_PROBE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explain/probe.h"

/* A response body being received: at most EX_MAX_BODY bytes, NUL-terminated. */
struct probe_body {
	char *buf;
	size_t len, cap;
	bool overflow; /* more was sent than the bound: the transfer was abandoned */
};
/* Appends n bytes; false (and overflow set) past EX_MAX_BODY. */
bool probe_body_add(struct probe_body *b, const void *data, size_t n);

/* Loads the HTTP library, once (probe.c serialises the call). why says what failed. */
bool probe_backend_load(char *why, size_t n);
/* The libraries it loads, the first found, NULL-terminated (--version looks for them too). */
extern const char *const probe_backend_libs[];
/* GET http://127.0.0.1:PORT/PATH (or [::1] when v6): no proxy, no redirect
 * followed, no credentials, connect and transfer within timeout_ms in all,
 * the body into b through probe_body_add. Sets r->http_status when an HTTP
 * answer came and r->error on a transport error. Returns EP_OK when a whole
 * answer arrived (of any status), else the transport's state (EP_TIMEOUT,
 * EP_REFUSED, EP_GARBAGE, EP_TOO_LARGE, EP_ERROR). */
enum ex_ep_state probe_backend_get(bool v6, uint16_t port, const char *path, uint32_t timeout_ms,
				   struct probe_body *b, struct probe_result *r);

#endif
