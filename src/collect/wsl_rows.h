/* The rows WSL2 adds to a snapshot (wsl_collect.h says when). */
#ifndef GTM_WSL_ROWS_H
#define GTM_WSL_ROWS_H

#include "core/snapshot.h"
#include "sources/wsl_match.h"
#include "sources/wsl_proto.h"

#define WSL_INFERRED_BY "wsl-context-match"

/* The VM row of adapter a on device dev: vmwp.exe (or "VM worker" when the
 * host runs other VMs), VRAM/spill the measured sums over its contexts. */
void wsl_add_vm_row(struct gtm_snapshot *snap, const struct wsl_host_sample *s, int a, int dev, int n_here,
		    int n_foreign);
/* W:<pid> rows of the other Windows processes with GPU memory on paired adapters. */
void wsl_add_windows_rows(struct gtm_snapshot *snap, const struct wsl_host_sample *s, const int *dev);
/* The matcher's rows: holders sized ('*' MATCHED / '?' GUESSED), exited
 * owners' contexts (*x/?x rows), pending holders (N/A). dev[a]: the
 * device of the tick's adapter a (a < n_adapters), or -1; pending holders go
 * on the first paired device, else on wsl_first_nvidia's. */
void wsl_apply_rows(struct gtm_snapshot *snap, const struct wsl_result *r, const int *dev, int n_adapters);
/* The device holders are shown on without a paired adapter: the first NVIDIA
 * one (WSL's NVML), else the first; -1 without devices. */
int wsl_first_nvidia(const struct gtm_snapshot *snap);
/* Holders with VRAM N/A on dev (no host numbers: why says why). */
void wsl_add_holders_na(struct gtm_snapshot *snap, const struct wsl_proc *h, int n, int dev, const char *why);

#endif
