/* The production path of the DRM fd scan, measured on a real procfs: PROCS
 * stopped child processes with FDS open fds each (files, sockets, eventfds),
 * the first DRM_PROCS holding a render and a primary node as their last two.
 * Needs its own PID and mount namespace (run.sh: unshare -mpf --mount-proc),
 * where /proc lists only these and /dev is a tmpfs holding regular files
 * named like the DRM nodes (the scan reads the link text alone). */
#ifndef GTM_BENCH_LIVE_PROCS_H
#define GTM_BENCH_LIVE_PROCS_H

#include <sys/types.h>

/* Starts them and returns their PIDs (n = procs), or NULL with a message
 * on stderr. */
pid_t *live_procs_start(int procs, int fds, int drm_procs);
void live_procs_stop(pid_t *pids, int procs);

#endif
