/* One Windows process read through a handle: its user, start time and
 * working set, and its detail (image path; with full rights command line,
 * working folder, DLLs, mapped files and environment). proc_windows.c
 * decides which processes are opened and keeps what was read. */
#include "platform.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <psapi.h>
#include <shellapi.h>
#include <winternl.h>

#include "core/snapshot.h"
#include "core/util.h"
#include "portable.h"
#include "proc_win.h"

#define MAX_MAPS 8192

/* Forward slashes inside: the layers above split paths on '/', and every
 * Win32 call accepts them. */
/* Paths stay as Windows writes them ("C:\\models\\x.gguf"): the command
 * line names them so, and identification reads both separators. */
static char *path_from_wide(const wchar_t *w, int wlen)
{
	return wide_to_utf8(w, wlen);
}

static void read_dos_devices(struct win_dos_map *c)
{
	c->read = true;
	c->n = 0;
	for (wchar_t d = L'A'; d <= L'Z'; d++) {
		wchar_t drive[3] = {d, L':', 0}, target[256];
		if (!QueryDosDeviceW(drive, target, ARRAY_LEN(target)))
			continue;
		char *t = wide_to_utf8(target, -1);
		if (t && strlen(t) < sizeof c->dev[0].device) {
			strcpy(c->dev[c->n].device, t);
			snprintf(c->dev[c->n].drive, sizeof c->dev[0].drive, "%c:", (char)d);
			c->n++;
		}
		free(t);
	}
}

#define PROCESS_COMMAND_LINE_INFORMATION 60 /* Windows 8.1+ */

win_nt_query_fn win_nt_query(void)
{
	static win_nt_query_fn query;
	if (!query) {
		FARPROC f = GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "NtQueryInformationProcess");
		memcpy(&query, &f, sizeof query);
	}
	return query;
}

/* The process's RTL_USER_PROCESS_PARAMETERS, read across from its PEB. */
static bool read_params(HANDLE h, RTL_USER_PROCESS_PARAMETERS *params)
{
	win_nt_query_fn query = win_nt_query();
	PROCESS_BASIC_INFORMATION pbi;
	PEB peb;
	SIZE_T got;
	return query && query(h, ProcessBasicInformation, &pbi, sizeof pbi, NULL) >= 0 && pbi.PebBaseAddress &&
	       ReadProcessMemory(h, pbi.PebBaseAddress, &peb, sizeof peb, &got) &&
	       ReadProcessMemory(h, peb.ProcessParameters, params, sizeof *params, &got);
}

/* A UNICODE_STRING of another process, NUL-terminated; malloc'd, NULL when unreadable. */
static wchar_t *read_remote_string(HANDLE h, const UNICODE_STRING *u)
{
	SIZE_T got;
	size_t n = u->Length / sizeof(wchar_t);
	if (n == 0 || !u->Buffer || n >= (1u << 19))
		return NULL;
	wchar_t *w = xmalloc((n + 1) * sizeof *w);
	if (!ReadProcessMemory(h, u->Buffer, w, n * sizeof *w, &got)) {
		free(w);
		return NULL;
	}
	w[n] = 0;
	return w;
}

/* The command line as UTF-16: NtQueryInformationProcess class 60, or the
 * PEB's RTL_USER_PROCESS_PARAMETERS.CommandLine read across. malloc'd. */
static wchar_t *read_command_line(HANDLE h, const RTL_USER_PROCESS_PARAMETERS *params)
{
	win_nt_query_fn query = win_nt_query();
	if (!query)
		return NULL;
	ULONG need = 0;
	query(h, PROCESS_COMMAND_LINE_INFORMATION, NULL, 0, &need);
	if (need >= sizeof(UNICODE_STRING) && need < (1u << 20)) {
		UNICODE_STRING *u = xmalloc(need);
		if (query(h, PROCESS_COMMAND_LINE_INFORMATION, u, need, &need) >= 0 && u->Buffer) {
			size_t n = u->Length / sizeof(wchar_t);
			wchar_t *w = xmalloc((n + 1) * sizeof *w);
			memcpy(w, u->Buffer, n * sizeof *w);
			w[n] = 0;
			free(u);
			return w;
		}
		free(u);
	}
	return params ? read_remote_string(h, &params->CommandLine) : NULL;
}

/* The working folder: CurrentDirectory.DosPath, which winternl.h leaves in
 * Reserved2 (x64 layout: ConsoleHandle, ConsoleFlags, StandardInput,
 * StandardOutput, StandardError, then CurrentDirectory {DosPath, Handle}).
 * Its trailing backslash goes unless it is a drive's root ("C:\\"), so a
 * relative model path resolves to the path a mapping of it shows. */
_Static_assert(offsetof(RTL_USER_PROCESS_PARAMETERS, Reserved2) + 5 * sizeof(PVOID) == 0x38 &&
		       offsetof(RTL_USER_PROCESS_PARAMETERS, ImagePathName) == 0x60,
	       "RTL_USER_PROCESS_PARAMETERS: CurrentDirectory.DosPath is at 0x38 on x64");

