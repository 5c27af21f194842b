/* A stand-in llama-server.exe for the Windows process layer under Wine:
 *   llama-server.exe --write-gguf PATH    writes a small GGUF model and exits
 *   llama-server.exe -m PATH [--port N] [--alias MARK] [--ready FILE [--garbage]]
 * loads ggml-cuda.dll and llama.dll (stand-in runtimes, linked), maps PATH
 * (CreateFileMapping + MapViewOfFile: a MEM_MAPPED region, as llama.cpp's
 * mmap is on Windows), prints "ready PID" and stays until the test ends it:
 * killed, or, when its stdin is a pipe, until that pipe closes (the test
 * that started it is gone: wine_e2e.py); otherwise at most an hour, far
 * longer than any test's timeout, so an orphan still goes by itself. The
 * tests find it by MARK in gputaskman's --json, or by its PID.
 * With --ready FILE it also serves the Linux stand-in's local API
 * (tests/fakes/standin_answers.c: /props, /slots, /metrics, /v1/models,
 * /health, the model's Windows path put in) on 127.0.0.1, an ephemeral port
 * (--port is the llama-server flag, not honoured), over Winsock, and writes
 * "PID PORT" to FILE and prints "ready PID PORT" once it serves; --garbage
 * answers every request with bytes that are not HTTP. With --behind-dll the
 * model's view lies in the first free 64 KiB slot after llama.dll's image,
 * and that DLL's header in memory claims 16 MiB more than was mapped: a walk
 * of the address space that stepped over each DLL by its header's
 * SizeOfImage without checking would step over the model too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <shellapi.h>
#include <wchar.h>

#include "ident_fixture.h"
#include "standin_answers.h"
#include "standin_server_http.h"

__declspec(dllimport) int gtm_standin_ggml_cuda(int x);
__declspec(dllimport) int gtm_standin_llama(int x);

static const char *flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return argv[i + 1];
	return NULL;
}

/* The local API, when --ready names where to say its port. The model's path
 * as the API gives it: the absolute Windows path, UTF-8. Returns the port, 0
 * when it was not asked for, -1 when it cannot serve. */
static int serve(int argc, char **argv, const wchar_t *model)
{
	const char *ready = flag(argc, argv, "--ready");
	bool garbage = false;
	for (int i = 1; i < argc; i++)
		garbage |= strcmp(argv[i], "--garbage") == 0;
	if (!ready)
		return 0;
	wchar_t full[MAX_PATH * 2];
	char path[MAX_PATH * 6];
	DWORD k = GetFullPathNameW(model, MAX_PATH * 2, full, NULL);
	if (!k || k >= MAX_PATH * 2 || !WideCharToMultiByte(CP_UTF8, 0, full, -1, path, sizeof path, NULL, NULL))
		return -1;
	static struct replay_route routes[STANDIN_ROUTES];
	static const struct replay_route junk[] = {{NULL, 0, NULL, REPLAY_GARBAGE}};
	standin_routes(NULL, path, routes);
	struct replay_server *rs = garbage ? replay_start(junk, 1, false, 0) : replay_start(routes, STANDIN_ROUTES, false, 0);
	if (!rs)
		return -1;
	FILE *f = fopen(ready, "w");
	if (!f)
		return -1;
	int wrote = fprintf(f, "%lu %u\n", GetCurrentProcessId(), replay_port(rs));
	if (fclose(f) != 0 || wrote < 0) /* closed either way: never leaked */
		return -1;
	return replay_port(rs);
}

/* A shell's `cmd &` gives /dev/null (a character device here) as stdin,
 * whose end comes at once: only a pipe's end says the test has gone. */
static void stay(void)
{
	HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
	char buf[64];
	DWORD got;

	if (in == INVALID_HANDLE_VALUE || !in || GetFileType(in) != FILE_TYPE_PIPE) {
		Sleep(3600 * 1000);
		return;
	}
	while (ReadFile(in, buf, sizeof buf, &got, NULL) && got > 0)
		;
}

#define BEHIND_CLAIM (16u << 20)

/* The model's view right after llama.dll's image (--behind-dll), that
 * DLL's SizeOfImage then made BEHIND_CLAIM larger; NULL when no slot
 * within the claim is free, so the case is never run without its point. */
static const unsigned char *map_behind_dll(HANDLE m)
{
	char *dll = (char *)GetModuleHandleW(L"llama.dll");
	IMAGE_NT_HEADERS *nt = dll ? (IMAGE_NT_HEADERS *)(dll + ((IMAGE_DOS_HEADER *)dll)->e_lfanew) : NULL;
	if (!nt)
		return NULL;
	char *end = dll + nt->OptionalHeader.SizeOfImage, *view = NULL;
	MEMORY_BASIC_INFORMATION mbi;
	for (char *a = (char *)(((ULONG_PTR)end + 0xffff) & ~(ULONG_PTR)0xffff); !view && a < end + BEHIND_CLAIM / 2;
	     a += 0x10000)
		if (VirtualQuery(a, &mbi, sizeof mbi) == sizeof mbi && mbi.State == MEM_FREE)
			view = MapViewOfFileEx(m, FILE_MAP_READ, 0, 0, 0, a);
	DWORD old;
	if (!view || !VirtualProtect(nt, sizeof *nt, PAGE_READWRITE, &old))
		return NULL;
	nt->OptionalHeader.SizeOfImage += BEHIND_CLAIM;
	VirtualProtect(nt, sizeof *nt, old, &old);
	return (const unsigned char *)view;
}

static bool has_flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const wchar_t *model = NULL;

	if (argc == 3 && strcmp(argv[1], "--write-gguf") == 0)
		return tf_write_gguf(argv[2], "llama"), 0; /* the identify tests' tiny model; aborts on failure */
	/* the model's name as Windows has it (UTF-16: the test names it in
	 * letters no ANSI code page holds), not main's ANSI argv */
	int wargc = 0;
	wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &wargc);
	for (int i = 1; wargv && i + 1 < wargc; i++)
		if (wcscmp(wargv[i], L"-m") == 0)
			model = wargv[i + 1];
	if (!model) {
		fprintf(stderr, "usage: llama-server.exe -m MODEL.gguf [--port N] [--alias MARK] [--ready FILE [--garbage]]\n");
		return 2;
	}
	HANDLE f = CreateFileW(model, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
	HANDLE m = f == INVALID_HANDLE_VALUE ? NULL : CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
	const unsigned char *view = !m				   ? NULL
				    : has_flag(argc, argv, "--behind-dll") ? map_behind_dll(m)
									   : MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0);
	if (!view || memcmp(view, "GGUF", 4) != 0) {
		fprintf(stderr, "llama-server stand-in: cannot map %ls as a GGUF file (error %lu)\n", model, GetLastError());
		return 1;
	}
	/* the runtimes stay loaded: their export is called */
	if (gtm_standin_ggml_cuda(20) + gtm_standin_llama(20) <= 0)
		return 1;
	int port = serve(argc, argv, model);
	if (port < 0) {
		fprintf(stderr, "llama-server stand-in: cannot serve on loopback\n");
		return 1;
	}
	if (port)
		printf("ready %lu %d\n", GetCurrentProcessId(), port);
	else
		printf("ready %lu\n", GetCurrentProcessId());
	fflush(stdout);
	stay();
	UnmapViewOfFile(view);
	CloseHandle(m);
	CloseHandle(f);
	LocalFree(wargv);
	return 0;
}
