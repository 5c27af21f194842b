/* Pairing the host's adapters (LUIDs) with this VM's devices (NVML): WSL's
 * LUIDs differ from the host's, so by memory use: a host adapter goes with
 * the one device whose used memory is within the tolerance of its dedicated
 * usage; none or several within it: unmatched (-1), never a guess. Pure. */
#ifndef GTM_WSL_PAIR_H
#define GTM_WSL_PAIR_H

#include "core/snapshot.h"
#include "sources/wsl_proto.h"

#define WSL_PAIR_TOLERANCE_MIB 512ull /* or 5 % of the larger, whichever is more */

/* dev[i]: the snapshot device index paired with s->adapters[i], or -1. */
void wsl_pair_adapters(const struct wsl_host_sample *s, const struct gtm_snapshot *snap, int *dev);

#endif
