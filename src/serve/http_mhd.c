/* libmicrohttpd (Debian libmicrohttpd12) through a small dlsym table,
 * compiled against the Debian <microhttpd.h> types, as explain/probe.c does
 * for libcurl: commands other than serve never load it. One internal poll
 * thread serves every connection (microhttpd.h, MHD_USE_POLL_INTERNAL_THREAD:
 * unlike its epoll mode, a connection the library gives up on, out of memory
 * for a request's parameters, is closed at once, not left silent);
 * a reply is a copy of text prepared elsewhere, so no request ever waits on
 * collection. */
#include "serve/http.h"

#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static struct {
	void *lib;
	struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
					   MHD_AccessHandlerCallback, void *, ...);
	void (*stop_daemon)(struct MHD_Daemon *);
	struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
	enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
	void (*destroy_response)(struct MHD_Response *);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
	int (*get_connection_values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
	const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
	bool ok;
	char why[200];
} mhd;
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;

const char *const http_libs[] = {"libmicrohttpd.so.12", NULL};

static void mhd_load(void)
{
	static const struct { const char *name; size_t off; } syms[] = {
		{"MHD_start_daemon", offsetof(__typeof__(mhd), start_daemon)},
		{"MHD_stop_daemon", offsetof(__typeof__(mhd), stop_daemon)},
		{"MHD_create_response_from_buffer", offsetof(__typeof__(mhd), create_response_from_buffer)},
		{"MHD_add_response_header", offsetof(__typeof__(mhd), add_response_header)},
		{"MHD_queue_response", offsetof(__typeof__(mhd), queue_response)},
		{"MHD_destroy_response", offsetof(__typeof__(mhd), destroy_response)},
		{"MHD_get_connection_info", offsetof(__typeof__(mhd), get_connection_info)},
		{"MHD_get_daemon_info", offsetof(__typeof__(mhd), get_daemon_info)},
		{"MHD_get_connection_values", offsetof(__typeof__(mhd), get_connection_values)},
		{"MHD_lookup_connection_value", offsetof(__typeof__(mhd), lookup_connection_value)},
	};
	mhd.lib = dlopen(http_libs[0], RTLD_NOW | RTLD_LOCAL);
	if (!mhd.lib) {
		snprintf(mhd.why, sizeof mhd.why, "libmicrohttpd.so.12 not loadable (Debian: apt-get install libmicrohttpd12): %s",
			 dlerror());
		return;
	}
	for (size_t i = 0; i < ARRAY_LEN(syms); i++) {
		void *f = dlsym(mhd.lib, syms[i].name);
		if (!f) {
			snprintf(mhd.why, sizeof mhd.why, "libmicrohttpd.so.12 lacks %s", syms[i].name);
			return;
		}
		memcpy((char *)&mhd + syms[i].off, &f, sizeof f);
	}
	mhd.ok = true;
}

bool http_available(char *message, size_t n)
{
	pthread_once(&mhd_once, mhd_load);
	if (!mhd.ok && message)
		str_copy(message, mhd.why, n);
	return mhd.ok;
}

/* One open connection: its socket, its client's address and when its
 * current request began. */
struct conn {
	int fd;
	uint64_t since_ns;
	unsigned char client[16];
	bool used;
};

struct http_server {
	struct MHD_Daemon *d;
	struct http_config cfg;
	pthread_mutex_t mu;     /* guards conns: the sweep runs on another thread */
	struct conn *conns;
	unsigned n_conns, cap_conns;
};

/* Connections the client at key holds now; called with mu held. */
static unsigned held_by(const struct http_server *s, const unsigned char key[16])
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->cap_conns; i++)
		n += s->conns[i].used && !memcmp(s->conns[i].client, key, 16);
	return n;
}

/* Before a connection is set up (microhttpd.h, MHD_AcceptPolicyCallback):
 * a client holding its share is refused (closed at once), and the last
 * slots are a reserve only a client holding none may take, so connections
 * from a few addresses cannot lock the others out. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct http_server *s = cls;
	unsigned char key[16];
	if (!serve_client_key(addr, (size_t)len, key))
		return MHD_YES;
	pthread_mutex_lock(&s->mu);
	unsigned held = held_by(s, key);
	bool ok = held < s->cfg.per_client && (held == 0 || s->n_conns + s->cfg.reserve < s->cap_conns);
	pthread_mutex_unlock(&s->mu);
	return ok ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *s = cls;
	pthread_mutex_lock(&s->mu);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ca = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		*socket_context = NULL;
		for (unsigned i = 0; ci && i < s->cap_conns; i++)
			if (!s->conns[i].used) {
				s->conns[i] = (struct conn){.fd = ci->connect_fd, .since_ns = now_monotonic_ns(), .used = true};
				if (ca && ca->client_addr)
					serve_client_key(ca->client_addr, sizeof(struct sockaddr_storage), s->conns[i].client);
				s->n_conns++;
				*socket_context = &s->conns[i];
				break;
			}
	} else if (*socket_context) {
		/* closed: the socket is still open here, and never touched again */
		((struct conn *)*socket_context)->used = false;
		*socket_context = NULL;
		s->n_conns--;
	}
	pthread_mutex_unlock(&s->mu);
}

