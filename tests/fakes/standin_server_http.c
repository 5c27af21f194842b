#include "standin_server_http.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin_net.h"

struct replay_server {
	sn_sock fd;
	uint16_t port;
	pthread_t th;
	atomic_bool stop;
	atomic_int hits;
	struct replay_route *routes;
	int n;
};

static void write_all(sn_sock fd, const char *p, size_t n)
{
	while (n) {
		long w = sn_send(fd, p, n);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* Writes a head, then blocks (a chunk's framing around each when chunked;
 * as header lines when headers) until the client stops reading: a send
 * fails once it has closed. 1024 blocks at most. */
static void flood(sn_sock c, const char *head, const char *block_head, bool headers, size_t block)
{
	char *b = malloc(block);
	memset(b, 'y', block);
	if (headers) {
		memcpy(b, "X-Padding: ", 11);
		memcpy(b + block - 2, "\r\n", 2);
	}
	write_all(c, head, strlen(head));
	for (int i = 0; i < 1024; i++) {
		if (block_head && sn_send(c, block_head, strlen(block_head)) <= 0)
			break;
		if (sn_send(c, b, block) <= 0 || (block_head && sn_send(c, "\r\n", 2) <= 0))
			break;
	}
	free(b);
}

static const struct replay_route *route_for(const struct replay_server *s, const char *path)
{
	const struct replay_route *fallback = NULL;
	for (int i = 0; i < s->n; i++) {
		if (!s->routes[i].path)
			fallback = &s->routes[i];
		else if (strcmp(s->routes[i].path, path) == 0)
			return &s->routes[i];
	}
	return fallback;
}

static void answer(struct replay_server *s, sn_sock c, const char *path)
{
	static const struct replay_route not_found = {NULL, 404, "{\"error\":{\"code\":404,\"message\":\"File Not Found\",\"type\":\"not_found_error\"}}", REPLAY_NORMAL};
	const struct replay_route *r = route_for(s, path);
	char head[256];
	if (!r)
		r = &not_found;
	switch (r->mode) {
	case REPLAY_GARBAGE:
	{
		static const char junk[] = "\x01\x02 this is not http \xff\xfe\r\n\r\n";
		write_all(c, junk, sizeof junk - 1);
	}
		return;
	case REPLAY_HANG:
		while (!atomic_load(&s->stop)) {
			char b[256];
			if (sn_wait_readable(c, 50) > 0 && sn_recv(c, b, sizeof b) <= 0)
				return;
		}
		return;
	case REPLAY_HUGE: {
		size_t n = 2u << 20;
		snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", n);
		write_all(c, head, strlen(head));
		char *big = malloc(n);
		memset(big, ' ', n);
		write_all(c, big, n);
		free(big);
		return;
	}
	case REPLAY_REDIRECT:
		snprintf(head, sizeof head, "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/props\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		write_all(c, head, strlen(head));
		return;
	case REPLAY_FLOOD:
		flood(c, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", NULL, false, 65536);
		return;
	case REPLAY_CHUNK_FLOOD:
		flood(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "10000\r\n", false, 65536);
		return;
	case REPLAY_HEADER_FLOOD:
		flood(c, "HTTP/1.1 200 OK\r\n", NULL, true, 1024);
		return;
	case REPLAY_CLOSE:
		return;
	case REPLAY_NORMAL:
		break;
	}
	size_t bl = r->body ? strlen(r->body) : 0;
	snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nServer: standin\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", r->status, bl);
	write_all(c, head, strlen(head));
	if (bl)
		write_all(c, r->body, bl);
}

/* Reads the request head (bounded) and returns the path of "GET /path HTTP/1.1". */
static bool read_request(sn_sock c, char *path, size_t cap)
{
	char buf[4096];
	size_t n = 0;
	while (n + 1 < sizeof buf) {
		if (sn_wait_readable(c, 2000) <= 0)
			return false;
		long r = sn_recv(c, buf + n, sizeof buf - 1 - n);
		if (r <= 0)
			return false;
		n += (size_t)r;
		buf[n] = 0;
		if (strstr(buf, "\r\n\r\n"))
			break;
	}
	if (strncmp(buf, "GET ", 4) != 0)
		return false; /* anything but GET is refused: the probe must never send one */
	const char *p = buf + 4, *e = strchr(p, ' ');
	if (!e || (size_t)(e - p) >= cap)
		return false;
	memcpy(path, p, (size_t)(e - p));
	path[e - p] = 0;
	return true;
}

static void *serve(void *arg)
{
	struct replay_server *s = arg;
	while (!atomic_load(&s->stop)) {
		if (sn_wait_readable(s->fd, 50) <= 0)
			continue;
		sn_sock c = sn_accept(s->fd);
		if (c == SN_NONE)
			continue;
		char path[256];
		if (read_request(c, path, sizeof path)) {
			atomic_fetch_add(&s->hits, 1);
			answer(s, c, path);
		}
		sn_close(c);
	}
	return NULL;
}

struct replay_server *replay_start(const struct replay_route *routes, int n, bool ipv6, uint16_t port)
{
	struct replay_server *s = calloc(1, sizeof *s);
	s->fd = sn_listen_loopback(ipv6, port, &s->port);
	if (s->fd == SN_NONE) {
		free(s);
		return NULL;
	}
	s->routes = calloc((size_t)(n ? n : 1), sizeof *s->routes);
	memcpy(s->routes, routes, sizeof *routes * (size_t)n);
	s->n = n;
	pthread_create(&s->th, NULL, serve, s);
	return s;
}

uint16_t replay_port(const struct replay_server *s) { return s->port; }
int replay_hits(const struct replay_server *s) { return atomic_load(&((struct replay_server *)s)->hits); }

void replay_join(struct replay_server *s) { pthread_join(s->th, NULL); }

void replay_stop(struct replay_server *s)
{
	if (!s)
		return;
	atomic_store(&s->stop, true);
	pthread_join(s->th, NULL);
	sn_close(s->fd);
	free(s->routes);
	free(s);
}
