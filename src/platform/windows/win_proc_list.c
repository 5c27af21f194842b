/* The process listing (win_proc_list.h). SystemProcessInformation is one
 * system call on Windows for what Toolhelp plus an OpenProcess,
 * GetProcessTimes, GetProcessMemoryInfo and CloseHandle per process tell;
 * under Wine each of those four is a wineserver round trip. ntdll's entry
 * point is resolved with GetProcAddress: winternl.h documents it as one
 * that may change, so a missing one (or a failing call) falls back to
 * Toolhelp, and the scan then reads the rest from each process's handle. */
#include "win_proc_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <tlhelp32.h>
#include <winternl.h>

#include "core/util.h"
#include "win_sysproc.h"

#ifndef STATUS_INFO_LENGTH_MISMATCH
#define STATUS_INFO_LENGTH_MISMATCH ((LONG)0xC0000004L)
#endif
#define BUF_FIRST (256u * 1024)       /* ~300 processes with their threads */
#define BUF_MAX (64u * 1024 * 1024)
#define TRIES 4                        /* processes start between the calls */

/* win_sysproc.c's table for this build, checked against mingw-w64's
 * declaration (whose fields Microsoft's winternl.h keeps in Reserved1 and
 * Reserved2 but for ImageName, UniqueProcessId and WorkingSetSize). */
#ifdef _WIN64
#define LAYOUT win_sysproc_x64
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, CreateTime) == 0x20 &&
		       offsetof(SYSTEM_PROCESS_INFORMATION, ImageName) == 0x38 &&
		       offsetof(SYSTEM_PROCESS_INFORMATION, UniqueProcessId) == 0x50 &&
		       offsetof(SYSTEM_PROCESS_INFORMATION, InheritedFromUniqueProcessId) == 0x58 &&
		       offsetof(SYSTEM_PROCESS_INFORMATION, VirtualMemoryCounters.WorkingSetSize) == 0x90,
	       "SYSTEM_PROCESS_INFORMATION: win_sysproc_x64's offsets");
#else
#define LAYOUT win_sysproc_x86
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, UniqueProcessId) == 0x44 &&
		       offsetof(SYSTEM_PROCESS_INFORMATION, VirtualMemoryCounters.WorkingSetSize) == 0x68,
	       "SYSTEM_PROCESS_INFORMATION: win_sysproc_x86's offsets");
#endif

typedef LONG(NTAPI *sysinfo_fn)(ULONG, PVOID, ULONG, PULONG);

static sysinfo_fn nt_sysinfo(void)
{
	static sysinfo_fn f;
	static bool looked;
	if (!looked) {
		FARPROC p = GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "NtQuerySystemInformation");
		memcpy(&f, &p, sizeof f);
		looked = true;
	}
	return f;
}

/* UTF-16 into name, cut at a whole character when it does not fit (as the
 * snapshot's name is cut; UTF-8's lead bytes are never 10xxxxxx). */