/* The request has arrived whole: its deadline restarts for the next one. */
static void request_arrived(struct http_server *s, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	pthread_mutex_lock(&s->mu);
	if (ci && ci->socket_context)
		((struct conn *)ci->socket_context)->since_ns = now_monotonic_ns();
	pthread_mutex_unlock(&s->mu);
}

static enum MHD_Result reply(struct MHD_Connection *c, struct http_reply *r, bool allow_header)
{
	struct MHD_Response *resp = mhd.create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(r->body);
		return MHD_NO;
	}
	mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
	if (r->content_encoding) {
		mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, r->content_encoding);
		mhd.add_response_header(resp, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	}
	/* One reply per connection: libmicrohttpd 0.9.75 parks a request
	 * pipelined behind another until the client sends more, so a
	 * pipelining client would wait on silence; closed after each reply it
	 * resends the rest on a new connection (RFC 9112, 9.3.2). */
	mhd.add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	if (allow_header)
		mhd.add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result rc = mhd.queue_response(c, (unsigned)r->status, resp);
	mhd.destroy_response(resp);
	return rc;
}

static void reply_text(struct http_reply *r, int status, const char *text)
{
	r->status = status;
	r->content_type = "text/plain; charset=utf-8";
	r->body = xstrdup(text);
	r->len = strlen(text);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size, void **req)
{
	struct http_server *s = cls;
	struct http_reply r = {0};
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	/* The reply is queued on the second call, once the whole request (and
	 * any body, discarded) has arrived: queued on the first, libmicrohttpd
	 * cannot tell what follows and closes the connection after the reply,
	 * dropping requests pipelined behind it. */
	if (!*req) {
		*req = s;
		request_arrived(s, c);
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		reply_text(&r, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
		return reply(c, &r, true);
	}
	/* no path here takes parameters; a query of many is a client to refuse, clearly */
	if (mhd.get_connection_values(c, MHD_GET_ARGUMENT_KIND, NULL, NULL) > HTTP_MAX_PARAMS) {
		reply_text(&r, MHD_HTTP_BAD_REQUEST, "too many query parameters\n");
		return reply(c, &r, false);
	}
	const char *ae = mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	s->cfg.handler(s->cfg.arg, url, http_accepts_gzip(ae), &r);
	if (!r.body)
		reply_text(&r, MHD_HTTP_INTERNAL_SERVER_ERROR, "no reply\n");
	return reply(c, &r, false);
}

struct http_server *http_start(const struct http_config *cfg, char *why, size_t n)
{
	if (!http_available(why, n))
		return NULL;
	struct http_server *s = xcalloc(1, sizeof *s);
	s->cfg = *cfg;
	s->cap_conns = cfg->max_connections;
	s->conns = xcalloc(s->cap_conns ? s->cap_conns : 1, sizeof *s->conns);
	pthread_mutex_init(&s->mu, NULL);
	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | (cfg->addr.ipv6 ? MHD_USE_IPv6 : 0);
	errno = 0;
	s->d = mhd.start_daemon(flags, serve_addr_port(&cfg->addr), accept_policy, s, on_request, s,
				MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)cfg->addr.storage,
				MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)cfg->max_connections,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->idle_timeout_s,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)cfg->request_bytes,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
				MHD_OPTION_END);
	if (!s->d) {
		char addr[80];
		int e = errno;
		serve_addr_format(&cfg->addr, serve_addr_port(&cfg->addr), addr, sizeof addr);
		snprintf(why, n, "cannot listen on %s%s%s", addr, e ? ": " : "", e ? strerror(e) : "");
		pthread_mutex_destroy(&s->mu);
		free(s->conns);
		free(s);
		return NULL;
	}
	return s;
}

uint16_t http_port(const struct http_server *s)
{
	const union MHD_DaemonInfo *di = mhd.get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	return di ? di->port : serve_addr_port(&s->cfg.addr);
}

void http_sweep(struct http_server *s)
{
	uint64_t now = now_monotonic_ns(), limit = (uint64_t)s->cfg.request_deadline_s * 1000000000ull;
	pthread_mutex_lock(&s->mu);
	for (unsigned i = 0; i < s->cap_conns; i++)
		if (s->conns[i].used && now - s->conns[i].since_ns > limit) {
			serve_socket_abort(s->conns[i].fd);
			s->conns[i].since_ns = now; /* once: the server closes it at its next read */
		}
	pthread_mutex_unlock(&s->mu);
}

unsigned http_connections(struct http_server *s)
{
	pthread_mutex_lock(&s->mu);
	unsigned n = s->n_conns;
	pthread_mutex_unlock(&s->mu);
	return n;
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	mhd.stop_daemon(s->d);
	pthread_mutex_destroy(&s->mu);
	free(s->conns);
	free(s);
}
