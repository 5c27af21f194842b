/* The seams through which the tests run gputaskman.exe itself under Wine
 * with DLLs of their own in place of a system one (GTM_D3DKMT_DLL for
 * gdi32's D3DKMT entry points, GTM_IPHLPAPI_DLL for GetExtendedTcpTable):
 * an environment variable naming the DLL by an absolute path only, never a
 * search, so no file in the current folder or on PATH can become one. */
#ifndef GTM_WIN_SEAM_H
#define GTM_WIN_SEAM_H

#include <stdbool.h>
#include <windows.h>

/* The DLL the variable var names, loaded with its own folder and System32
 * as the only places its dependencies come from (never unloaded: the
 * caller keeps what it resolves). *named says whether var holds an
 * absolute path at all, so a caller can refuse the system DLL in place of
 * one that does not load. NULL when unnamed or it does not load. */
HMODULE win_seam_dll(const wchar_t *var, bool *named);

#endif
