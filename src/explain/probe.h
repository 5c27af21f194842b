/* Loopback HTTP GETs to local inference servers, through the host OS's
 * backend (probe_backend.h): libcurl loaded with dlopen("libcurl.so.4") at the
 * first probe (a snapshot that probes nothing never loads it), or WinHTTP on
 * Windows. Only 127.0.0.1 and ::1, only the known read-only paths, GET only,
 * no redirects, no proxy, bounded time and size. */
#ifndef GTM_PROBE_H
#define GTM_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explain/server.h"

struct probe_result {
	enum ex_ep_state state;
	int http_status;     /* 0 when no HTTP answer */
	char *body;          /* NUL-terminated, malloc'd (NULL when none) */
	size_t len;
	uint32_t ms;
	char error[96];      /* transport error text, or "" */
};

/* Whether the HTTP library could be loaded (loads it on the first call). message says why not. */
bool probe_available(char *message, size_t n);

/* GET http://HOST:PORT/PATH. host must be "127.0.0.1" or "::1" and path one of
 * the allowed endpoints, else EP_ERROR without any I/O. timeout_ms bounds
 * connect and transfer. The caller frees r->body (probe_result_clear). */
enum ex_ep_state probe_get(const char *host, uint16_t port, const char *path, uint32_t timeout_ms,
			   struct probe_result *r);
void probe_result_clear(struct probe_result *r);
/* Whether a path is one of the allowed GET endpoints. */
bool probe_path_allowed(const char *path);
/* An allowed path's bit (1 << its index in the allowed list), 0 for any other. */
size_t probe_path_bit(const char *path);

/* Probes one server port: the endpoints that fit kind_hint ("llama-server",
 * "ollama", "lmstudio", "vllm", "sglang", or NULL for all), stopping when
 * deadline_ns (CLOCK_MONOTONIC) passes or a connection is refused. Fills s
 * (keeps its previous /metrics counters for rates). */
void probe_server(struct ex_server *s, const char *host, const char *kind_hint, uint32_t timeout_ms,
		  uint64_t deadline_ns);

#endif
