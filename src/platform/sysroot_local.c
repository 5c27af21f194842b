/* The sysroot of an OS whose build reads only the machine it runs on (macOS,
 * Windows): GPUTASKMAN_ROOT replays a Linux /proc and /sys tree, which means
 * nothing there: when it is set, sysroot_problem says so and every read of
 * the OS's sysroot_<os>.c fails. Built by those OS folders' meson.build. */
#include "core/sysroot_os.h"

#include <stdio.h>
#include <stdlib.h>

#include "platform/platform_text.h"

static char problem[160];
static int ready;

void sysroot_reset(void)
{
	const char *r = getenv("GPUTASKMAN_ROOT");
	problem[0] = '\0';
	if (r && *r)
		snprintf(problem, sizeof problem,
			 "GPUTASKMAN_ROOT replays a Linux tree; the %s build reads this machine only", platform_os_name);
	ready = 1;
}

const char *sysroot_problem(void)
{
	if (!ready)
		sysroot_reset();
	return problem[0] ? problem : NULL;
}

const char *sysroot_prefix(void)
{
	return "";
}
