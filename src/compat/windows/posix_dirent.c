/* opendir/readdir/closedir over FindFirstFileW (posix/dirent.h): UTF-8
 * paths in, UTF-8 names out. */
#include <dirent.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "core/util.h"
#include "portable.h"

struct gtm_dir {
	HANDLE h;        /* INVALID_HANDLE_VALUE: a folder with no entry at all (a drive's empty root) */
	WIN32_FIND_DATAW found;
	bool pending;    /* found holds an entry readdir has not returned yet */
	struct dirent de;
};

/* Why FindFirstFileW failed, as opendir's errno. */
static int open_errno(DWORD e)
{
	static const struct {
		DWORD win;
		int err;
	} map[] = {
		{ERROR_ACCESS_DENIED, EACCES}, {ERROR_DIRECTORY, ENOTDIR},     {ERROR_PATH_NOT_FOUND, ENOENT},
		{ERROR_INVALID_NAME, ENOENT},  {ERROR_NOT_ENOUGH_MEMORY, ENOMEM},
	};
	for (size_t i = 0; i < ARRAY_LEN(map); i++)
		if (map[i].win == e)
			return map[i].err;
	return ENOENT;
}

DIR *opendir(const char *path)
{
	size_t n = strlen(path);
	char *pattern = xmalloc(n + 3);
	memcpy(pattern, path, n);
	/* "C:\x" lists as "C:\x\*"; "C:\" as "C:\*" */
	strcpy(pattern + n, n && (path[n - 1] == '\\' || path[n - 1] == '/') ? "*" : "\\*");
	wchar_t *w = utf8_to_wide(pattern);
	free(pattern);
	if (!w) {
		errno = ENOENT;
		return NULL;
	}
	DIR *d = xcalloc(1, sizeof *d);
	d->h = FindFirstFileW(w, &d->found);
	free(w);
	d->pending = d->h != INVALID_HANDLE_VALUE;
	if (!d->pending && GetLastError() != ERROR_FILE_NOT_FOUND) {
		errno = open_errno(GetLastError());
		free(d);
		return NULL;
	}
	return d;
}

struct dirent *readdir(DIR *d)
{
	while (d->pending || (d->h != INVALID_HANDLE_VALUE && FindNextFileW(d->h, &d->found))) {
		d->pending = false;
		char *name = wide_to_utf8(d->found.cFileName, -1);
		size_t len = name ? strlen(name) : 0;
		if (name && len <= GTM_DIRENT_NAME_MAX) {
			memcpy(d->de.d_name, name, len + 1);
			free(name);
			return &d->de;
		}
		free(name); /* not UTF-16 (a lone surrogate): no name to give */
	}
	return NULL;
}

int closedir(DIR *d)
{
	if (d && d->h != INVALID_HANDLE_VALUE)
		FindClose(d->h);
	free(d);
	return 0;
}
