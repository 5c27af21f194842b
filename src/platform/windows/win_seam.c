#include "win_seam.h"

#include <stdlib.h>
#include <wchar.h>

HMODULE win_seam_dll(const wchar_t *var, bool *named)
{
	const wchar_t *path = _wgetenv(var);

	/* "C:\..." only: a relative name would be searched for */
	*named = path && wcslen(path) > 3 && path[1] == L':' && path[2] == L'\\';
	if (!*named)
		return NULL;
	return LoadLibraryExW(path, NULL, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_SYSTEM32);
}
