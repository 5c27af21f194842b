/* The two HTTP libraries the POSIX probe may use (probe_posix.c picks):
 * libevent's evhttp (probe_evhttp.c), light, first; libcurl (probe_curl.c)
 * where libevent is not installed. Each does what probe_backend_get does
 * (probe_backend.h). Not a public surface. */
#ifndef GTM_PROBE_POSIX_H
#define GTM_PROBE_POSIX_H

#include "explain/probe_backend.h"

bool evhttp_backend_load(const char *soname, char *why, size_t n);
enum ex_ep_state evhttp_backend_get(bool v6, uint16_t port, const char *path, uint32_t timeout_ms,
				    struct probe_body *b, struct probe_result *r);

bool curl_backend_load(const char *soname, char *why, size_t n);
enum ex_ep_state curl_backend_get(bool v6, uint16_t port, const char *path, uint32_t timeout_ms,
				  struct probe_body *b, struct probe_result *r);

#endif
