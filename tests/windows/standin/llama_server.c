/* A stand-in llama-server.exe for the Windows process layer under Wine:
 *   llama-server.exe --write-gguf PATH    writes a small GGUF model and exits
 *   llama-server.exe -m PATH --port N --alias MARK
 * loads ggml-cuda.dll and llama.dll (stand-in runtimes, linked), maps PATH
 * (CreateFileMapping + MapViewOfFile: a MEM_MAPPED region, as llama.cpp's
 * mmap is on Windows), prints "ready" and stays 60 s, until the test ends
 * it. The e2e test (wine_processes.sh) finds it by MARK in gputaskman's
 * --json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <shellapi.h>
#include <wchar.h>

#include "ident_fixture.h"

__declspec(dllimport) int gtm_standin_ggml_cuda(int x);
__declspec(dllimport) int gtm_standin_llama(int x);

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
		fprintf(stderr, "usage: llama-server.exe -m MODEL.gguf [--port N] [--alias MARK]\n");
		return 2;
	}
	HANDLE f = CreateFileW(model, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
	HANDLE m = f == INVALID_HANDLE_VALUE ? NULL : CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
	const unsigned char *view = m ? MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0) : NULL;
	if (!view || memcmp(view, "GGUF", 4) != 0) {
		fprintf(stderr, "llama-server stand-in: cannot map %ls as a GGUF file (error %lu)\n", model, GetLastError());
		return 1;
	}
	/* the runtimes stay loaded: their export is called */
	printf("ready %d\n", gtm_standin_ggml_cuda(20) + gtm_standin_llama(20));
	fflush(stdout);
	Sleep(60 * 1000);
	UnmapViewOfFile(view);
	CloseHandle(m);
	CloseHandle(f);
	LocalFree(wargv);
	return 0;
}