static char *read_cwd(HANDLE h, const RTL_USER_PROCESS_PARAMETERS *params)
{
	UNICODE_STRING dos;
	memcpy(&dos, &params->Reserved2[5], sizeof dos);
	wchar_t *w = read_remote_string(h, &dos);
	char *s = w ? wide_to_utf8(w, -1) : NULL;
	free(w);
	size_t n = s ? strlen(s) : 0;
	if (n > 3 && s[n - 1] == '\\')
		s[n - 1] = '\0';
	return s;
}

static void split_command_line(struct gtm_proc_detail *d, const wchar_t *cmd)
{
	int n = 0;
	wchar_t **wv = CommandLineToArgvW(cmd, &n);
	if (!wv)
		return;
	d->argv = xcalloc((size_t)n + 1, sizeof *d->argv);
	for (int i = 0; i < n; i++) {
		char *a = wide_to_utf8(wv[i], -1);
		if (a)
			d->argv[d->argc++] = a;
	}
	LocalFree(wv);
}

static void add_map(struct gtm_proc_detail *d, size_t *cap, char *path)
{
	if (!path)
		return;
	for (size_t i = 0; i < d->n_maps; i++)
		if (strcmp(d->maps[i], path) == 0) {
			free(path);
			return;
		}
	if (d->n_maps >= MAX_MAPS) {
		free(path);
		return;
	}
	d->maps = grow_array(d->maps, sizeof *d->maps, cap, d->n_maps);
	d->maps[d->n_maps++] = path;
}

/* An NT device path as a drive-letter path (malloc'd), NULL when no drive
 * names its device. */
static char *dos_path_of(struct win_dos_map *c, const wchar_t *w, DWORD k)
{
	char *nt = k ? wide_to_utf8(w, (int)k) : NULL, dos[1024];
	if (nt && !c->read)
		read_dos_devices(c);
	char *r = nt && win_device_path_to_dos(nt, c->dev, c->n, dos, sizeof dos) == 0 ? xstrdup(dos) : NULL;
	free(nt);
	return r;
}

/* The file an allocation at base is a view of: its mapped-file name (one
 * server request under Wine), the file itself as /proc/PID/maps names it on
 * Linux; for an image whose device no drive names (a DLL on a network
 * share) the loader's name for it, as EnumProcessModulesEx +
 * GetModuleFileNameExW gave for every DLL before. The two differ only where
 * the loader's name is not the file's: Wine's builtin kernel32.dll is
 * C:\windows\system32\kernel32.dll to its loader and
 * Z:\usr\lib\x86_64-linux-gnu\wine\x86_64-windows\kernel32.dll mapped
 * (same base name, which is what runtimes are told by). */
static char *view_path(struct win_dos_map *c, HANDLE h, void *base, bool image)
{
	wchar_t w[MAX_PATH * 2];
	char *p = dos_path_of(c, w, GetMappedFileNameW(h, base, w, ARRAY_LEN(w)));
	if (!p && image) {
		DWORD k = GetModuleFileNameExW(h, (HMODULE)base, w, ARRAY_LEN(w));
		p = k ? path_from_wide(w, (int)k) : NULL;
	}
	return p;
}

/* Where the image mapped at base ends, so the walk steps over its sections
 * (a region each: 7-8 VirtualQueryEx calls per DLL, each an APC into the
 * target under Wine) in one: its PE header's SizeOfImage, which the loader
 * maps as one view, trusted only when the view's last page is still part of
 * the same allocation (a header rewritten in memory cannot make the walk
 * skip another allocation). NULL when not known: the walk goes on region
 * by region. */
static char *image_end(HANDLE h, char *base)
{
	union {
		IMAGE_DOS_HEADER dos;
		char page[4096];
	} u;
	SIZE_T got = 0;
	if (!ReadProcessMemory(h, base, &u, sizeof u, &got) || got != sizeof u || u.dos.e_magic != IMAGE_DOS_SIGNATURE ||
	    u.dos.e_lfanew < 0 || (size_t)u.dos.e_lfanew > sizeof u - sizeof(IMAGE_NT_HEADERS32))
		return NULL;
	/* SizeOfImage sits at the same offset in PE32 and PE32+ headers */
	const IMAGE_NT_HEADERS32 *nt = (const void *)(u.page + u.dos.e_lfanew);
	DWORD size = nt->Signature == IMAGE_NT_SIGNATURE ? nt->OptionalHeader.SizeOfImage : 0;
	MEMORY_BASIC_INFORMATION last;
	if (size <= sizeof u.page || VirtualQueryEx(h, base + size - 1, &last, sizeof last) != sizeof last ||
	    last.AllocationBase != base)
		return NULL;
	return (char *)last.BaseAddress + last.RegionSize;
}

