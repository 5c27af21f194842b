/* The part of libevent 2.1's published ABI (libevent-2.1.so.7) that the
 * probe's evhttp backend calls, declared here as design.md asks for a
 * library loaded with dlopen (as nvml_abi.h does for NVML), so no libevent
 * header is needed to build. Names, types and enum values as in libevent
 * 2.1.12's include/event2/{event,http,buffer}.h; only opaque handles.
 * Unlike libcurl's, libevent's Debian header package is not Multi-Arch:
 * same: libevent-dev and libevent-dev:arm64 cannot be installed together,
 * so building against it would cost the arm64 tarball's cross build. */
#ifndef GTM_EVHTTP_ABI_H
#define GTM_EVHTTP_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>

struct event_base;
struct evdns_base;
struct evhttp_connection;
struct evhttp_request;
struct evkeyvalq;
struct evbuffer;

/* event2/http.h: enum evhttp_cmd_type */
#define GTM_EVHTTP_REQ_GET 1

/* event2/http.h: enum evhttp_request_error */
enum gtm_evreq_error {
	GTM_EVREQ_HTTP_TIMEOUT,
	GTM_EVREQ_HTTP_EOF,
	GTM_EVREQ_HTTP_INVALID_HEADER,
	GTM_EVREQ_HTTP_BUFFER_ERROR,
	GTM_EVREQ_HTTP_REQUEST_CANCEL,
	GTM_EVREQ_HTTP_DATA_TOO_LONG,
};

/* event2/event.h: event_set_log_callback's callback (severity, message) */
typedef void (*gtm_event_log_cb)(int, const char *);
typedef void (*gtm_evhttp_done_cb)(struct evhttp_request *, void *);
typedef void (*gtm_evhttp_error_cb)(enum gtm_evreq_error, void *);

#endif
