/* The Windows process scan: one Toolhelp snapshot lists every process (PID,
 * parent, image name); each is then opened with the least rights that tell
 * its start time, working set, image path, user, command line, DLLs and
 * mapped files. A process that refuses to be opened is listed with what
 * Toolhelp gave and counted as not inspectable; nothing is made up. */
#include "platform.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <iphlpapi.h>
#include <psapi.h>
#include <shellapi.h>
#include <tlhelp32.h>
#include <winternl.h>

#include "core/snapshot.h"
#include "core/util.h"
#include "portable.h"

#define MAX_MAPS 8192

struct proc_cache {
	struct win_dos_device dos[26];
	size_t n_dos;
	struct win_tcp_listener *listeners;
	size_t n_listeners;
	bool listeners_read;
	uint32_t *listed; /* the last scan's PIDs, sorted */
	size_t n_listed, cap_listed;
	bool scanned;
	PROCESSENTRY32W *entries; /* this scan's Toolhelp list (kept: no allocation per scan) */
	size_t n_entries, cap_entries;
	uint32_t *wanted_parents; /* the priority PIDs' parents, sorted */
	size_t n_wanted, cap_wanted;
};

struct proc_cache *proc_cache_new(void)
{
	return xcalloc(1, sizeof(struct proc_cache));
}

void proc_cache_free(struct proc_cache *c)
{
	if (!c)
		return;
	free(c->listeners);
	free(c->listed);
	free(c->entries);
	free(c->wanted_parents);
	free(c);
}

/* Forward slashes inside: the layers above split paths on '/', and every
 * Win32 call accepts them. */
/* Paths stay as Windows writes them ("C:\\models\\x.gguf"): the command
 * line names them so, and identification reads both separators. */
static char *path_from_wide(const wchar_t *w, int wlen)
{
	return wide_to_utf8(w, wlen);
}

static void read_dos_devices(struct proc_cache *c)
{
	c->n_dos = 0;
	for (wchar_t d = L'A'; d <= L'Z'; d++) {
		wchar_t drive[3] = {d, L':', 0}, target[256];
		if (!QueryDosDeviceW(drive, target, ARRAY_LEN(target)))
			continue;
		char *t = wide_to_utf8(target, -1);
		if (t && strlen(t) < sizeof c->dos[0].device) {
			strcpy(c->dos[c->n_dos].device, t);
			snprintf(c->dos[c->n_dos].drive, sizeof c->dos[0].drive, "%c:", (char)d);
			c->n_dos++;
		}
		free(t);
	}
}

typedef LONG(NTAPI *nt_query_fn)(HANDLE, ULONG, PVOID, ULONG, PULONG);
#define PROCESS_COMMAND_LINE_INFORMATION 60 /* Windows 8.1+ */

static nt_query_fn nt_query(void)
{
	static nt_query_fn query;
	if (!query) {
		FARPROC f = GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "NtQueryInformationProcess");
		memcpy(&query, &f, sizeof query);
	}
	return query;
}

/* The process's RTL_USER_PROCESS_PARAMETERS, read across from its PEB. */
static bool read_params(HANDLE h, RTL_USER_PROCESS_PARAMETERS *params)
{
	nt_query_fn query = nt_query();
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
	nt_query_fn query = nt_query();
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

/* Loaded DLLs (EnumProcessModulesEx), then files mapped as views
 * (VirtualQueryEx over MEM_MAPPED regions, GetMappedFileNameW's NT device
 * path turned into a drive-letter path). */
static void read_maps(struct proc_cache *c, HANDLE h, struct gtm_proc_detail *d)
{
	size_t cap = 0;
	HMODULE mods[1024];
	DWORD need = 0;
	wchar_t w[MAX_PATH * 2];

	if (EnumProcessModulesEx(h, mods, sizeof mods, &need, LIST_MODULES_ALL)) {
		DWORD n = need / sizeof(HMODULE);
		if (n > ARRAY_LEN(mods))
			n = ARRAY_LEN(mods);
		for (DWORD i = 0; i < n; i++) {
			DWORD k = GetModuleFileNameExW(h, mods[i], w, ARRAY_LEN(w));
			if (k)
				add_map(d, &cap, path_from_wide(w, (int)k));
		}
	}
	MEMORY_BASIC_INFORMATION mbi;
	for (char *a = NULL; VirtualQueryEx(h, a, &mbi, sizeof mbi) == sizeof mbi;) {
		char *next = (char *)mbi.BaseAddress + mbi.RegionSize;
		if (mbi.Type == MEM_MAPPED && mbi.State == MEM_COMMIT && mbi.BaseAddress == mbi.AllocationBase) {
			DWORD k = GetMappedFileNameW(h, mbi.BaseAddress, w, ARRAY_LEN(w));
			char *nt = k ? wide_to_utf8(w, (int)k) : NULL, dos[1024];
			if (nt && win_device_path_to_dos(nt, c->dos, c->n_dos, dos, sizeof dos) == 0)
				add_map(d, &cap, xstrdup(dos));
			free(nt);
		}
		if (next <= a)
			break;
		a = next;
	}
}

static void read_user(HANDLE h, struct gtm_process *p)
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

static uint64_t filetime_ticks(FILETIME ft)
{
	return ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
}

/* What ps shows: start time, working set, user. */
static void read_basics(HANDLE h, struct gtm_process *p)
{
	FILETIME created, exited, kernel, user;
	if (GetProcessTimes(h, &created, &exited, &kernel, &user))
		p->start_time = filetime_ticks(created);
	PROCESS_MEMORY_COUNTERS pmc;
	if (GetProcessMemoryInfo(h, &pmc, sizeof pmc))
		p->rss = gtm_u64_of(pmc.WorkingSetSize, GTM_MEASURED);
	read_user(h, p);
}

/* A row as ps reads it, no detail (details_priority_only's parents). */
static bool inspect_basics(struct gtm_process *p)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, p->pid);
	if (!h)
		return false;
	read_basics(h, p);
	CloseHandle(h);
	return true;
}