static void set_name(struct win_proc *p, const wchar_t *w, int len)
{
	char full[1024];
	int k = len > 0 ? WideCharToMultiByte(CP_UTF8, 0, w, len, full, sizeof full - 1, NULL, NULL) : 0;
	size_t n = k > 0 ? (size_t)k : 0;
	p->name_cut = n >= sizeof p->name || (len > 0 && k == 0);
	if (n >= sizeof p->name) {
		n = sizeof p->name - 1;
		while (n && ((unsigned char)full[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(p->name, full, n);
	p->name[n] = '\0';
}

static struct win_proc *push(struct win_proc_list *l)
{
	l->v = grow_array(l->v, sizeof *l->v, &l->cap, l->n);
	struct win_proc *p = &l->v[l->n++];
	memset(p, 0, sizeof *p);
	return p;
}

static void on_entry(const struct win_sysproc *e, void *arg)
{
	struct win_proc_list *l = arg;
	struct win_proc *p = push(l);
	wchar_t w[512];
	size_t units = e->name_len / 2 < ARRAY_LEN(w) ? e->name_len / 2 : ARRAY_LEN(w);

	p->pid = e->pid, p->ppid = e->ppid, p->start_time = e->create_time, p->rss = e->working_set;
	memcpy(w, l->buf + e->name_off, units * 2); /* the name may sit unaligned */
	set_name(p, w, (int)units);
	if (!units && p->pid == 0)
		snprintf(p->name, sizeof p->name, "[System Process]"); /* Toolhelp's name for it */
}

/* The size protocol: STATUS_INFO_LENGTH_MISMATCH says the buffer was short
 * (with the size it needed then); grow past it and ask again. *got: the
 * bytes filled. */
static LONG query(struct win_proc_list *l, sysinfo_fn f, ULONG *got)
{
	LONG st = STATUS_INFO_LENGTH_MISMATCH;
	for (int i = 0; i < TRIES && st == STATUS_INFO_LENGTH_MISMATCH; i++) {
		if (!l->buf) {
			l->cap_buf = BUF_FIRST;
			l->buf = xmalloc(l->cap_buf);
		}
		ULONG need = 0;
		st = f(SystemProcessInformation, l->buf, (ULONG)l->cap_buf, &need);
		*got = need && need <= l->cap_buf ? need : (ULONG)l->cap_buf;
		if (st == STATUS_INFO_LENGTH_MISMATCH) {
			unsigned long want = (need > l->cap_buf ? need : l->cap_buf) + l->cap_buf / 2;
			if (want > BUF_MAX)
				return st;
			free(l->buf);
			l->cap_buf = want;
			l->buf = xmalloc(l->cap_buf);
		}
	}
	return st;
}

static bool list_sysproc(struct win_proc_list *l)
{
	sysinfo_fn f = nt_sysinfo();
	ULONG got = 0;
	if (!f) {
		snprintf(l->why, sizeof l->why, "ntdll has no NtQuerySystemInformation");
		return false;
	}
	LONG st = query(l, f, &got);
	if (st < 0) {
		snprintf(l->why, sizeof l->why, "NtQuerySystemInformation: status 0x%08lX", (unsigned long)st);
		return false;
	}
	if (win_sysproc_walk(l->buf, got, (uint64_t)(uintptr_t)l->buf, &LAYOUT, on_entry, l) < 0) {
		snprintf(l->why, sizeof l->why, "SystemProcessInformation: a broken entry chain");
		return false;
	}
	return true;
}

static bool list_toolhelp(struct win_proc_list *l)
{
	HANDLE hs = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	if (hs == INVALID_HANDLE_VALUE)
		return false;
	PROCESSENTRY32W pe = {.dwSize = sizeof pe};
	for (BOOL more = Process32FirstW(hs, &pe); more; more = Process32NextW(hs, &pe)) {
		struct win_proc *p = push(l);
		p->pid = pe.th32ProcessID, p->ppid = pe.th32ParentProcessID;
		set_name(p, pe.szExeFile, (int)wcsnlen(pe.szExeFile, ARRAY_LEN(pe.szExeFile)));
	}
	CloseHandle(hs);
	return true;
}

bool win_proc_list_read(struct win_proc_list *l)
{
	const char *force = getenv("GTM_PROC_LISTING");
	l->n = 0;
	l->why[0] = '\0';
	if (force && strcmp(force, "toolhelp") == 0)
		snprintf(l->why, sizeof l->why, "GTM_PROC_LISTING=toolhelp");
	else if (list_sysproc(l))
		return l->basic = true;
	l->n = 0; /* a broken chain's entries before the break go */
	l->basic = false;
	return list_toolhelp(l);
}

void win_proc_list_free(struct win_proc_list *l)
{
	free(l->v);
	free(l->buf);
	memset(l, 0, sizeof *l);
}
