/* Linux's half of platform_detect_mode: WSL (two signals of wsl_detect.h), a
 * container or native, from what the root-prefixed /proc and /dev show. */
#include "platform.h"

#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "wsl_detect.h"

/* Container runtimes leave their names in PID 1's cgroup path; cgroup v2
 * namespaces show "0::/" instead, so the runtimes' marker files count too. */
static const char *const container_markers[] = {"docker", "kubepods", "containerd", "libpod", "lxc"};
static const char *const container_files[] = {"/.dockerenv", "/run/.containerenv"};

enum gtm_mode platform_detect_mode(void)
{
	char buf[4096];
	struct wsl_signals ws;

	if (wsl_detect(&ws) >= 2) /* two signals: each alone has false positives */
		return GTM_MODE_WSL;
	for (size_t i = 0; i < sizeof container_files / sizeof container_files[0]; i++)
		if (sysroot_access(F_OK, "%s", container_files[i]) == 0)
			return GTM_MODE_CONTAINER;
	if (sysroot_read(buf, sizeof buf, "/proc/1/cgroup") > 0)
		for (size_t i = 0; i < sizeof container_markers / sizeof container_markers[0]; i++)
			if (strstr(buf, container_markers[i]))
				return GTM_MODE_CONTAINER;
	return GTM_MODE_NATIVE;
}
