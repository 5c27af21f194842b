/* The Windows process scan: one listing of every process (PID, parent,
 * image name, start time, working set: win_proc_list.c, from
 * SystemProcessInformation); a process whose user or detail must be read
 * (win_detail_cache.h) is then opened with the least rights that tell its
 * image path, user, command line, DLLs and mapped files. Where the listing
 * came from Toolhelp (the fallback) each process is opened for its start
 * time and working set too. A process that refuses to be opened is listed
 * with what the listing gave and counted as not inspectable; nothing is
 * made up. */
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
#include "win_detail_cache.h"
#include "win_proc_list.h"
#include "win_scan_plan.h"

#define MAX_MAPS 8192

struct proc_cache {
	struct win_dos_device dos[26];
	size_t n_dos;
	bool dos_read; /* in this scan: 26 QueryDosDeviceW calls, made only for a mapped file */
	struct win_tcp_listener *listeners;
	size_t n_listeners;
	bool listeners_read; /* this scan's table was asked for */
	bool listeners_ok;   /* and both families' tables were read */
	/* the snapshot the current scan fills: proc_refresh_ports is called for
	 * its rows (collector.c) until the next scan, and notes an unread table
	 * there once */
	struct gtm_snapshot *snap;
	struct win_proc_list list; /* the last listing */
	struct win_listed *wl;     /* its PIDs and parents, for win_scan_plan */
	uint8_t *rows;             /* enum win_row per entry */
	uint32_t *listed; /* the last scan's PIDs, sorted */
	size_t n_listed, cap_listed;
	bool scanned;
	struct win_detail_cache details; /* the GPU processes' details, by (PID, start time) */
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
	win_proc_list_free(&c->list);
	free(c->wl);
	free(c->rows);
	win_detail_cache_free(&c->details);
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
	c->dos_read = true;
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
static char *dos_path_of(struct proc_cache *c, const wchar_t *w, DWORD k)
{
	char *nt = k ? wide_to_utf8(w, (int)k) : NULL, dos[1024];
	if (nt && !c->dos_read)
		read_dos_devices(c);
	char *r = nt && win_device_path_to_dos(nt, c->dos, c->n_dos, dos, sizeof dos) == 0 ? xstrdup(dos) : NULL;
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
static char *view_path(struct proc_cache *c, HANDLE h, void *base, bool image)
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
static void read_maps(struct proc_cache *c, HANDLE h, struct gtm_proc_detail *d)
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
static HANDLE open_process(uint32_t pid, bool *full)
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
static void read_basic(HANDLE h, struct gtm_process *p)
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
static struct gtm_proc_detail *read_detail(struct proc_cache *c, HANDLE h, bool full, bool defer_environ)
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

/* Keeps what was just read of p (its detail, if any, and user) by (PID,
 * start time); ok is what the read returns. */
static void keep(struct proc_cache *c, const struct gtm_process *p, bool ok, bool refused, uint64_t now)
{
	struct win_detail_entry e = {.pid = p->pid, .start_time = p->start_time, .detail = p->detail, .ok = ok,
				     .refused = refused, .rss = p->rss.v, .read_ns = now};
	snprintf(e.user, sizeof e.user, "%s", p->user);
	win_detail_cache_put(&c->details, &e);
}

/* The cache's entry for p under want, into p (its detail only where a
 * detail is wanted: a parent's row has none); NULL when a read is due. */
static const struct win_detail_entry *from_cache(struct proc_cache *c, struct gtm_process *p,
						 enum win_detail_want want, uint64_t now)
{
	const struct win_detail_entry *e = win_detail_cache_get(&c->details, p->pid, p->start_time, p->rss.v, now, want);
	if (e) {
		if (e->detail && want != WIN_WANT_USER)
			p->detail = proc_detail_ref(e->detail);
		snprintf(p->user, sizeof p->user, "%s", e->user);
	}
	return e;
}

/* p's detail and user (p's start time and working set read from h): the
 * cache's while (PID, start time) holds and no re-read is due, else read
 * from h and kept. Returns whether the process gave it in full. */
static bool detail_of(struct proc_cache *c, HANDLE h, bool full, bool defer_environ, struct gtm_process *p)
{
	uint64_t now = now_monotonic_ns();
	const struct win_detail_entry *e = from_cache(c, p, WIN_WANT_DETAIL, now);

	if (e)
		return e->ok;
	read_user(h, p);
	p->detail = read_detail(c, h, full, defer_environ);
	bool ok = full && p->detail->argc > 0;
	keep(c, p, ok, false, now);
	return ok;
}

/* Fills what an open handle tells, the detail too when asked; false when
 * the process refused it (or, with detail, its memory). The Toolhelp
 * fallback's way, and proc_detail_load's. */
static bool inspect(struct proc_cache *c, struct gtm_process *p, bool detail, bool defer_environ)
{
	bool full, ok = true;
	HANDLE h = open_process(p->pid, &full);
	if (!h)
		return false;
	read_basic(h, p);
	if (detail)
		ok = detail_of(c, h, full, defer_environ, p);
	else
		read_user(h, p);
	CloseHandle(h);
	return ok;
}

/* inspect() for a row whose start time and working set the listing gave:
 * the cache's user and detail while they hold, else the process opened to
 * read them; a refusal is kept too, so neither is asked again until due.
 * The one open handle is checked against the listing's start time: the
 * PID may name a newer process by then. */
static bool inspect_listed(struct proc_cache *c, struct gtm_process *p, bool detail, bool defer_environ)
{
	uint64_t now = now_monotonic_ns();
	const struct win_detail_entry *e =
		from_cache(c, p, detail ? WIN_WANT_DETAIL_OR_REFUSAL : WIN_WANT_USER, now);
	if (e)
		return e->ok;
	bool full;
	HANDLE h = open_process(p->pid, &full);
	if (!h) {
		keep(c, p, false, true, now);
		return false;
	}
	bool ok = win_start_time(h) == p->start_time;
	if (ok) {
		read_user(h, p);
		if (detail)
			p->detail = read_detail(c, h, full, defer_environ);
		ok = !detail || (full && p->detail->argc > 0);
		keep(c, p, ok, false, now);
	}
	CloseHandle(h);
	return ok;
}

static void read_listeners(struct proc_cache *c)
{
	free(c->listeners);
	c->listeners_ok = win_tcp_listeners_read(&c->listeners, &c->n_listeners);
	c->listeners_read = true;
	if (!c->listeners_ok && c->snap)
		snapshot_add_note(c->snap, "ports: the listening TCP table (GetExtendedTcpTable) cannot be read: "
					   "listening ports are N/A, and no local API is probed");
}

/* An unread table leaves the row as it was: a row of this scan (nothing is
 * kept between scans) has ports_read false, JSON null; "no ports" would be
 * a reading nobody made. */
int proc_refresh_ports(struct proc_cache *c, struct gtm_process *p)
{
	if (!c->listeners_read)
		read_listeners(c);
	if (!c->listeners_ok)
		return -1;
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

/* The listing into the cache's arrays; false when it fails. A listing
 * from Toolhelp says so in a note: each row then costs four calls more. */
static bool list_processes(struct proc_cache *c, struct gtm_snapshot *snap)
{
	struct win_proc_list *l = &c->list;
	if (!win_proc_list_read(l))
		return false;
	if (!l->basic)
		snapshot_add_note(snap, "processes listed with Toolhelp (%s)", l->why);
	size_t room = l->n ? l->n : 1;
	c->wl = xrealloc(c->wl, room * sizeof *c->wl);
	c->rows = xrealloc(c->rows, room);
	for (size_t i = 0; i < l->n; i++)
		c->wl[i] = (struct win_listed){l->v[i].pid, l->v[i].ppid};
	return true;
}

static void add_row(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o,
		    const struct win_proc *lp, bool full)
{
	struct gtm_process *p = snapshot_add_process(snap);
	bool defer = o && o->defer_environ, ok;
	p->pid = lp->pid;
	p->ppid = lp->ppid;
	snprintf(p->label, sizeof p->label, "%u", p->pid);
	snprintf(p->name, sizeof p->name, "%s", lp->name);
	if (c->list.basic) {
		p->start_time = lp->start_time;
		/* a live process never has an empty working set: 0 is what Wine
		 * leaves when it cannot read one (and the Idle process's) */
		p->rss = lp->rss ? gtm_u64_of(lp->rss, GTM_MEASURED) : GTM_U64_NA;
		ok = inspect_listed(c, p, full, defer);
	} else {
		ok = inspect(c, p, full, defer);
	}
	if (!ok)
		snap->n_procs_uninspectable++;
	if (!(o && o->ports_on_demand))
		proc_refresh_ports(c, p);
}

/* One listing; each process then read as win_scan_plan says (with
 * details_priority_only only the GPU users in full, their parents for what
 * ps shows, the rest only counted: opening a process is the cost of a
 * refresh). What was read is kept by (PID, start time) between scans
 * (win_detail_cache.h); with the listing's start times a scan opens only
 * the processes whose entry is missing or due, with Toolhelp's it opens
 * every process it reads, a handle being its only way to a start time. The budget
 * is not applied: a scan cut short at the same point each refresh would
 * leave the processes late in the listing without details (with `--all`);
 * priority_only and the detail cache are what keep a refresh cheap. */
int proc_cache_scan(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o)
{
	if (!list_processes(c, snap))
		return -1;
	c->dos_read = false; /* drives may be mapped since: read again when a mapped file needs them */
	c->listeners_read = false;
	c->snap = snap;
	c->n_listed = 0;
	win_scan_plan(c->wl, c->list.n, o, c->rows);
	for (size_t i = 0; i < c->list.n; i++) {
		if (c->rows[i] == WIN_ROW_SKIP)
			continue;
		c->listed = grow_array(c->listed, sizeof *c->listed, &c->cap_listed, c->n_listed);
		c->listed[c->n_listed++] = c->wl[i].pid;
		snap->n_procs_total++;
		if (c->rows[i] == WIN_ROW_COUNT)
			continue;
		add_row(c, snap, o, &c->list.v[i], c->rows[i] == WIN_ROW_FULL);
	}
	qsort(c->listed, c->n_listed, sizeof *c->listed, cmp_pid);
	win_detail_cache_end_scan(&c->details); /* what this scan did not list is dropped */
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
	bool full = inspect(c, &q, true, true);
	if (!q.detail)
		return -1; /* gone, or not ours to open */
	if (p->start_time && q.start_time != p->start_time) {
		proc_detail_unref(q.detail); /* the PID now names another process */
		return -1;
	}
	*p = q;
	return full ? 0 : 1;
}

/* FILETIME's epoch, 1601-01-01, is 11644473600 s before Unix's. Never
 * /proc/stat: under Wine, Z: is the Linux root and its btime is Linux's. */
int64_t proc_start_epoch_s(void)
{
	return -11644473600LL;
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
