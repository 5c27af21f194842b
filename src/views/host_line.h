/* The header's words for WSL2's host stream: "host: on (gputaskman.exe)",
 * "host: starting", "host: off (WSL interop is disabled)", "host: off
 * (--no-host)", "host: failed: <why>", "host: stale (<why>)". */
#ifndef GTM_HOST_LINE_H
#define GTM_HOST_LINE_H

#include <stddef.h>

#include "core/snapshot.h"

/* Writes the words into buf ("" when the snapshot has no host stream). */
const char *host_stream_words(const struct gtm_host_stream *h, char *buf, size_t cap);

#endif
