/* standin_net.h over Winsock (the Windows stand-in llama-server.exe, built
 * with mingw-w64). WSAStartup is made once, at the first listen. */
#include "standin_net.h"

#include <string.h>
#include <winsock2.h>
#include <ws2tcpip.h>

#include "standin_net_addr.h"

sn_sock sn_listen_loopback(bool ipv6, uint16_t port, uint16_t *bound)
{
	static bool started;
	WSADATA wsa;
	if (!started && WSAStartup(MAKEWORD(2, 2), &wsa) != 0)
		return SN_NONE;
	started = true;
	SOCKET fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, IPPROTO_TCP);
	if (fd == INVALID_SOCKET)
		return SN_NONE;
	struct sockaddr_storage ss;
	int len = (int)sn_loopback_addr(ipv6, port, &ss);
	/* no SO_REUSEADDR: on Windows it lets another socket take a bound port */
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		closesocket(fd);
		return SN_NONE;
	}
	*bound = sn_addr_port(ipv6, &ss);
	return (sn_sock)fd;
}

int sn_wait_readable(sn_sock s, int ms)
{
	WSAPOLLFD p = {(SOCKET)s, POLLRDNORM, 0};
	return WSAPoll(&p, 1, ms);
}

sn_sock sn_accept(sn_sock s)
{
	SOCKET c = accept((SOCKET)s, NULL, NULL);
	return c == INVALID_SOCKET ? SN_NONE : (sn_sock)c;
}

long sn_recv(sn_sock s, char *buf, size_t n)
{
	return recv((SOCKET)s, buf, (int)(n > 65536 ? 65536 : n), 0);
}

long sn_send(sn_sock s, const char *buf, size_t n)
{
	return send((SOCKET)s, buf, (int)(n > 65536 ? 65536 : n), 0);
}

void sn_close(sn_sock s)
{
	closesocket((SOCKET)s);
}