/* DLLs and mapped files in one walk of the address space: each MEM_IMAGE
 * allocation is a loaded DLL (or the exe), each committed MEM_MAPPED one a
 * file mapped as a view (GetMappedFileNameW's NT device path turned into a
 * drive-letter path); the DLLs are listed first, as before. One walk, not
 * EnumProcessModulesEx plus a GetModuleFileNameExW per module, each of which
 * re-reads the target's loader list (0.5 ms a call under Wine, measured). */
static void read_maps(struct win_dos_map *c, HANDLE h, struct gtm_proc_detail *d)
{
	size_t cap = 0, n_files = 0, cap_files = 0;
	char **files = NULL;
	MEMORY_BASIC_INFORMATION mbi;
	for (char *a = NULL; VirtualQueryEx(h, a, &mbi, sizeof mbi) == sizeof mbi;) {
		char *base = mbi.BaseAddress, *next = base + mbi.RegionSize, *end;
		if (mbi.Type == MEM_IMAGE && base == mbi.AllocationBase) {
			add_map(d, &cap, view_path(c, h, base, true));
			if ((end = image_end(h, base)) && end > next)
				next = end;
		} else if (mbi.Type == MEM_MAPPED && mbi.State == MEM_COMMIT && base == mbi.AllocationBase) {
			char *p = view_path(c, h, base, false);
			if (p) {
				files = grow_array(files, sizeof *files, &cap_files, n_files);
				files[n_files++] = p;
			}
		}
		if (next <= a)
			break;
		a = next;
	}
	for (size_t i = 0; i < n_files; i++)
		add_map(d, &cap, files[i]);
	free(files);
}

void win_read_user(HANDLE h, struct gtm_process *p)
{
	HANDLE tok;
	if (!OpenProcessToken(h, TOKEN_QUERY, &tok))
		return;
	union {
		TOKEN_USER tu;
		char buf[256];
	} u;
	DWORD need;
	if (GetTokenInformation(tok, TokenUser, &u, sizeof u, &need)) {
		wchar_t name[64], domain[64];
		DWORD nn = ARRAY_LEN(name), dn = ARRAY_LEN(domain);
		SID_NAME_USE use;
		if (LookupAccountSidW(NULL, u.tu.User.Sid, name, &nn, domain, &dn, &use)) {
			char *s = wide_to_utf8(name, -1);
			if (s)
				snprintf(p->user, sizeof p->user, "%s", s);
			free(s);
		}
	}
	CloseHandle(tok);
}

uint64_t win_start_time(HANDLE h)
{
	FILETIME created, exited, kernel, user;
	if (!GetProcessTimes(h, &created, &exited, &kernel, &user))
		return 0;
	return ((uint64_t)created.dwHighDateTime << 32) | created.dwLowDateTime;
}

/* A handle with the most of these rights the process grants: *full when it
 * allows reading its memory and regions (PROCESS_QUERY_INFORMATION: the
 * limited right lists DLLs but no mapped file, Wine refuses it, as the
 * documentation says). NULL when it grants not even the limited right. */
HANDLE win_open_process(uint32_t pid, bool *full)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid);
	if (!h)
		h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ, FALSE, pid);
	*full = h != NULL;
	if (!h)
		h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	return h;
}

/* What ps would show but the user: start time, working set. */
void win_read_basic(HANDLE h, struct gtm_process *p)
{
	PROCESS_MEMORY_COUNTERS pmc;
	p->start_time = win_start_time(h);
	if (GetProcessMemoryInfo(h, &pmc, sizeof pmc))
		p->rss = gtm_u64_of(pmc.WorkingSetSize, GTM_MEASURED);
}

/* The environment now, or left for proc_detail_load_environ (defer); an
 * unreadable one is read as empty, so it is not asked for again. */
static void read_environ(HANDLE h, bool full, bool defer, struct gtm_proc_detail *d)
{
	if (defer) {
		d->environ_deferred = true;
		return;
	}
	char *buf = xmalloc(PROC_ENVIRON_MAX);
	bool denied = true;
	size_t n = full ? win_environ_read(h, buf, &denied) : 0;
	proc_detail_set_environ(d, buf, denied ? 0 : n);
	free(buf);
}

/* The detail: image path, and with full rights command line, working
 * folder, DLLs, mapped files and environment. */
struct gtm_proc_detail *win_read_detail(struct win_dos_map *c, HANDLE h, bool full, bool defer_environ)
{
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	wchar_t w[MAX_PATH * 2];
	DWORD k = ARRAY_LEN(w);
	if (QueryFullProcessImageNameW(h, 0, w, &k))
		d->exe = path_from_wide(w, (int)k);
	if (full) {
		RTL_USER_PROCESS_PARAMETERS params;
		bool have_params = read_params(h, &params);
		wchar_t *cmd = read_command_line(h, have_params ? &params : NULL);
		if (have_params)
			d->cwd = read_cwd(h, &params);
		if (cmd)
			split_command_line(d, cmd);
		free(cmd);
		read_maps(c, h, d);
	}
	read_environ(h, full, defer_environ, d);
	if (!d->argv)
		d->argv = xcalloc(1, sizeof *d->argv);
	return d;
}