/* Fills what an open handle tells; false when the process refused it. */
static bool inspect(struct proc_cache *c, struct gtm_process *p)
{
	/* VirtualQueryEx needs PROCESS_QUERY_INFORMATION (the limited right lists
	 * DLLs but no mapped file: Wine refuses it, as the documentation says);
	 * a process that refuses it may still give the limited one */
	HANDLE h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, p->pid);
	if (!h)
		h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ, FALSE, p->pid);
	bool full = h != NULL;
	if (!h)
		h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, p->pid);
	if (!h)
		return false;
	read_basics(h, p);

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
	if (!d->argv)
		d->argv = xcalloc(1, sizeof *d->argv);
	p->detail = d;
	CloseHandle(h);
	return full && d->argc > 0;
}

static void read_listeners(struct proc_cache *c)
{
	free(c->listeners);
	c->listeners = NULL;
	c->n_listeners = 0;
	size_t cap = 0;
	static const ULONG families[] = {AF_INET, AF_INET6};
	for (size_t f = 0; f < ARRAY_LEN(families); f++) {
		DWORD size = 0;
		if (GetExtendedTcpTable(NULL, &size, FALSE, families[f], TCP_TABLE_OWNER_PID_LISTENER, 0) !=
		    ERROR_INSUFFICIENT_BUFFER)
			continue;
		void *buf = xmalloc(size);
		if (GetExtendedTcpTable(buf, &size, FALSE, families[f], TCP_TABLE_OWNER_PID_LISTENER, 0) == NO_ERROR) {
			if (families[f] == AF_INET) {
				MIB_TCPTABLE_OWNER_PID *t = buf;
				for (DWORD i = 0; i < t->dwNumEntries; i++) {
					c->listeners = grow_array(c->listeners, sizeof *c->listeners, &cap, c->n_listeners);
					c->listeners[c->n_listeners++] = (struct win_tcp_listener){
						.pid = t->table[i].dwOwningPid,
						.port = ntohs((u_short)t->table[i].dwLocalPort),
						.loopback = (ntohl(t->table[i].dwLocalAddr) >> 24) == 127,
					};
				}
			} else {
				MIB_TCP6TABLE_OWNER_PID *t = buf;
				static const UCHAR one[16] = {[15] = 1};
				for (DWORD i = 0; i < t->dwNumEntries; i++) {
					c->listeners = grow_array(c->listeners, sizeof *c->listeners, &cap, c->n_listeners);
					c->listeners[c->n_listeners++] = (struct win_tcp_listener){
						.pid = t->table[i].dwOwningPid,
						.port = ntohs((u_short)t->table[i].dwLocalPort),
						.loopback = memcmp(t->table[i].ucLocalAddr, one, 16) == 0,
					};
				}
			}
		}
		free(buf);
	}
	c->listeners_read = true;
}

int proc_refresh_ports(struct proc_cache *c, struct gtm_process *p)
{
	if (!c->listeners_read)
		read_listeners(c);
	p->n_ports = win_ports_of(c->listeners, c->n_listeners, p->pid, p->ports, (int)ARRAY_LEN(p->ports));
	p->ports_read = true;
	return 0;
}

