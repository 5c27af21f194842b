/* /proc/net/tcp and tcp6 line parser (kernel Documentation/networking/
 * proc_net_tcp.rst; net/ipv4/tcp_ipv4.c get_tcp4_sock(), net/ipv6/tcp_ipv6.c
 * get_tcp6_sock()): "sl: local rem st tx:rx tr:when retrnsmt uid timeout inode". */
#include "proc_parse.h"

#include <string.h>

#include "proc_lex.h"

/* The kernel prints each 32-bit address word with %08X of the in-memory
 * (network order) bytes read as a host integer; captures come from
 * little-endian machines, so byte i of a word is bits 8*i..8*i+7. */
static void word_bytes(uint32_t w, uint8_t out[4])
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(w >> (8 * i));
}

static enum proc_addr_class v4_class(const uint8_t a[4])
{
	if (a[0] == 127)
		return PROC_ADDR_LOOPBACK;
	if ((a[0] | a[1] | a[2] | a[3]) == 0)
		return PROC_ADDR_ANY;
	return PROC_ADDR_OTHER;
}

static enum proc_addr_class v6_class(const uint8_t a[16])
{
	static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	uint8_t zero = 0;

	if (memcmp(a, mapped_prefix, 12) == 0)
		return v4_class(a + 12);
	for (int i = 0; i < 15; i++)
		zero |= a[i];
	if (zero != 0)
		return PROC_ADDR_OTHER;
	if (a[15] == 1)
		return PROC_ADDR_LOOPBACK;
	return a[15] == 0 ? PROC_ADDR_ANY : PROC_ADDR_OTHER;
}

enum proc_addr_class proc_addr_classify(const uint8_t *addr, size_t len)
{
	if (len == 4)
		return v4_class(addr);
	return len == 16 ? v6_class(addr) : PROC_ADDR_OTHER;
}

/* "HHHHHHHH:PPPP" (v4) or 32 hex digits ":PPPP" (v6). */
static bool parse_endpoint(struct lex *l, enum proc_addr_class *cls, uint16_t *port)
{
	uint8_t bytes[16];
	const char *start;
	int words;
	uint64_t w, p;

	lex_skip_blank(l);
	start = l->p;
	while (l->p < l->end && lex_hex_digit(*l->p) >= 0)
		l->p++;
	if (l->p - start == 8)
		words = 1;
	else if (l->p - start == 32)
		words = 4;
	else
		return false;
	l->p = start;
	for (int i = 0; i < words; i++) {
		if (!lex_hex_fixed(l, 8, &w))
			return false;
		word_bytes((uint32_t)w, bytes + 4 * i);
	}
	if (!lex_char(l, ':') || !lex_hex_fixed(l, 4, &p))
		return false;
	*cls = proc_addr_classify(bytes, words == 1 ? 4 : 16);
	*port = (uint16_t)p;
	return true;
}

int proc_tcp_line_parse(const char *line, size_t len, struct proc_tcp_row *out)
{
	struct lex l = {line, line + len};
	enum proc_addr_class rem_cls;
	uint16_t rem_port;
	uint64_t v;

	memset(out, 0, sizeof *out);
	/* "sl:" slot number */
	if (!lex_u64(&l, &v) || !lex_char(&l, ':'))
		return -1;
	if (!parse_endpoint(&l, &out->addr, &out->port) || !parse_endpoint(&l, &rem_cls, &rem_port))
		return -1;
	if (!lex_hex(&l, &v) || v > 0xff)
		return -1;
	out->state = (uint8_t)v;
	/* tx_queue:rx_queue tr:tm->when retrnsmt uid timeout, then inode */
	for (int i = 0; i < 5; i++)
		if (!lex_skip_field(&l))
			return -1;
	if (!lex_u64(&l, &out->inode))
		return -1;
	return 0;
}

bool proc_tcp_row_is_loopback_listener(const struct proc_tcp_row *r)
{
	/* A wildcard listener (0.0.0.0, ::) accepts loopback connections too, and
	 * vLLM and LM Studio bind one by default: it is reachable on loopback. */
	return r->state == PROC_TCP_LISTEN && r->inode != 0 &&
	       (r->addr == PROC_ADDR_LOOPBACK || r->addr == PROC_ADDR_ANY);
}

uint64_t proc_socket_inode(const char *link, size_t len)
{
	static const char prefix[] = "socket:[";
	size_t k = sizeof prefix - 1;
	struct lex l;
	uint64_t v;

	if (len < k + 2 || memcmp(link, prefix, k) != 0)
		return 0;
	l = (struct lex){link + k, link + len};
	if (l.p < l.end && (*l.p < '0' || *l.p > '9'))
		return 0;
	if (!lex_u64(&l, &v) || !lex_char(&l, ']') || l.p != l.end)
		return 0;
	return v;
}
