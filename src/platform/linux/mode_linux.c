/* Linux's half of platform_detect_mode: WSL, a container or native, from
 * what the root-prefixed /proc and /dev show. */
#include "platform.h"

#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"

/* Container runtimes leave their names in PID 1's cgroup path; cgroup v2
 * namespaces show "0::/" instead, so the runtimes' marker files count too. */
static const char *const container_markers[] = {"docker", "kubepods", "containerd", "libpod", "lxc"};
static const char *const container_files[] = {"/.dockerenv", "/run/.containerenv"};

enum gtm_mode platform_detect_mode(void)
{
	char buf[4096];

	/* WSL2 kernels say "microsoft" in their version; /dev/dxg is the GPU-PV device. */
	if (sysroot_read(buf, sizeof buf, "/proc/version") > 0 &&
	    (strstr(buf, "microsoft") || strstr(buf, "Microsoft") || strstr(buf, "WSL")))
		return GTM_MODE_WSL;
	if (sysroot_access(F_OK, "/dev/dxg") == 0)
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
