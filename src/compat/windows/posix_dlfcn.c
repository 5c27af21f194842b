#include <dlfcn.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "portable.h"

static _Thread_local char last_error[160];
static _Thread_local int have_error;

static void set_error(const char *what, const char *name)
{
	snprintf(last_error, sizeof last_error, "%s %s: Windows error %lu", what, name, (unsigned long)GetLastError());
	have_error = 1;
}

void *dlopen(const char *file, int mode)
{
	(void)mode;
	wchar_t *w = utf8_to_wide(file);
	HMODULE h = w ? LoadLibraryW(w) : NULL;
	free(w);
	if (!h)
		set_error("cannot load", file);
	return (void *)h;
}

void *dlsym(void *handle, const char *name)
{
	FARPROC f = GetProcAddress((HMODULE)handle, name);
	if (!f)
		set_error("no symbol", name);
	void *p;
	_Static_assert(sizeof p == sizeof f, "function and data pointers differ");
	memcpy(&p, &f, sizeof p);
	return p;
}

int dlclose(void *handle)
{
	return FreeLibrary((HMODULE)handle) ? 0 : -1;
}

char *dlerror(void)
{
	if (!have_error)
		return NULL;
	have_error = 0;
	return last_error;
}
