/* The exporter's HTTP server: GET and HEAD only (405 otherwise), a handler
 * that answers by path, bounded request size and connection count, idle and
 * slow clients cut off. Built on libmicrohttpd, loaded with dlopen when serve
 * starts, so no other command pays for it. */
#ifndef GTM_SERVE_HTTP_H
#define GTM_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/serve_net.h"

/* Query parameters a request may carry (none is used): more get 400. */
#define HTTP_MAX_PARAMS 64

/* The library the server loads, NULL-terminated (--version looks for it too). */
extern const char *const http_libs[];

struct http_reply {
	int status;
	const char *content_type;
	const char *content_encoding; /* "gzip" or NULL */
	char *body;        /* malloc'd; the server frees it */
	size_t len;
};

/* Fills r for path (GET or HEAD; a HEAD reply's body is not sent); gzip: the
 * client takes a gzip body. Runs on the server's thread: it must not block. */
typedef void (*http_handler)(void *arg, const char *path, bool gzip, struct http_reply *r);

/* Whether an Accept-Encoding value (NULL: none) takes gzip: a "gzip" or "*"
 * coding whose q is not 0 (RFC 9110, 12.5.3). Pure, bounded by the string. */
bool http_accepts_gzip(const char *accept_encoding);

struct http_config {
	struct serve_addr addr;
	unsigned max_connections;
	unsigned idle_timeout_s;     /* a connection silent this long is closed */
	unsigned request_deadline_s; /* a request must arrive whole this long after the connection
	                              * opened or its previous reply: slow clients are cut off */
	size_t request_bytes;        /* memory per connection: bounds the request line and headers */
	unsigned per_client;         /* connections one client address may hold */
	unsigned reserve;            /* the last slots: only for a client holding none */
	http_handler handler;
	void *arg;
};

struct http_server;

/* Whether libmicrohttpd could be loaded; why not in message. */
bool http_available(char *message, size_t n);
/* Starts listening; NULL with a reason in why. */
struct http_server *http_start(const struct http_config *c, char *why, size_t n);
/* The port listened on (the one picked when the address asked for port 0). */
uint16_t http_port(const struct http_server *s);
/* Cuts off connections past their request deadline; call about once a second. */
void http_sweep(struct http_server *s);
/* Connections open now. */
unsigned http_connections(struct http_server *s);
void http_stop(struct http_server *s);

#endif
