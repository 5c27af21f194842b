/* The POSIX probe's libraries on Linux (probe_posix.c's order: libevent,
 * then libcurl under its two Debian names). */
#include "explain/probe_posix.h"

const char *const probe_backend_libs[] = {"libevent-2.1.so.7", "libcurl.so.4", "libcurl-gnutls.so.4", NULL};
