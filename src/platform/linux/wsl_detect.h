/* WSL2 detection (platforms.md 2.1): each signal read through GPUTASKMAN_ROOT
 * (the environment variable is this process's own); WSL is the mode when at
 * least two agree, since each alone has false positives (a custom kernel
 * drops the suffix, a container may bind /dev/dxg, a variable may be
 * inherited). */
#ifndef GTM_WSL_DETECT_H
#define GTM_WSL_DETECT_H

#include <stdbool.h>

struct wsl_signals {
	bool interop_registered;  /* binfmt_misc has WSLInterop or WSLInterop-late */
	bool interop_enabled;     /* ... and its first line says "enabled" */
	bool kernel_wsl2;         /* osrelease ends -microsoft-standard-WSL2 (or says microsoft) */
	bool dxg;                 /* /dev/dxg exists (GPU-PV) */
	bool distro_env;          /* WSL_DISTRO_NAME is set */
};

/* Reads the signals; returns how many point at WSL (interop counts once). */
int wsl_detect(struct wsl_signals *s);

#endif
