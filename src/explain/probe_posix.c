/* The probe's HTTP on POSIX systems: the first library of probe_backend_libs
 * that loads. libevent first: its HTTP client costs 0.9 MiB resident where
 * libcurl, which loads and initialises a TLS stack for any URL, costs 8.3 MiB
 * (docs/benchmarks.md); both speak plain HTTP/1.1 to loopback alike.
 * GPUTASKMAN_PROBE_HTTP=libcurl picks libcurl (to compare, or to work around). */
#include "explain/probe_posix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* probe_backend_libs, one per OS (probe_libs_linux.c, probe_libs_darwin.c):
 * libevent's, then two of libcurl's, in the order of this table */

static struct {
	bool (*load)(const char *soname, char *why, size_t n);
	enum ex_ep_state (*get)(bool, uint16_t, const char *, uint32_t, struct probe_body *, struct probe_result *);
} const backends[] = {
	{evhttp_backend_load, evhttp_backend_get},
	{curl_backend_load, curl_backend_get},
	{curl_backend_load, curl_backend_get},
};

static int chosen = -1;

bool probe_backend_load(char *why, size_t n)
{
	const char *only = getenv("GPUTASKMAN_PROBE_HTTP");
	size_t first = only && !strcmp(only, "libcurl") ? 1 : 0;

	why[0] = '\0';
	for (size_t i = first; probe_backend_libs[i]; i++) {
		char one[256];
		if (backends[i].load(probe_backend_libs[i], one, sizeof one)) {
			chosen = (int)i;
			return true;
		}
		snprintf(why + strlen(why), n - strlen(why), "%s%s", why[0] ? "; " : "", one);
	}
	return false;
}

enum ex_ep_state probe_backend_get(bool v6, uint16_t port, const char *path, uint32_t timeout_ms,
				   struct probe_body *b, struct probe_result *r)
{
	if (chosen < 0) {
		snprintf(r->error, sizeof r->error, "no HTTP library loaded");
		return EP_ERROR;
	}
	return backends[chosen].get(v6, port, path, timeout_ms, b, r);
}
