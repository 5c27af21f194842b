/* The listening address of `gputaskman serve` (one file per OS: posix/). */
#ifndef GTM_SERVE_NET_H
#define GTM_SERVE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An IPv4 or IPv6 socket address, opaque to the layers above. */
struct serve_addr {
	unsigned char storage[128]; /* a struct sockaddr_storage */
	unsigned len;
	bool ipv6;
};

#define SERVE_DEFAULT_LISTEN "127.0.0.1:19847"

/* Parses "127.0.0.1:19847", "[::1]:19847", "localhost:19847" (= 127.0.0.1),
 * "0.0.0.0:19847", "[::]:19847". Names other than localhost are not resolved.
 * Port 0 picks a free port. Returns false with a reason in why. */
bool serve_addr_parse(const char *text, struct serve_addr *a, char *why, size_t n);
/* Whether the address is reachable only from this machine (127.0.0.0/8, ::1). */
bool serve_addr_is_loopback(const struct serve_addr *a);
/* "127.0.0.1:19847", "[::1]:19847" with the given port. */
void serve_addr_format(const struct serve_addr *a, uint16_t port, char *buf, size_t n);
uint16_t serve_addr_port(const struct serve_addr *a);
/* Raises the open-file limit towards `want` descriptors; returns how many
 * the process may hold. */
unsigned serve_raise_fd_limit(unsigned want);
/* A client's address as 16 bytes (IPv4 as ::ffff:a.b.c.d), the key of the
 * per-client connection cap; false for another family. len bounds what may
 * be read; only the family's own struct is. */
bool serve_client_key(const void *sockaddr, size_t len, unsigned char key[16]);
/* Ends every transfer on a connected socket (the server closes it next). */
void serve_socket_abort(int fd);

#endif
