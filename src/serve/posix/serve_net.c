/* POSIX sockets: address parsing (inet_pton(3)), loopback test, fd limit. */
#include "serve/serve_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "core/util.h"

_Static_assert(sizeof(struct sockaddr_storage) <= sizeof(((struct serve_addr *)0)->storage),
	       "serve_addr holds a sockaddr_storage");

static bool parse_port(const char *s, uint16_t *port)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

bool serve_addr_parse(const char *text, struct serve_addr *a, char *why, size_t n)
{
	char host[64];
	const char *colon, *port_text;
	uint16_t port;

	memset(a, 0, sizeof *a);
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		if (!close || close[1] != ':' || (size_t)(close - text - 1) >= sizeof host) {
			snprintf(why, n, "'%s': an IPv6 address is written [ADDR]:PORT", text);
			return false;
		}
		memcpy(host, text + 1, (size_t)(close - text - 1));
		host[close - text - 1] = 0;
		port_text = close + 2;
		a->ipv6 = true;
	} else {
		colon = strrchr(text, ':');
		if (!colon || colon == text || (size_t)(colon - text) >= sizeof host) {
			snprintf(why, n, "'%s': give ADDR:PORT, e.g. 127.0.0.1:19847 (0.0.0.0:PORT for every interface)", text);
			return false;
		}
		memcpy(host, text, (size_t)(colon - text));
		host[colon - text] = 0;
		port_text = colon + 1;
		if (!strcmp(host, "localhost"))
			str_copy(host, "127.0.0.1", sizeof host);
	}
	if (!parse_port(port_text, &port)) {
		snprintf(why, n, "'%s': the port must be a number from 0 to 65535", text);
		return false;
	}
	if (a->ipv6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)a->storage;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1) {
			snprintf(why, n, "'%s' is not an IPv6 address", host);
			return false;
		}
		a->len = sizeof *s6;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)a->storage;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1) {
			snprintf(why, n, "'%s' is not an IP address (host names other than localhost are not resolved)", host);
			return false;
		}
		a->len = sizeof *s4;
	}
	return true;
}

bool serve_addr_is_loopback(const struct serve_addr *a)
{
	if (a->ipv6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)a->storage;
		const uint8_t *b = s6->sin6_addr.s6_addr;
		if (IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
			return true;
		return IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) && b[12] == 127;
	}
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)a->storage;
	return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
}

uint16_t serve_addr_port(const struct serve_addr *a)
{
	if (a->ipv6)
		return ntohs(((const struct sockaddr_in6 *)a->storage)->sin6_port);
	return ntohs(((const struct sockaddr_in *)a->storage)->sin_port);
}

void serve_addr_format(const struct serve_addr *a, uint16_t port, char *buf, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";
	if (a->ipv6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a->storage)->sin6_addr, host, sizeof host);
		snprintf(buf, n, "[%s]:%u", host, port);
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a->storage)->sin_addr, host, sizeof host);
		snprintf(buf, n, "%s:%u", host, port);
	}
}

unsigned serve_raise_fd_limit(unsigned want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1024;
	if (rl.rlim_cur < want) {
		rlim_t target = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		struct rlimit nl = {target, rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &nl) == 0)
			rl.rlim_cur = target;
	}
	return rl.rlim_cur > 1u << 20 ? 1u << 20 : (unsigned)rl.rlim_cur;
}

bool serve_client_key(const void *sa, size_t len, unsigned char key[16])
{
	struct sockaddr_storage ss;
	sa_family_t family;
	memset(key, 0, 16);
	if (!sa || len < sizeof family)
		return false;
	memcpy(&family, (const char *)sa + offsetof(struct sockaddr, sa_family), sizeof family);
	/* only the bytes of the family's own struct: len may be an upper bound */
	size_t need = family == AF_INET ? sizeof(struct sockaddr_in) : family == AF_INET6 ? sizeof(struct sockaddr_in6) : 0;
	if (!need || len < need)
		return false;
	memcpy(&ss, sa, need);
	if (family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)&ss)->sin_addr, 4);
	} else {
		memcpy(key, &((const struct sockaddr_in6 *)&ss)->sin6_addr, 16);
	}
	return true;
}

void serve_socket_abort(int fd)
{
	shutdown(fd, SHUT_RDWR);
}
