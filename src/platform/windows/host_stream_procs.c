/* The host stream's view of the processes: one Toolhelp listing per line
 * for the names of the PIDs PDH lists (vmwp.exe is told by its image name:
 * PDH's instance names carry no process name), and the parent to wait on. */
#include "host_stream.h"

#include <windows.h>
#include <tlhelp32.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = ((const struct hs_name *)a)->pid, y = ((const struct hs_name *)b)->pid;
	return (x > y) - (x < y);
}

bool hs_names_read(struct hs_names *t)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	PROCESSENTRY32W pe = {.dwSize = sizeof pe};

	t->n = 0;
	if (snap == INVALID_HANDLE_VALUE)
		return false;
	for (BOOL more = Process32FirstW(snap, &pe); more; more = Process32NextW(snap, &pe)) {
		t->v = grow_array(t->v, sizeof *t->v, &t->cap, t->n);
		struct hs_name *x = &t->v[t->n++];
		x->pid = pe.th32ProcessID;
		if (!WideCharToMultiByte(CP_UTF8, 0, pe.szExeFile, -1, x->name, sizeof x->name, NULL, NULL))
			x->name[0] = '\0'; /* longer than a name is kept: unknown, written "?" */
	}
	CloseHandle(snap);
	qsort(t->v, t->n, sizeof *t->v, cmp_pid);
	return true;
}

const char *hs_names_of(const struct hs_names *t, uint32_t pid)
{
	struct hs_name key = {.pid = pid};
	const struct hs_name *f = t->n ? bsearch(&key, t->v, t->n, sizeof key, cmp_pid) : NULL;
	return f ? f->name : NULL;
}

int hs_names_count(const struct hs_names *t, const char *image)
{
	int n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += _stricmp(t->v[i].name, image) == 0;
	return n;
}

void hs_names_free(struct hs_names *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}

static DWORD parent_pid(void)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	PROCESSENTRY32W pe = {.dwSize = sizeof pe};
	DWORD self = GetCurrentProcessId(), parent = 0;

	if (snap == INVALID_HANDLE_VALUE)
		return 0;
	for (BOOL more = Process32FirstW(snap, &pe); more && !parent; more = Process32NextW(snap, &pe))
		if (pe.th32ProcessID == self)
			parent = pe.th32ParentProcessID;
	CloseHandle(snap);
	return parent;
}

static ULONGLONG created(HANDLE h)
{
	FILETIME c, e, k, u;
	return GetProcessTimes(h, &c, &e, &k, &u) ? ((ULONGLONG)c.dwHighDateTime << 32) | c.dwLowDateTime : 0;
}

/* Toolhelp keeps the parent's PID after the parent exits, and Windows may
 * give it to a new process: only a parent older than this process is ours. */
void *hs_parent_open(void)
{
	DWORD pid = parent_pid();
	HANDLE h = pid ? OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid) : NULL;
	ULONGLONG mine = created(GetCurrentProcess()), theirs = h ? created(h) : 0;

	if (h && (!theirs || !mine || theirs > mine)) {
		CloseHandle(h);
		h = NULL;
	}
	return h;
}
