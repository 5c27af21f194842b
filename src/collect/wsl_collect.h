/* WSL2 in a refresh (docs/wsl.md): the /dev/dxg holders before the scan (their
 * rows are wanted), then the host sample, the matcher and the rows after
 * attribution: the VM row (vmwp.exe, measured), W:<pid> Windows rows, the
 * holders sized by the matched contexts ('*'/'?'), exited owners' contexts,
 * pending holders with VRAM N/A. Without a host sample: the holders with VRAM
 * N/A on the NVIDIA device. */
#ifndef GTM_WSL_COLLECT_H
#define GTM_WSL_COLLECT_H

#include <stdint.h>

#include "core/snapshot.h"
#include "sources/source.h"

struct wsl_collect;

struct wsl_collect *wsl_collect_new(bool no_host, bool one_shot, double interval_s);
void wsl_collect_free(struct wsl_collect *w);

/* Reads the holders and the newest host sample; drops NVML's uses of PIDs the
 * host stream lists (Windows PIDs, shown from the stream); returns the holders'
 * PIDs for the scan's priority list (valid until the next call). */
const uint32_t *wsl_collect_before_scan(struct wsl_collect *w, struct gtm_snapshot *snap, struct gtm_raw_uses *uses,
					size_t *n);
/* Matches and adds the rows (after attribute_uses; the caller orders rows again). */
void wsl_collect_apply(struct wsl_collect *w, struct gtm_snapshot *snap);

#endif
