/* standin_net.h over BSD sockets (Linux). */
#include "standin_net.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "standin_net_addr.h"

sn_sock sn_listen_loopback(bool ipv6, uint16_t port, uint16_t *bound)
{
	int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	int one = 1;
	if (fd < 0)
		return SN_NONE;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_storage ss;
	socklen_t len = (socklen_t)sn_loopback_addr(ipv6, port, &ss);
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		close(fd);
		return SN_NONE;
	}
	*bound = sn_addr_port(ipv6, &ss);
	return fd;
}

int sn_wait_readable(sn_sock s, int ms)
{
	struct pollfd p = {(int)s, POLLIN, 0};
	return poll(&p, 1, ms);
}

sn_sock sn_accept(sn_sock s)
{
	int c = accept((int)s, NULL, NULL);
	return c < 0 ? SN_NONE : c;
}

long sn_recv(sn_sock s, char *buf, size_t n)
{
	return (long)recv((int)s, buf, n, 0);
}

long sn_send(sn_sock s, const char *buf, size_t n)
{
	return (long)send((int)s, buf, n, MSG_NOSIGNAL);
}

void sn_close(sn_sock s)
{
	close((int)s);
}