int proc_refresh_ports_if_older(struct proc_cache *c, struct gtm_process *p, uint64_t max_age_ns)
{
	(void)max_age_ns; /* the table is read once per scan: this is that scan's */
	return proc_refresh_ports(c, p);
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static bool in_sorted(const uint32_t *v, size_t n, uint32_t pid)
{
	return n && bsearch(&pid, v, n, sizeof pid, cmp_pid) != NULL;
}

/* The Toolhelp list, one call; with details_priority_only also the parents
 * of the priority PIDs (their rows come from the list's parent ids, the way
 * Linux takes them from stat). */
static bool list_entries(struct proc_cache *c, const struct proc_scan_opts *o)
{
	HANDLE hs = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	if (hs == INVALID_HANDLE_VALUE)
		return false;
	c->n_entries = 0;
	c->n_wanted = 0;
	PROCESSENTRY32W pe = {.dwSize = sizeof pe};
	for (BOOL more = Process32FirstW(hs, &pe); more; more = Process32NextW(hs, &pe)) {
		if (o && o->only_pid && pe.th32ProcessID != o->only_pid)
			continue;
		c->entries = grow_array(c->entries, sizeof *c->entries, &c->cap_entries, c->n_entries);
		c->entries[c->n_entries++] = pe;
		if (o && o->details_priority_only && in_sorted(o->priority_pids, o->n_priority, pe.th32ProcessID)) {
			c->wanted_parents = grow_array(c->wanted_parents, sizeof *c->wanted_parents, &c->cap_wanted, c->n_wanted);
			c->wanted_parents[c->n_wanted++] = pe.th32ParentProcessID;
		}
	}
	CloseHandle(hs);
	qsort(c->wanted_parents, c->n_wanted, sizeof *c->wanted_parents, cmp_pid);
	return true;
}

static void add_row(struct proc_cache *c, struct gtm_snapshot *snap, const PROCESSENTRY32W *pe, bool detailed,
		    const struct proc_scan_opts *o)
{
	struct gtm_process *p = snapshot_add_process(snap);
	p->pid = pe->th32ProcessID;
	p->ppid = pe->th32ParentProcessID;
	snprintf(p->label, sizeof p->label, "%u", p->pid);
	char *name = wide_to_utf8(pe->szExeFile, -1);
	snprintf(p->name, sizeof p->name, "%s", name ? name : "");
	free(name);
	if (!(detailed ? inspect(c, p) : inspect_basics(p)))
		snap->n_procs_uninspectable++;
	if (!(o && o->ports_on_demand))
		proc_refresh_ports(c, p);
}

/* With details_priority_only (platform_api.h) only the priority PIDs are
 * opened and read fully (command line, DLLs, mapped files: the costly part,
 * a VirtualQueryEx walk), their parents get a row as ps reads it, and the
 * rest are counted; otherwise every process is read. */
int proc_cache_scan(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o)
{
	if (!list_entries(c, o))
		return -1;
	read_dos_devices(c);
	c->listeners_read = false;
	c->n_listed = 0;
	for (size_t i = 0; i < c->n_entries; i++) {
		const PROCESSENTRY32W *pe = &c->entries[i];
		c->listed = grow_array(c->listed, sizeof *c->listed, &c->cap_listed, c->n_listed);
		c->listed[c->n_listed++] = pe->th32ProcessID;
		snap->n_procs_total++;
		bool prio = !(o && o->details_priority_only) || in_sorted(o->priority_pids, o->n_priority, pe->th32ProcessID);
		if (prio || in_sorted(c->wanted_parents, c->n_wanted, pe->th32ProcessID))
			add_row(c, snap, pe, prio, o);
	}
	qsort(c->listed, c->n_listed, sizeof *c->listed, cmp_pid);
	c->scanned = true;
	return 0;
}

bool proc_cache_listed(struct proc_cache *c, uint32_t pid)
{
	return c->n_listed && bsearch(&pid, c->listed, c->n_listed, sizeof pid, cmp_pid) != NULL;
}

bool proc_cache_scanned(const struct proc_cache *c)
{
	return c->scanned;
}

int proc_detail_load(struct proc_cache *c, struct gtm_process *p)
{
	if (p->detail)
		return 0;
	/* read into a copy: a reused PID's memory and user must not reach the row */
	struct gtm_process q = *p;
	bool full = inspect(c, &q);
	if (!q.detail)
		return -1; /* gone, or not ours to open */
	if (p->start_time && q.start_time != p->start_time) {
		proc_detail_unref(q.detail); /* the PID now names another process */
		return -1;
	}
	*p = q;
	return full ? 0 : 1;
}

bool proc_pid_exists(uint32_t pid)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	if (!h)
		return GetLastError() == ERROR_ACCESS_DENIED; /* there, but not ours to open */
	DWORD code = 0;
	bool alive = GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
	CloseHandle(h);
	return alive;
}

void proc_detail_load_environ(struct proc_cache *c, const struct gtm_process *p)
{
	(void)c;
	/* Another process's environment sits in its PEB; reading it is part 2.
	 * Set as empty, so the layers above never wait for it. */
	if (p->detail && !proc_detail_environ(p->detail))
		proc_detail_set_environ(p->detail, "", 0);
}
