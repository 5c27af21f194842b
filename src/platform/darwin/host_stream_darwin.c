/* The WSL2 host stream is a Windows mode (platform_api.h): a Mac has no
 * WSL to serve. */
#include "platform.h"

#include <stdio.h>

int platform_host_stream(unsigned interval_ms)
{
	(void)interval_ms;
	fprintf(stderr, "gputaskman: --host-stream is the Windows build's mode (gputaskman.exe, which "
			"gputaskman under WSL2 starts on the Windows side); this is the macOS build\n");
	return 2;
}

void platform_host_helper_describe(char *out, size_t cap)
{
	snprintf(out, cap, "not applicable (macOS has no WSL)");
}
