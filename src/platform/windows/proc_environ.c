/* Another process's environment, read across from its PEB:
 * NtQueryInformationProcess gives the PEB (ProcessWow64Information the
 * 32-bit one of a WOW64 process, ProcessBasicInformation else), the PEB
 * its RTL_USER_PROCESS_PARAMETERS, those the Environment block and its
 * EnvironmentSize; ReadProcessMemory reads each, bounded, and win_env.c
 * turns the UTF-16 block into the entries Linux reads from environ. A
 * refused read leaves the environment empty: never guessed. */
#include <stdlib.h>
#include <string.h>
#include <winsock2.h>
#include <windows.h>
#include <winternl.h>

#include "core/snapshot.h"
#include "core/util.h"
#include "platform.h"
#include "proc_win.h"
#include "win_env.h"

/* PROCESSINFOCLASS 26: the 32-bit PEB's address of a WOW64 process, 0 for a
 * 64-bit one (winternl.h names only some classes). */
#define PROCESS_WOW64_INFORMATION 26

static bool read_remote(HANDLE h, uint64_t addr, void *buf, size_t n)
{
	SIZE_T got = 0;
	return ReadProcessMemory(h, (LPCVOID)(uintptr_t)addr, buf, n, &got) && got == n;
}

/* The PEB the process's own code uses, and its layout. */
static bool peb_of(HANDLE h, uint64_t *peb, const struct win_peb_layout **layout)
{
	win_nt_query_fn query = win_nt_query();
	ULONG_PTR peb32 = 0;
	PROCESS_BASIC_INFORMATION pbi;

	if (!query)
		return false;
	if (query(h, PROCESS_WOW64_INFORMATION, &peb32, sizeof peb32, NULL) >= 0 && peb32) {
		*peb = peb32;
		*layout = &win_peb_x86;
		return true;
	}
	if (query(h, ProcessBasicInformation, &pbi, sizeof pbi, NULL) < 0 || !pbi.PebBaseAddress)
		return false;
	*peb = (uint64_t)(uintptr_t)pbi.PebBaseAddress;
	*layout = &win_peb_x64;
	return true;
}

/* How many bytes of the block to read: EnvironmentSize where the process's
 * Windows sets it, never past the end of the memory region the block lies
 * in (a block without a size ends at its empty entry, somewhere inside),
 * and at most the raw bound. 0 when neither is known. */
static size_t block_bytes(HANDLE h, uint64_t env, uint64_t size)
{
	MEMORY_BASIC_INFORMATION mbi;
	uint64_t n = size;

	if (VirtualQueryEx(h, (LPCVOID)(uintptr_t)env, &mbi, sizeof mbi) == sizeof mbi && mbi.State == MEM_COMMIT) {
		uint64_t end = (uint64_t)(uintptr_t)mbi.BaseAddress + mbi.RegionSize;
		uint64_t left = end > env ? end - env : 0;
		n = n && n < left ? n : left;
	}
	return n < WIN_ENV_RAW_MAX(PROC_ENVIRON_MAX) ? (size_t)n : WIN_ENV_RAW_MAX(PROC_ENVIRON_MAX);
}

size_t win_environ_read(HANDLE h, char *out, bool *denied)
{
	const struct win_peb_layout *l;
	uint8_t peb[64], params[0x400];
	uint64_t at, env, size;

	_Static_assert(sizeof peb >= 0x28 && sizeof params >= 0x3F8, "room for the PEB's and the parameters' fields");
	*denied = !peb_of(h, &at, &l) || !read_remote(h, at, peb, win_peb_bytes(l)) ||
		  !win_peb_params(peb, win_peb_bytes(l), l, &at) || !read_remote(h, at, params, win_params_bytes(l)) ||
		  !win_params_environment(params, win_params_bytes(l), l, &env, &size);
	if (*denied)
		return 0;
	size_t n = block_bytes(h, env, size);
	uint8_t *blk = n ? xmalloc(n) : NULL;
	SIZE_T got = 0;
	/* a block cut short by an unreadable page still gives its whole entries */
	if (n && !ReadProcessMemory(h, (LPCVOID)(uintptr_t)env, blk, n, &got) && got == 0)
		*denied = true;
	size_t len = *denied ? 0 : win_environ_to_utf8(blk, got, out, PROC_ENVIRON_MAX);
	free(blk);
	return len;
}

void proc_detail_load_environ(struct proc_cache *c, const struct gtm_process *p)
{
	struct gtm_proc_detail *d = p ? p->detail : NULL;
	(void)c;

	if (!d || !d->environ_deferred || proc_detail_environ(d) || !p->pid)
		return;
	HANDLE h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, p->pid);
	if (!h)
		h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ, FALSE, p->pid);
	char *buf = xmalloc(PROC_ENVIRON_MAX);
	size_t n = 0;
	bool denied = true;
	/* a handle holds one process: it is the row's when it started when the
	 * row's did (a reused PID names another), and stays so while read */
	if (h && win_start_time(h) == p->start_time)
		n = win_environ_read(h, buf, &denied);
	if (h)
		CloseHandle(h);
	proc_detail_set_environ(d, buf, denied ? 0 : n);
	free(buf);
}
