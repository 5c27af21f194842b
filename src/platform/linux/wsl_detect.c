/* WSL2's signals (wsl_detect.h), as a table of files and what they must say. */
#include "wsl_detect.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"

/* WSL registers WSLInterop (some builds WSLInterop-late; microsoft/WSL
 * src/linux/init/binfmt.h); its status file's first line is enabled/disabled. */
static const char *const interop_entries[] = {
	"/proc/sys/fs/binfmt_misc/WSLInterop",
	"/proc/sys/fs/binfmt_misc/WSLInterop-late",
};

static void read_interop(struct wsl_signals *s)
{
	char buf[256];

	for (size_t i = 0; i < sizeof interop_entries / sizeof interop_entries[0]; i++) {
		if (sysroot_read(buf, sizeof buf, "%s", interop_entries[i]) <= 0)
			continue;
		s->interop_registered = true;
		if (!strncmp(buf, "enabled", 7) && (buf[7] == '\n' || buf[7] == '\0'))
			s->interop_enabled = true;
	}
}

/* WSL2 kernels end "-microsoft-standard-WSL2" (CONFIG_LOCALVERSION of
 * microsoft/WSL2-Linux-Kernel); WSL1 says "-Microsoft", which has no /dev/dxg. */
static bool kernel_is_wsl2(void)
{
	char buf[512];

	if (sysroot_read(buf, sizeof buf, "/proc/sys/kernel/osrelease") <= 0 &&
	    sysroot_read(buf, sizeof buf, "/proc/version") <= 0)
		return false;
	return strstr(buf, "microsoft-standard-WSL2") || strstr(buf, "microsoft");
}

int wsl_detect(struct wsl_signals *s)
{
	const char *distro = getenv("WSL_DISTRO_NAME");

	memset(s, 0, sizeof *s);
	read_interop(s);
	s->kernel_wsl2 = kernel_is_wsl2();
	s->dxg = sysroot_access(F_OK, "/dev/dxg") == 0;
	s->distro_env = distro && distro[0];
	return s->interop_registered + s->kernel_wsl2 + s->dxg + s->distro_env;
}
