/* The host stream manager (docs/wsl.md): one long-lived Windows helper,
 * read on its own thread. EOF, or no line for 3 intervals (the first line
 * gets a start-up grace), means the helper is gone: its sample is stale, the
 * helper's process group is ended and a new one started after a back-off
 * (0.5 s doubling to 30 s); never more than one runs. On stop its stdin is
 * closed and its group ended; PR_SET_PDEATHSIG ends it if gputaskman dies. */
#ifndef GTM_WSL_STREAM_H
#define GTM_WSL_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "sources/wsl_proto.h"

struct wsl_stream;

struct wsl_stream *wsl_stream_start(double interval_s);
/* Copies the newest sample (when there is one) and the stream's status.
 * Returns true when a sample is there and fresh. */
bool wsl_stream_get(struct wsl_stream *s, struct wsl_host_sample *out, struct gtm_host_stream *st);
/* Waits until the first sample or the first failure, at most timeout_ns.
 * Returns true when a sample came. */
bool wsl_stream_wait(struct wsl_stream *s, uint64_t timeout_ns);
/* Waits up to timeout_ns for a line with a sequence number past after_seq
 * (a failure does not end the wait: the bound does). Returns whether one came. */
bool wsl_stream_wait_after(struct wsl_stream *s, uint64_t after_seq, uint64_t timeout_ns);
void wsl_stream_stop(struct wsl_stream *s);

#endif
