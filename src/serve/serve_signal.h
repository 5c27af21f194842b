/* How `gputaskman serve` is told to stop (one file per OS: posix/). */
#ifndef GTM_SERVE_SIGNAL_H
#define GTM_SERVE_SIGNAL_H

/* Call before any thread starts: SIGINT and SIGTERM are held for
 * serve_signal_wait, and a peer closing a socket never raises SIGPIPE. */
void serve_signals_hold(void);
/* Waits up to ms for SIGINT or SIGTERM; returns the signal, or 0. */
int serve_signal_wait(unsigned ms);
/* Restores the mask serve_signals_hold changed. */
void serve_signals_release(void);

#endif
