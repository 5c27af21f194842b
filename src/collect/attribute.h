/* Owner attribution: charges each raw GPU use a source reported (PID as the
 * source saw it) to a process row of the snapshot, and says how the owner was
 * established (owner, label, owner_reason).
 *
 * Rules, in order:
 * - pid 0 (bytes no process can be charged with): one "unattributed" row per
 *   device.
 * - LOCAL: the raw PID is a process row of this /proc (and its start time
 *   matches when the source knows it).
 * - A driver's PID (no start time) charged LOCAL in one refresh that the
 *   driver still lists when its process is gone (or when the PID names a
 *   later process that maps no NVIDIA compute library) is an EXITED row
 *   "*x<pid>" (exited_pairing LOCAL) until the driver drops it: never paired
 *   with another process, never H:. While /proc cannot be listed it is H:.
 * - Containers (snap->mode == GTM_MODE_CONTAINER) only: NVML reports host
 *   PIDs. A raw PID that does not resolve here, carries no start time (the
 *   driver's, not a /proc scan's) and is in a compute list (a PID in both
 *   lists counts once, as compute) is paired, in creation order, with a local
 *   process that maps a library named libcuda.so* and owns no use yet. A
 *   graphics-only host PID (the host's display server) takes no part in
 *   pairing or its counts: it is an H: row unless it is a local PID itself.
 *   MATCHED ('*') when it is certain: a host PID first seen in the same
 *   refresh as a new local CUDA process pins the two (as many new on both
 *   sides), or the remaining compute PIDs and CUDA processes are as many and
 *   no pairing kept beside them is a guess; GUESSED ('?') otherwise.
 *   A pairing (host PID → local PID and start time) holds while the driver
 *   lists the host PID, whatever the counts say later. When its process
 *   exits first, the host PID becomes an EXITED row ("*x<pid>" or "?x<pid>"
 *   after the pairing's mark; pid 0, the exited process's name, user and
 *   start time) until the driver drops the PID, and is never paired again.
 *   While /proc cannot be listed no process is taken to have exited: the
 *   pairings are carried and their host PIDs shown as H:.
 *   A host PID may equal an unrelated local PID. The same PID is trusted
 *   unless there is evidence against it: unresolved compute PIDs exist, the
 *   same-PID process maps no NVIDIA compute library (libcuda, libcudart,
 *   libnvidia-opencl, libggml-cuda) while the driver lists it as
 *   compute-only, and this container has more idle CUDA processes than
 *   unresolved compute PIDs (one of them lacks its entry). At most that
 *   surplus of PIDs is re-paired, lowest first.
 *   Outside containers no pairing is done: there NVML's PIDs are ours, and one
 *   missing from /proc has exited or is hidden.
 * - Anything left: a row "H:<pid>" (owner HOST, pid 0, host_pid set, no
 *   detail, never looked up locally).
 * - Under WSL (snap->mode == GTM_MODE_WSL) a raw PID without a start time
 *   (NVML's) is a Windows PID: a row "W:<pid>" (owner HOST), never looked up.
 * Per-process load (SM, encoder, decoder) travels with the use it belongs to. */
#ifndef GTM_ATTRIBUTE_H
#define GTM_ATTRIBUTE_H

#include "core/snapshot.h"
#include "sources/source.h"

struct attribute_state;

struct attribute_state *attribute_state_new(void);
void attribute_state_free(struct attribute_state *st);

/* Charges each raw use to a process row; orders GPU rows first (by VRAM,
 * descending) and sets snap->n_gpu_processes. Rows already in snap are the
 * local processes (owner GTM_OWNER_NONE). */
void attribute_uses(struct attribute_state *st, struct gtm_snapshot *snap, const struct gtm_raw_uses *uses);

/* Orders the rows again, GPU rows first by VRAM (after uses were added to
 * rows since attribute_uses: WSL's matched contexts). */
void attribute_order_rows(struct attribute_state *st, struct gtm_snapshot *snap);

/* Whether a mapped path names the CUDA driver library (basename libcuda.so*). */
bool attribute_maps_libcuda(const struct gtm_proc_detail *d);

#endif
