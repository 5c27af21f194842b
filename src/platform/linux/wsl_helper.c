/* Starting the Windows helper from WSL (wsl_helper.h). Interop runs an MZ
 * file directly (binfmt_misc → /init → the Windows side); a Linux working
 * directory can cost it seconds (microsoft/WSL#8472), so the helper is copied
 * to a Windows folder and started from there. */
#include "wsl_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

#define HELPER_NAME WSL_HELPER_EXE_WHAT
#define DEFAULT_CACHE "/mnt/c/ProgramData/gputaskman"
#define POWERSHELL "/mnt/c/Windows/System32/WindowsPowerShell/v1.0/powershell.exe"

static int copy_file(const char *src, const char *dst)
{
	char tmp[PATH_MAX + 32], buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n = 0;

	if (in < 0)
		return -1;
	/* per process: two gputaskman starting at once never write one file */
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", dst, (long)getpid());
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (close(out) != 0 || n < 0 || rename(tmp, dst) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int wsl_helper_place(const char *src, const char *dir, const char *name, char *out, size_t cap)
{
	struct stat s, d;

	if (stat(src, &s) != 0)
		return -1;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -1;
	if ((size_t)snprintf(out, cap, "%s/%s", dir, name) >= cap)
		return -1;
	if (stat(out, &d) == 0 && d.st_size == s.st_size && d.st_mtime >= s.st_mtime)
		return 0; /* placed before: the copy is this build's */
	return copy_file(src, out);
}

int wsl_helper_source(char *out, size_t cap)
{
	const char *env = getenv("GPUTASKMAN_WSL_HELPER");
	char self[PATH_MAX];
	ssize_t n;

	if (env && env[0])
		return (size_t)snprintf(out, cap, "%s", env) < cap ? 0 : -1;
	n = readlink("/proc/self/exe", self, sizeof self - 1); /* our own binary, not the observed system's */
	if (n <= 0)
		return -1;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	return (size_t)snprintf(out, cap, "%s/" HELPER_NAME, self) < cap ? 0 : -1;
}

static void set_args(struct wsl_cmd *c, int first, unsigned interval_ms)
{
	snprintf(c->ms, sizeof c->ms, "%u", interval_ms);
	c->argv[first] = "--host-stream";
	c->argv[first + 1] = "--interval-ms";
	c->argv[first + 2] = c->ms;
	c->argv[first + 3] = NULL;
}

/* exe_why: why the helper exe is not the one started (its step and reason). */
static int powershell_command(struct wsl_cmd *c, unsigned interval_ms, const char *exe_why, char *why, size_t cap)
{
	char *script;

	if (access(POWERSHELL, X_OK) != 0) {
		snprintf(why, cap, "%s; and no PowerShell at %s (%s)", exe_why, POWERSHELL, strerror(errno));
		return -1;
	}
	script = wsl_ps_script(interval_ms);
	c->script = wsl_ps_encode(script);
	free(script);
	str_copy(c->store[0], POWERSHELL, sizeof c->store[0]);
	c->argv[0] = c->store[0];
	c->argv[1] = "-NoProfile";
	c->argv[2] = "-NonInteractive";
	c->argv[3] = "-EncodedCommand";
	c->argv[4] = c->script;
	c->argv[5] = NULL;
	str_copy(c->cwd, "/mnt/c", sizeof c->cwd);
	str_copy(c->what, "powershell.exe", sizeof c->what);
	return 0;
}

int wsl_helper_command(struct wsl_cmd *c, unsigned interval_ms, const char *exe_failed, char *why, size_t cap)
{
	const char *run = getenv("GPUTASKMAN_WSL_RUN"), *cache = getenv("GPUTASKMAN_WSL_CACHE");
	const char *dir = cache && cache[0] ? cache : DEFAULT_CACHE;
	char exe_why[PATH_MAX + 160];

	memset(c, 0, sizeof *c);
	if (wsl_helper_source(c->store[1], sizeof c->store[1]) != 0)
		c->store[1][0] = '\0';
	if (run && run[0]) { /* tests and Wine: PROGRAM HELPER.exe ARGS, from here */
		str_copy(c->store[0], run, sizeof c->store[0]);
		c->argv[0] = c->store[0];
		c->argv[1] = c->store[1];
		set_args(c, 2, interval_ms);
		str_copy(c->what, "GPUTASKMAN_WSL_RUN", sizeof c->what);
		return 0;
	}
	/* each step that fails says so, with why: the message names the one that did */
	if (exe_failed)
		snprintf(exe_why, sizeof exe_why, "%s ran and gave no line, twice (%s)", HELPER_NAME, exe_failed);
	else if (!c->store[1][0])
		snprintf(exe_why, sizeof exe_why, "%s: the path beside gputaskman is unknown", HELPER_NAME);
	else if (access(c->store[1], R_OK) != 0)
		snprintf(exe_why, sizeof exe_why, "no %s at %s (%s)", HELPER_NAME, c->store[1], strerror(errno));
	else if (wsl_helper_place(c->store[1], dir, HELPER_NAME, c->store[2], sizeof c->store[2]) != 0)
		snprintf(exe_why, sizeof exe_why, "%s could not be copied to %s (%s)", HELPER_NAME, dir, strerror(errno));
	else {
		c->argv[0] = c->store[2];
		set_args(c, 1, interval_ms);
		str_copy(c->cwd, c->store[2], sizeof c->cwd);
		*strrchr(c->cwd, '/') = '\0';
		str_copy(c->what, HELPER_NAME, sizeof c->what);
		return 0;
	}
	return powershell_command(c, interval_ms, exe_why, why, cap);
}

void wsl_helper_command_free(struct wsl_cmd *c)
{
	free(c->script);
	c->script = NULL;
}
