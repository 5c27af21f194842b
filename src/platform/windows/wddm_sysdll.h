/* Loading the vendor and system DLLs the adapters and their telemetry need,
 * each by its full path in a known folder: never the current folder, the
 * exe's folder or PATH, where any file named nvml.dll or dxgi.dll would do
 * (the NVML reference: "not on PATH ... LoadLibrary the full path"). */
#ifndef GTM_WDDM_SYSDLL_H
#define GTM_WDDM_SYSDLL_H

#include <stddef.h>
#include <windows.h>

/* Windows' System32 folder (GetSystemDirectoryW). Returns 0, or -1. */
int wddm_system_dir(wchar_t *out, size_t cap);
/* dir\name loaded with its own folder and System32 as the only places its
 * dependencies come from; the full path, UTF-8, in path (for messages)
 * either way. NULL when the file is absent or does not load. */
HMODULE wddm_dll_load(const wchar_t *dir, const wchar_t *name, char *path, size_t path_cap);
/* A DLL entry point as a generic function pointer (GetProcAddress), NULL
 * where absent. */
void *wddm_dll_sym(HMODULE h, const char *name);

#endif
