/* The /dev/dxg holders of this distro (wsl_dxg.c). */
#ifndef GTM_WSL_DXG_H
#define GTM_WSL_DXG_H

#include "sources/wsl_match.h"

/* Fills out with at most max holders; returns how many, or -1 when /proc
 * cannot be listed. */
int wsl_dxg_holders(struct wsl_proc *out, int max);

#endif
