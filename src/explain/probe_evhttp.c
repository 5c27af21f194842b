/* The probe's HTTP through libevent's HTTP client (evhttp), by a small dlsym
 * table over our own declarations (evhttp_abi.h). The probes are plain-HTTP
 * GETs to loopback; libcurl does them too, but brings its TLS stack whatever
 * the URL: 8.3 MiB resident at dlopen and curl_global_init (libcrypto alone
 * 3.1 MiB), against 0.9 MiB for libevent (docs/benchmarks.md), and the live
 * view's RSS target is 12 MiB. libcurl stays the fallback (probe_posix.c).
 * One event base per GET, on the calling thread: nothing shared. */
#include "explain/probe_posix.h"

#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "explain/evhttp_abi.h"

static struct {
	void *lib;
	void (*set_log_callback)(gtm_event_log_cb);
	struct event_base *(*base_new)(void);
	void (*base_free)(struct event_base *);
	int (*base_dispatch)(struct event_base *);
	int (*base_loopexit)(struct event_base *, const struct timeval *);
	int (*base_loopbreak)(struct event_base *);
	struct evhttp_connection *(*conn_new)(struct event_base *, struct evdns_base *, const char *, uint16_t);
	void (*conn_free)(struct evhttp_connection *);
	void (*conn_set_family)(struct evhttp_connection *, int);
	void (*conn_set_max_body)(struct evhttp_connection *, ssize_t);
	void (*conn_set_max_headers)(struct evhttp_connection *, ssize_t);
	void (*conn_set_timeout_tv)(struct evhttp_connection *, const struct timeval *);
	struct evhttp_request *(*req_new)(gtm_evhttp_done_cb, void *);
	void (*req_set_error_cb)(struct evhttp_request *, gtm_evhttp_error_cb);
	struct evkeyvalq *(*req_output_headers)(struct evhttp_request *);
	struct evbuffer *(*req_input_buffer)(struct evhttp_request *);
	int (*req_response_code)(const struct evhttp_request *);
	int (*add_header)(struct evkeyvalq *, const char *, const char *);
	int (*make_request)(struct evhttp_connection *, struct evhttp_request *, int, const char *);
	size_t (*buf_length)(const struct evbuffer *);
	unsigned char *(*buf_pullup)(struct evbuffer *, ssize_t);
} ev;

/* The headers a server may send before its body, at most. */
#define EVHTTP_MAX_HEADERS (64 * 1024)

/* libevent logs to stderr by default, which would write over the live view. */
static void quiet_log(int severity, const char *msg)
{
	(void)severity;
	(void)msg;
}

#define RESOLVE(field, name) (*(void **)&ev.field = dlsym(ev.lib, name)) != NULL

static bool resolve_all(void)
{
	return RESOLVE(set_log_callback, "event_set_log_callback") && RESOLVE(base_new, "event_base_new") &&
	       RESOLVE(base_free, "event_base_free") && RESOLVE(base_dispatch, "event_base_dispatch") &&
	       RESOLVE(base_loopexit, "event_base_loopexit") && RESOLVE(base_loopbreak, "event_base_loopbreak") &&
	       RESOLVE(conn_new, "evhttp_connection_base_new") && RESOLVE(conn_free, "evhttp_connection_free") &&
	       RESOLVE(conn_set_family, "evhttp_connection_set_family") &&
	       RESOLVE(conn_set_max_body, "evhttp_connection_set_max_body_size") &&
	       RESOLVE(conn_set_max_headers, "evhttp_connection_set_max_headers_size") &&
	       RESOLVE(conn_set_timeout_tv, "evhttp_connection_set_timeout_tv") &&
	       RESOLVE(req_new, "evhttp_request_new") && RESOLVE(req_set_error_cb, "evhttp_request_set_error_cb") &&
	       RESOLVE(req_output_headers, "evhttp_request_get_output_headers") &&
	       RESOLVE(req_input_buffer, "evhttp_request_get_input_buffer") &&
	       RESOLVE(req_response_code, "evhttp_request_get_response_code") &&
	       RESOLVE(add_header, "evhttp_add_header") && RESOLVE(make_request, "evhttp_make_request") &&
	       RESOLVE(buf_length, "evbuffer_get_length") && RESOLVE(buf_pullup, "evbuffer_pullup");
}

bool evhttp_backend_load(const char *soname, char *why, size_t n)
{
	ev.lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!ev.lib) {
		snprintf(why, n, "%s not loadable: %s", soname, dlerror());
		return false;
	}
	if (!resolve_all()) {
		snprintf(why, n, "%s lacks an entry point", soname);
		dlclose(ev.lib);
		ev.lib = NULL;
		return false;
	}
	ev.set_log_callback(quiet_log);
	return true;
}

/* One GET's state, shared by its callbacks. */
struct get_state {
	struct event_base *base;
	struct probe_body *body;
	bool done;
	bool have_error;
	enum gtm_evreq_error error;
	int status;
};

static void on_error(enum gtm_evreq_error e, void *arg)
{
	struct get_state *g = arg;
	g->have_error = true;
	g->error = e;
}

/* The whole answer is in (or the request failed: req NULL or status 0). The
 * request is libevent's and freed when this returns. */
