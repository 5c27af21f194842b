/* Windows's half of platform_detect_mode. The Linux markers (/.dockerenv,
 * PID 1's cgroup, /proc/version) say nothing here: under Wine they are the
 * files of the Linux machine Wine runs on, and read through sysroot they
 * made a Wine run report "container". A Windows container's processes have
 * PIDs of their own only in process isolation mode, where the GPU sources
 * of part 2 see them as the host does, so no pairing is ever needed. */
#include "platform.h"

enum gtm_mode platform_detect_mode(void)
{
	return GTM_MODE_NATIVE;
}
