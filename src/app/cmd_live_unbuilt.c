/* The live view of a build without a terminal backend for its OS: the
 * Windows build until the Win32 console backend lands (issue 12, the TUI
 * half). It says so and points at the one-shot views, which work. */
#include "app/cmd_live.h"

#include <stdio.h>

int cmd_live(const struct collector_opts *o, double interval_s, const char *record_path)
{
	(void)o;
	(void)interval_s;
	(void)record_path;
	fprintf(stderr, "gputaskman: the live view is not built into this Windows build yet "
			"(its console backend is the other half of issue 12); use --once or --json\n");
	return 2;
}
