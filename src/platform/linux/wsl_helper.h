/* How the Windows helper is started (docs/wsl.md, "Starting the helper"). */
#ifndef GTM_WSL_HELPER_H
#define GTM_WSL_HELPER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define WSL_HELPER_ARGS 12
#define WSL_HELPER_EXE_WHAT "gputaskman.exe" /* wsl_cmd.what of the helper exe (not the fallback) */

struct wsl_cmd {
	char *argv[WSL_HELPER_ARGS];
	char cwd[PATH_MAX];        /* the Windows-side working directory; "" keeps ours */
	char what[24];             /* "gputaskman.exe", "powershell.exe", "GPUTASKMAN_WSL_RUN" */
	char store[3][PATH_MAX];   /* the strings argv points into */
	char ms[16];
	char *script;              /* powershell's -EncodedCommand (malloc'd) */
};

/* Chooses the command: GPUTASKMAN_WSL_RUN=PROGRAM runs `PROGRAM HELPER.exe
 * --host-stream --interval-ms N` (Wine, a replayer); else the helper exe
 * beside this binary (GPUTASKMAN_WSL_HELPER names another), copied into the
 * Windows-side cache (GPUTASKMAN_WSL_CACHE, default /mnt/c/ProgramData/
 * gputaskman) and started there through interop; else, or when the exe
 * failed twice in a row (exe_failed: why it did the last time; NULL when it
 * did not), powershell.exe with the embedded script. Returns 0, or -1 with
 * why set: the step that failed for each (the exe: found, copied, ran; then
 * PowerShell's full path) and the reason. */
int wsl_helper_command(struct wsl_cmd *c, unsigned interval_ms, const char *exe_failed, char *why, size_t cap);
void wsl_helper_command_free(struct wsl_cmd *c);

/* The helper exe: GPUTASKMAN_WSL_HELPER, else gputaskman.exe beside this
 * binary (where make install puts it). Returns 0, or -1 when the path is
 * unknown or too long. */
int wsl_helper_source(char *out, size_t cap);

/* Copies src to dir/name unless a copy of the same size and no older is
 * there; returns 0 and the copy's path in out, or -1. */
int wsl_helper_place(const char *src, const char *dir, const char *name, char *out, size_t cap);

/* The PowerShell fallback's script for an interval, and the same as
 * -EncodedCommand wants it (base64 of UTF-16LE); malloc'd. */
char *wsl_ps_script(unsigned interval_ms);
char *wsl_ps_encode(const char *script);

#endif
