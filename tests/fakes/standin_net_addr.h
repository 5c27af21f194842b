/* The loopback address both socket layers bind (standin_net_posix.c,
 * standin_net_win.c): the BSD and Winsock sockaddr types are the same, so
 * this is included after the OS's own socket headers. */
#ifndef GTM_STANDIN_NET_ADDR_H
#define GTM_STANDIN_NET_ADDR_H

#include <string.h>

/* 127.0.0.1 or ::1 at port into ss; returns the address's length. */
static inline int sn_loopback_addr(bool ipv6, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	if (ipv6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		a->sin6_port = htons(port);
		return (int)sizeof *a;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a->sin_port = htons(port);
	return (int)sizeof *a;
}

/* The port ss is bound to. */
static inline uint16_t sn_addr_port(bool ipv6, const struct sockaddr_storage *ss)
{
	return ntohs(ipv6 ? ((const struct sockaddr_in6 *)ss)->sin6_port : ((const struct sockaddr_in *)ss)->sin_port);
}

#endif
