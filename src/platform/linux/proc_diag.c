/* Listening TCP sockets through NETLINK_SOCK_DIAG (man 7 sock_diag), asking
 * for the LISTEN state only. Why not /proc/net/tcp: reading it walks every
 * bucket of the established hash (262144 on a 24 GiB machine, measured at
 * 0.5 ms per pass, several passes per read), while a LISTEN-only dump walks
 * the listening hash alone (net/ipv4/inet_diag.c inet_diag_dump_icsk()).
 * Used under the real root only; fixture trees replay /proc/net/tcp. */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/util.h"
#include "proc_internal.h"

/* A dump of a few listeners takes microseconds; never let one hold a refresh. */
#define DIAG_DEADLINE_NS (250ull * 1000000ull)

static void add_msg(struct proc_listeners *t, const unsigned char *payload, size_t len)
{
	struct inet_diag_msg m;
	uint8_t addr[16];
	size_t alen;

	if (len < sizeof m)
		return;
	memcpy(&m, payload, sizeof m);
	if (m.idiag_state != TCP_LISTEN || m.idiag_inode == 0 || t->n >= PROC_MAX_LISTENERS)
		return;
	alen = m.idiag_family == AF_INET ? 4 : m.idiag_family == AF_INET6 ? 16 : 0;
	if (alen == 0)
		return;
	memcpy(addr, m.id.idiag_src, alen);
	/* Loopback and wildcard listeners, as proc_tcp_row_is_loopback_listener. */
	enum proc_addr_class cls = proc_addr_classify(addr, alen);
	if (cls != PROC_ADDR_LOOPBACK && cls != PROC_ADDR_ANY)
		return;
	t->v = grow_array(t->v, sizeof *t->v, &t->cap, t->n);
	t->v[t->n++] = (struct proc_listener){m.idiag_inode, ntohs(m.id.idiag_sport)};
}

int proc_diag_parse(const void *buf, size_t len, struct proc_listeners *t)
{
	const unsigned char *p = buf;
	struct nlmsghdr h;

	while (len >= sizeof h) {
		memcpy(&h, p, sizeof h);
		if (h.nlmsg_len < sizeof h || h.nlmsg_len > len)
			return -1;
		if (h.nlmsg_type == NLMSG_DONE)
			return 1;
		if (h.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e = {.error = -EPROTO};
			if (h.nlmsg_len >= NLMSG_HDRLEN + sizeof e)
				memcpy(&e, p + NLMSG_HDRLEN, sizeof e);
			errno = e.error < 0 ? -e.error : EPROTO;
			return -1;
		}
		if (h.nlmsg_type == SOCK_DIAG_BY_FAMILY && h.nlmsg_seq == PROC_DIAG_SEQ)
			add_msg(t, p + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
		size_t step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return 0;
}

static int dump_family(int fd, int family, struct proc_listeners *t, char *io, size_t cap)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {.nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = PROC_DIAG_SEQ},
		.r = {.sdiag_family = (uint8_t)family, .sdiag_protocol = IPPROTO_TCP, .idiag_states = 1u << TCP_LISTEN},
	};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	uint64_t deadline = now_monotonic_ns() + DIAG_DEADLINE_NS;
	if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&kernel, sizeof kernel) != (ssize_t)sizeof req)
		return -1;
	while (now_monotonic_ns() < deadline) {
		ssize_t k = recv(fd, io, cap, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1; /* includes the receive timeout */
		int r = proc_diag_parse(io, (size_t)k, t);
		if (r != 0)
			return r > 0 ? 0 : -1;
	}
	errno = ETIMEDOUT;
	return -1;
}

int proc_listeners_load_diag(struct proc_listeners *t, char *io, size_t cap)
{
	struct timeval tmo = {.tv_sec = 0, .tv_usec = 100000}; /* never hang a refresh */
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof tmo);
	t->n = 0;
	int r = dump_family(fd, AF_INET, t, io, cap);
	/* a kernel without IPv6 answers ENOENT for that family: not a failure */
	if (r == 0 && dump_family(fd, AF_INET6, t, io, cap) != 0 && errno != ENOENT && errno != EAFNOSUPPORT)
		r = -1;
	close(fd);
	if (r != 0)
		t->n = 0;
	return r;
}
