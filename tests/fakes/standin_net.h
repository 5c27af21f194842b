/* The few socket calls the stand-in HTTP server (standin_server_http.c)
 * makes, over the OS's own sockets: BSD sockets (standin_net_posix.c) or
 * Winsock (standin_net_win.c, for the Windows stand-in llama-server.exe).
 * The build picks one file; the server's code is the same on both. */
#ifndef GTM_STANDIN_NET_H
#define GTM_STANDIN_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A socket: a descriptor, or a Winsock SOCKET; SN_NONE is none. */
typedef intptr_t sn_sock;
#define SN_NONE ((sn_sock)-1)

/* A listening socket on 127.0.0.1 (or ::1), port 0 = any; the port bound
 * in *bound. SN_NONE when it cannot listen. */
sn_sock sn_listen_loopback(bool ipv6, uint16_t port, uint16_t *bound);
/* Waits at most ms for s to be readable (a connection to accept, bytes to
 * read, or the peer's close): > 0 readable, 0 not yet, < 0 an error. */
int sn_wait_readable(sn_sock s, int ms);
sn_sock sn_accept(sn_sock s);
/* recv/send: bytes moved, <= 0 when the peer is gone (a send never raises
 * SIGPIPE). */
long sn_recv(sn_sock s, char *buf, size_t n);
long sn_send(sn_sock s, const char *buf, size_t n);
void sn_close(sn_sock s);

#endif
