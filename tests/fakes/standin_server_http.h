/* A tiny loopback HTTP server on its own thread that replays canned answers:
 * used by the probe unit tests and by the stand-in llama-server. Modes cover
 * what a probe must survive: garbage, silence, oversized bodies, redirects,
 * endless bodies and headers, a close without an answer. */
#ifndef GTM_STANDIN_SERVER_HTTP_H
#define GTM_STANDIN_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum replay_mode {
	REPLAY_NORMAL = 0, /* status + body */
	REPLAY_GARBAGE,    /* bytes that are not HTTP, then close */
	REPLAY_HANG,       /* read the request, never answer */
	REPLAY_HUGE,       /* 200 with a 2 MiB body */
	REPLAY_REDIRECT,   /* 302 to another path */
	REPLAY_FLOOD,      /* 200, no length: 64 KiB blocks until the client goes (64 MiB at most) */
	REPLAY_CHUNK_FLOOD, /* the same as chunked transfer coding */
	REPLAY_HEADER_FLOOD, /* a status line, then header lines without end */
	REPLAY_CLOSE,      /* read the request, close without answering */
};

struct replay_route {
	const char *path;  /* exact request path; NULL = any path (a fallback) */
	int status;
	const char *body;  /* NUL-terminated; may be NULL */
	enum replay_mode mode;
};

struct replay_server;

/* Listens on 127.0.0.1 (or ::1), port 0 = any. Routes are copied. */
struct replay_server *replay_start(const struct replay_route *routes, int n, bool ipv6, uint16_t port);
uint16_t replay_port(const struct replay_server *s);
/* Requests served so far (any path). */
int replay_hits(const struct replay_server *s);
/* Serves until the process ends (the stand-in's main loop). */
void replay_join(struct replay_server *s);
void replay_stop(struct replay_server *s);

#endif
