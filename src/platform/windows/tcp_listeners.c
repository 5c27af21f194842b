/* The listening TCP sockets and their owners: GetExtendedTcpTable's
 * TCP_TABLE_OWNER_PID_LISTENER tables (IPv4 and IPv6), reduced to the rows
 * the port join needs (win_ports_of). */
#include "platform.h"

#include <stdlib.h>
#include <string.h>
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <iphlpapi.h>

#include "core/util.h"
#include "proc_win.h"
#include "win_seam.h"

typedef DWORD(WINAPI *tcp_table_fn)(PVOID, PDWORD, BOOL, ULONG, TCP_TABLE_CLASS, ULONG);

/* A row or two more may appear between the size query and the fill (a
 * server starting): the size protocol is asked again, a few times only. */
#define TABLE_TRIES 4

/* GTM_IPHLPAPI_DLL (win_seam.h) names a DLL whose GetExtendedTcpTable
 * stands in for iphlpapi's: Wine's table gives every listener PID 0
 * (tests/fakes/iphlpapi). Without the variable it does not exist. Looked up
 * once, kept loaded. */
static tcp_table_fn table_fn(void)
{
	static tcp_table_fn fn;
	static bool tried;
	bool named;

	if (tried)
		return fn;
	tried = true;
	fn = GetExtendedTcpTable;
	HMODULE dll = win_seam_dll(L"GTM_IPHLPAPI_DLL", &named);
	if (named) {
		FARPROC p = dll ? GetProcAddress(dll, "GetExtendedTcpTable") : NULL;
		/* absent: no table at all, never Windows' own in its place */
		fn = NULL;
		memcpy(&fn, &p, sizeof fn);
	}
	return fn;
}

/* One family's table, read with the size protocol; NULL when it fails. The
 * size it was read into is in *size: the buffer's, whatever the call wrote
 * back on success, so the rows are never read past what was allocated. */
static void *read_table(tcp_table_fn fn, ULONG family, DWORD *size)
{
	void *buf = NULL;
	DWORD alloc = 0;
	*size = 0;
	for (int i = 0; i < TABLE_TRIES; i++) {
		DWORD rc = fn(buf, size, FALSE, family, TCP_TABLE_OWNER_PID_LISTENER, 0);
		if (rc == NO_ERROR && buf) {
			*size = alloc;
			return buf;
		}
		if (rc != ERROR_INSUFFICIENT_BUFFER || *size == 0)
			break;
		free(buf);
		alloc = *size;
		buf = xmalloc(alloc);
	}
	free(buf);
	return NULL;
}

/* dwNumEntries rows, but never more than the bytes the table was read into. */
static DWORD rows_in(DWORD entries, DWORD size, size_t head, size_t row)
{
	size_t room = size > head ? (size - head) / row : 0;
	return entries < room ? entries : (DWORD)room;
}

static void add_row(struct win_tcp_listener **rows, size_t *n, size_t *cap, DWORD pid, DWORD port, uint8_t family,
		    enum win_addr_kind kind)
{
	*rows = grow_array(*rows, sizeof **rows, cap, *n);
	(*rows)[(*n)++] = (struct win_tcp_listener){
		.pid = pid,
		.port = ntohs((u_short)port), /* the low 16 bits, in network order */
		.family = family,
		.kind = (uint8_t)kind,
	};
}

static void add_table(ULONG family, const void *buf, DWORD size, struct win_tcp_listener **rows, size_t *n,
		      size_t *cap)
{
	if (family == AF_INET) {
		const MIB_TCPTABLE_OWNER_PID *t = buf;
		DWORD k = rows_in(t->dwNumEntries, size, offsetof(MIB_TCPTABLE_OWNER_PID, table), sizeof t->table[0]);
		for (DWORD i = 0; i < k; i++)
			add_row(rows, n, cap, t->table[i].dwOwningPid, t->table[i].dwLocalPort, 4,
				win_v4_addr_kind(ntohl(t->table[i].dwLocalAddr)));
		return;
	}
	const MIB_TCP6TABLE_OWNER_PID *t = buf;
	DWORD k = rows_in(t->dwNumEntries, size, offsetof(MIB_TCP6TABLE_OWNER_PID, table), sizeof t->table[0]);
	for (DWORD i = 0; i < k; i++)
		add_row(rows, n, cap, t->table[i].dwOwningPid, t->table[i].dwLocalPort, 6,
			win_v6_addr_kind(t->table[i].ucLocalAddr));
}

bool win_tcp_listeners_read(struct win_tcp_listener **rows, size_t *n)
{
	static const ULONG families[] = {AF_INET, AF_INET6};
	tcp_table_fn fn = table_fn();
	size_t cap = 0;

	*rows = NULL;
	*n = 0;
	/* one family unread would make the join wrong, not short: a port whose
	 * IPv4 listener is unseen is joined to its [::] holder */
	for (size_t f = 0; fn && f < ARRAY_LEN(families); f++) {
		DWORD size;
		void *buf = read_table(fn, families[f], &size);
		bool ok = buf && size >= sizeof(DWORD);
		if (ok)
			add_table(families[f], buf, size, rows, n, &cap);
		free(buf);
		if (!ok)
			return false;
	}
	return fn != NULL;
}