static void on_done(struct evhttp_request *req, void *arg)
{
	struct get_state *g = arg;

	g->done = true;
	ev.base_loopbreak(g->base);
	if (!req || (g->status = ev.req_response_code(req)) == 0)
		return;
	struct evbuffer *in = ev.req_input_buffer(req);
	size_t len = ev.buf_length(in);
	if (len && !probe_body_add(g->body, ev.buf_pullup(in, -1), len))
		g->have_error = true, g->error = GTM_EVREQ_HTTP_DATA_TOO_LONG;
}

/* What a failed request means for an endpoint; curl's states for the same
 * events (probe_curl.c), and its words where they fit. */
static enum ex_ep_state state_of_error(const struct get_state *g, char *msg, size_t n)
{
	static const struct {
		enum ex_ep_state state;
		const char *text;
	} table[] = {
		[GTM_EVREQ_HTTP_TIMEOUT] = {EP_TIMEOUT, "Timeout was reached"},
		[GTM_EVREQ_HTTP_EOF] = {EP_REFUSED, "Connection refused or closed before an answer"},
		[GTM_EVREQ_HTTP_INVALID_HEADER] = {EP_GARBAGE, "Weird server reply"},
		[GTM_EVREQ_HTTP_BUFFER_ERROR] = {EP_REFUSED, "Failure receiving data from the peer"},
		[GTM_EVREQ_HTTP_REQUEST_CANCEL] = {EP_ERROR, "Request cancelled"},
		[GTM_EVREQ_HTTP_DATA_TOO_LONG] = {EP_TOO_LARGE, "Maximum file size exceeded"},
	};
	if (!g->done) {
		snprintf(msg, n, "Timeout was reached");
		return EP_TIMEOUT;
	}
	if (!g->have_error || (unsigned)g->error >= sizeof table / sizeof table[0]) {
		snprintf(msg, n, g->status ? "Weird server reply" : "Failure receiving data from the peer");
		return g->status ? EP_GARBAGE : EP_REFUSED;
	}
	snprintf(msg, n, "%s", table[g->error].text);
	return table[g->error].state;
}

/* libevent writes with plain writev: a peer that closed would raise SIGPIPE.
 * It is blocked on this thread for the transfer and a SIGPIPE the transfer
 * raised is taken before the mask is restored (the way libcurl does it where
 * MSG_NOSIGNAL does not reach every write). */
static bool sigpipe_block(sigset_t *old)
{
	sigset_t pipe_set, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	pthread_sigmask(SIG_BLOCK, &pipe_set, old);
	return sigismember(&pending, SIGPIPE) == 1;
}

static void sigpipe_restore(const sigset_t *old, bool was_pending)
{
	sigset_t pipe_set, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	if (!was_pending && sigismember(&pending, SIGPIPE) == 1) {
		struct timespec zero = {0, 0};
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static struct evhttp_connection *connect_to(struct event_base *base, bool v6, uint16_t port,
					    const struct timeval *tv)
{
	struct evhttp_connection *c = ev.conn_new(base, NULL, v6 ? "::1" : "127.0.0.1", port);
	if (!c)
		return NULL;
	ev.conn_set_family(c, v6 ? AF_INET6 : AF_INET);
	ev.conn_set_max_body(c, (ssize_t)EX_MAX_BODY);
	ev.conn_set_max_headers(c, EVHTTP_MAX_HEADERS);
	ev.conn_set_timeout_tv(c, tv);
	return c;
}

/* The request, sent on c: false when libevent refused it (it then freed it). */
static bool send_get(struct evhttp_connection *c, bool v6, uint16_t port, const char *path, struct get_state *g)
{
	char host[64];
	struct evhttp_request *req = ev.req_new(on_done, g);

	if (!req)
		return false;
	ev.req_set_error_cb(req, on_error);
	snprintf(host, sizeof host, v6 ? "[::1]:%u" : "127.0.0.1:%u", port);
	struct evkeyvalq *h = ev.req_output_headers(req);
	ev.add_header(h, "Host", host);
	ev.add_header(h, "User-Agent", "gputaskman/" GTM_VERSION);
	ev.add_header(h, "Accept", "*/*");
	ev.add_header(h, "Connection", "close");
	return ev.make_request(c, req, GTM_EVHTTP_REQ_GET, path) == 0;
}

enum ex_ep_state evhttp_backend_get(bool v6, uint16_t port, const char *path, uint32_t timeout_ms,
				    struct probe_body *b, struct probe_result *r)
{
	/* the whole transfer, connect included, within timeout_ms: the loop ends then */
	struct timeval tv = {(time_t)(timeout_ms / 1000), (suseconds_t)(timeout_ms % 1000) * 1000};
	struct get_state g = {.body = b};
	enum ex_ep_state st = EP_ERROR;
	sigset_t old;

	if (!(g.base = ev.base_new())) {
		snprintf(r->error, sizeof r->error, "event_base_new failed");
		return EP_ERROR;
	}
	struct evhttp_connection *c = connect_to(g.base, v6, port, &tv);
	bool was_pending = sigpipe_block(&old);
	if (!c || !send_get(c, v6, port, path, &g)) {
		snprintf(r->error, sizeof r->error, "evhttp_make_request failed");
	} else {
		ev.base_loopexit(g.base, &tv);
		ev.base_dispatch(g.base);
		if (g.done && !g.have_error && g.status)
			st = EP_OK;
		else
			st = state_of_error(&g, r->error, sizeof r->error);
		r->http_status = g.status;
	}
	if (c)
		ev.conn_free(c); /* a request still pending (the deadline passed) goes with it */
	sigpipe_restore(&old, was_pending);
	ev.base_free(g.base);
	return st;
}
