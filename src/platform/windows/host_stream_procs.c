/* The host stream's view of the processes: one listing per line
 * (win_proc_list.h: SystemProcessInformation, else Toolhelp) for the names
 * of the PIDs PDH lists (vmwp.exe is told by its image name: PDH's instance
 * names carry no process name), and the parent to wait on. */
#include "host_stream.h"

#include <windows.h>
#include <stdio.h>
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
	t->n = 0;
	if (!win_proc_list_read(&t->list))
		return false;
	for (size_t i = 0; i < t->list.n; i++) {
		const struct win_proc *p = &t->list.v[i];
		t->v = grow_array(t->v, sizeof *t->v, &t->cap, t->n);
		struct hs_name *x = &t->v[t->n++];
		x->pid = p->pid;
		/* longer than a name is kept: unknown, written "?" */
		snprintf(x->name, sizeof x->name, "%s", p->name_cut ? "" : p->name);
	}
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
	win_proc_list_free(&t->list);
	free(t->v);
	memset(t, 0, sizeof *t);
}

static DWORD parent_pid(void)
{
	struct win_proc_list l = {0};
	DWORD self = GetCurrentProcessId(), parent = 0;

	win_proc_list_read(&l);
	for (size_t i = 0; i < l.n && !parent; i++)
		if (l.v[i].pid == self)
			parent = l.v[i].ppid;
	win_proc_list_free(&l);
	return parent;
}

static ULONGLONG created(HANDLE h)
{
	FILETIME c, e, k, u;
	return GetProcessTimes(h, &c, &e, &k, &u) ? ((ULONGLONG)c.dwHighDateTime << 32) | c.dwLowDateTime : 0;
}

/* The listing keeps the parent's PID after the parent exits, and Windows may
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
