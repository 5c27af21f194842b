/* The live view of a build without a terminal backend for its OS: the
 * Windows build until the Win32 console backend lands (issue 12, the TUI
 * half). It says so and points at the one-shot views, which work. */
#include "app/cmd_live.h"

#include <stdio.h>

int cmd_live(const struct collector_opts *o, double interval_s)
{
	(void)o;
	(void)interval_s;
	fprintf(stderr, "gputaskman: the live view is not built into this Windows build yet "
			"(its console backend is the other half of issue 12); use --once or --json\n");
	return 2;
}

int cmd_live_replay(struct rec_file *f, uint64_t start)
{
	(void)f;
	(void)start;
	fprintf(stderr, "gputaskman replay: the live view is not built into this Windows build yet; "
			"replay PATH --json --at TIME prints a moment\n");
	return 2;
}
