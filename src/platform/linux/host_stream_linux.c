/* The host stream's Windows end is a Windows mode (platform_api.h); on
 * Linux, --version says whether the Windows build is installed beside this
 * binary, where gputaskman under WSL2 starts it from (wsl_helper.c). */
#include "platform.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wsl_helper.h"

int platform_host_stream(unsigned interval_ms)
{
	(void)interval_ms;
	fprintf(stderr, "gputaskman: --host-stream is the Windows build's mode (gputaskman.exe, which "
			"gputaskman under WSL2 starts on the Windows side); this is the Linux build\n");
	return 2;
}

/* An MZ header: a Windows executable, not a leftover of another kind. */
static bool is_windows_exe(const char *path)
{
	char mz[2] = {0};
	FILE *f = fopen(path, "rb");
	bool ok = f && fread(mz, 1, 2, f) == 2 && mz[0] == 'M' && mz[1] == 'Z';
	if (f)
		fclose(f);
	return ok;
}

void platform_host_helper_describe(char *out, size_t cap)
{
	char path[PATH_MAX];

	if (wsl_helper_source(path, sizeof path) != 0)
		snprintf(out, cap, "not found (this binary's folder is unknown)");
	else if (access(path, R_OK) != 0)
		snprintf(out, cap, "not found (%s; make windows, then make install, puts it there)", path);
	else if (!is_windows_exe(path))
		snprintf(out, cap, "not found (%s is not a Windows executable)", path);
	else
		snprintf(out, cap, "found (%s)", path);
}
