/* gputaskman.exe --host-stream (host_stream.h): one line per interval on
 * stdout, flushed, until stdin reaches EOF (gputaskman under WSL closes it
 * when it exits) or the parent process goes away; nothing else is printed
 * on stdout. The interval sleep is the wait on both, so either ends the
 * helper within one wake-up, never after a whole interval. */
#include "host_stream.h"

#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

/* Reads stdin until EOF or an error (its content means nothing), then sets
 * the event the main loop waits on. A missing stdin is an EOF. */
static DWORD WINAPI watch_stdin(void *arg)
{
	HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
	char buf[256];
	DWORD got = 0;

	while (in && in != INVALID_HANDLE_VALUE && ReadFile(in, buf, sizeof buf, &got, NULL) && got > 0)
		;
	SetEvent((HANDLE)arg);
	return 0;
}

static void host_stream_close(struct host_stream *hs)
{
	pdh_reader_close(hs->src.pdh);
	wddm_engine_tracker_free(hs->src.tracker);
	wddm_engine_loads_free(&hs->src.loads);
	free(hs->src.samples);
	wddm_procs_release(&hs->src);
	free(hs->groups);
	hs_names_free(&hs->names);
	wsl_line_free(&hs->line);
}

/* Writes the line; false when stdout is gone (gputaskman went away). */
static bool emit(const struct wsl_line *l)
{
	return fwrite(l->buf, 1, l->len, stdout) == l->len && fflush(stdout) == 0;
}

int platform_host_stream(unsigned interval_ms)
{
	static struct host_stream hs;
	HANDLE eof = CreateEventW(NULL, TRUE, FALSE, NULL), waits[2] = {eof, hs_parent_open()};
	HANDLE watcher = eof ? CreateThread(NULL, 0, watch_stdin, eof, 0, NULL) : NULL;
	ULONGLONG next = GetTickCount64();

	if (!watcher) {
		fprintf(stderr, "gputaskman: --host-stream: cannot watch stdin (error %lu)\n", GetLastError());
		return 1;
	}
	_setmode(_fileno(stdout), _O_BINARY); /* '\n' as written: no CR */
	hs.src.pdh = pdh_reader_open(hs.open_why, sizeof hs.open_why);
	hs.src.tracker = wddm_engine_tracker_new();
	for (;;) {
		host_stream_sample(&hs);
		if (!emit(&hs.line))
			break;
		ULONGLONG now = GetTickCount64();
		next += interval_ms;
		if (next < now)
			next = now; /* a slow collect: no burst of lines to catch up */
		if (WaitForMultipleObjects(waits[1] ? 2 : 1, waits, FALSE, (DWORD)(next - now)) != WAIT_TIMEOUT)
			break; /* stdin's EOF, or the parent ended */
	}
	host_stream_close(&hs);
	return 0;
}

void platform_host_helper_describe(char *out, size_t cap)
{
	snprintf(out, cap, "this build is the helper (gputaskman.exe --host-stream, docs/wsl.md)");
}
