/* What the files of the Windows process layer share: ntdll's
 * NtQueryInformationProcess and one process's reads through a handle
 * (win_proc_read.c), the environment reader (proc_environ.c) and the
 * listening sockets (tcp_listeners.c). */
#ifndef GTM_PROC_WIN_H
#define GTM_PROC_WIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <windows.h>

#include "core/snapshot.h"
#include "platform.h"

typedef LONG(NTAPI *win_nt_query_fn)(HANDLE, ULONG, PVOID, ULONG, PULONG);
/* NtQueryInformationProcess from ntdll.dll, looked up once; NULL if absent. */
win_nt_query_fn win_nt_query(void);

/* The drive letters' NT device paths, read once a scan when a mapped file
 * first needs them (26 QueryDosDeviceW calls). */
struct win_dos_map {
	struct win_dos_device dev[26];
	size_t n;
	bool read; /* in this scan */
};

/* A handle with the most of these rights the process grants: *full when it
 * allows reading its memory and regions; NULL when it grants not even the
 * limited right. */
HANDLE win_open_process(uint32_t pid, bool *full);
/* What ps would show but the user: start time, working set. */
void win_read_basic(HANDLE h, struct gtm_process *p);
/* The process's user name from its token into p->user; left as it was when
 * unreadable. */
void win_read_user(HANDLE h, struct gtm_process *p);
/* The detail: image path, and with full rights command line, working
 * folder, DLLs, mapped files and environment (deferred with
 * defer_environ). Never NULL. */
struct gtm_proc_detail *win_read_detail(struct win_dos_map *dos, HANDLE h, bool full, bool defer_environ);

/* The creation time of the process behind h (its start time, FILETIME
 * ticks), 0 when not given. */
uint64_t win_start_time(HANDLE h);

/* The environment of the process behind h (opened with PROCESS_VM_READ and
 * a query right), read from its PEB: a WOW64 process's 32-bit PEB, the one
 * its code reads and changes, else its own. Writes at most PROC_ENVIRON_MAX
 * bytes of NUL-separated UTF-8 entries into out (that many bytes of room)
 * and returns their length; 0 with *denied set when the process refused a
 * read (another user's, a protected one), 0 alone for an empty block. */
size_t win_environ_read(HANDLE h, char *out, bool *denied);

/* The listening TCP sockets of every process (tcp_listeners.c), IPv4 and
 * IPv6, into a new array (*rows, freed by the caller; *n rows). Returns
 * whether both families' tables were read: false when either failed, or
 * kept growing past the tries, or the table's DLL is absent (its rows then
 * are no answer: the caller treats ports as unread, never as none). */
struct win_tcp_listener;
bool win_tcp_listeners_read(struct win_tcp_listener **rows, size_t *n);

#endif
