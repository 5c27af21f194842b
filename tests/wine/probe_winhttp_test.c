/* The probe's WinHTTP backend, cross-built and run under Wine (probe.sh):
 * probe_get against the loopback server http_server.py (argv[1] its port,
 * argv[2] 1 when it also listens on ::1, argv[3] a port nothing listens on).
 * Each answer the probe must classify: a JSON body, silence (one timeout, not
 * more), a body declared or sent beyond the bound, a redirect (never
 * followed: probe.sh checks the server never saw its target), 404, a peer that
 * does not speak HTTP, a refusal, and the loopback-only policy. */
#include <stdlib.h>
#include <string.h>

#include "explain/probe.h"
#include "wine_check.h"

static enum ex_ep_state get(const char *host, uint16_t port, const char *path, uint32_t timeout_ms,
			    struct probe_result *r)
{
	enum ex_ep_state st = probe_get(host, port, path, timeout_ms, r);
	printf("%s %s -> %d (HTTP %d, %u ms, %zu bytes, '%s')\n", host, path, (int)st, r->http_status, r->ms, r->len,
	       r->error);
	return st;
}

int main(int argc, char **argv)
{
	struct probe_result r;
	char why[160] = "";
	uint16_t port, dead;

	if (argc < 4)
		return 2;
	port = (uint16_t)atoi(argv[1]);
	dead = (uint16_t)atoi(argv[3]);
	CHECK(probe_available(why, sizeof why), "WinHTTP not available: %s", why);

	CHECK(get("127.0.0.1", port, "/props", 2000, &r) == EP_OK, "a JSON answer");
	CHECK(r.http_status == 200 && r.body && r.len == 11 && !strcmp(r.body, "{\"ok\":true}"), "body '%s'", r.body ? r.body : "");
	probe_result_clear(&r);

	CHECK(get("127.0.0.1", port, "/slots", 300, &r) == EP_TIMEOUT, "silence is a timeout");
	CHECK(r.ms >= 250 && r.ms < 2000, "one timeout of 300 ms, took %u ms", r.ms);
	CHECK(!r.body, "no body after a timeout");
	probe_result_clear(&r);

	CHECK(get("127.0.0.1", port, "/metrics", 5000, &r) == EP_TOO_LARGE, "a declared 2 MiB body is refused");
	CHECK(!r.body && r.len == 0, "no body kept");
	probe_result_clear(&r);

	CHECK(get("127.0.0.1", port, "/v1/models", 5000, &r) == EP_TOO_LARGE, "an undeclared 2 MiB body stops at the bound");
	CHECK(!r.body, "no body kept");
	probe_result_clear(&r);

	CHECK(get("127.0.0.1", port, "/health", 2000, &r) == EP_REDIRECT, "a redirect is reported");
	CHECK(r.http_status == 302, "status %d", r.http_status);
	probe_result_clear(&r);

	CHECK(get("127.0.0.1", port, "/api/ps", 2000, &r) == EP_ABSENT, "404 is an absent endpoint");
	CHECK(r.http_status == 404, "status %d", r.http_status);
	probe_result_clear(&r);

	CHECK(get("127.0.0.1", port, "/api/v1/models", 2000, &r) == EP_GARBAGE, "a peer that is not HTTP");
	CHECK(r.http_status == 0, "status %d", r.http_status);
	probe_result_clear(&r);

	CHECK(get("127.0.0.1", dead, "/props", 2000, &r) == EP_REFUSED, "nothing listens");
	CHECK(r.ms < 2000, "a refusal is quick, took %u ms", r.ms);
	probe_result_clear(&r);

	if (atoi(argv[2]) == 1) {
		CHECK(get("::1", port, "/props", 2000, &r) == EP_OK, "::1 answers");
		CHECK(r.body && !strcmp(r.body, "{\"ok\":true}"), "body over ::1");
		probe_result_clear(&r);
	} else {
		printf("::1: the machine has no IPv6 loopback, not probed\n");
	}

	/* the policy: no I/O for anything but loopback and the known paths */
	CHECK(get("10.0.0.1", port, "/props", 300, &r) == EP_ERROR && strstr(r.error, "policy"), "not loopback");
	CHECK(get("localhost", port, "/props", 300, &r) == EP_ERROR, "a name, not an address");
	CHECK(get("127.0.0.1", port, "/api/generate", 300, &r) == EP_ERROR, "not a known path");
	return wc_summary("probe_winhttp_test");
}
