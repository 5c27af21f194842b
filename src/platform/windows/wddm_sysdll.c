#include "wddm_sysdll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/util.h"

int wddm_system_dir(wchar_t *out, size_t cap)
{
	UINT n = GetSystemDirectoryW(out, (UINT)cap);
	return n == 0 || n >= cap ? -1 : 0;
}

HMODULE wddm_dll_load(const wchar_t *dir, const wchar_t *name, char *path, size_t path_cap)
{
	wchar_t full[MAX_PATH + 64];

	if (swprintf(full, sizeof full / sizeof full[0], L"%ls\\%ls", dir, name) < 0)
		return NULL;
	char *u = wide_to_utf8(full, -1);
	str_copy(path, u ? u : "?", path_cap);
	free(u);
	/* An absolute path with these flags: the DLL itself from that file, what
	 * it imports from its own folder or System32 only. */
	return LoadLibraryExW(full, NULL, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_SYSTEM32);
}

void *wddm_dll_sym(HMODULE h, const char *name)
{
	FARPROC f = GetProcAddress(h, name);
	void *p;
	_Static_assert(sizeof p == sizeof f, "function and data pointers differ");
	memcpy(&p, &f, sizeof p);
	return p;
}
