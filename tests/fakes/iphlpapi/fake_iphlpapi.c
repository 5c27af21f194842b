/* A test double of iphlpapi's GetExtendedTcpTable, the one entry point
 * gputaskman.exe asks which process listens on which port, for gputaskman.exe
 * under Wine, whose table gives every listener PID 0: the exe takes it from
 * the DLL GTM_IPHLPAPI_DLL names (src/platform/windows/tcp_listeners.c).
 * Only TCP_TABLE_OWNER_PID_LISTENER, AF_INET and AF_INET6, with Windows' size
 * protocol: a buffer too small (or none) gets ERROR_INSUFFICIENT_BUFFER and
 * the size needed. The rows come from GTM_FAKE_TCP_SCENARIO, read at every
 * call (format: tests/fakes/README.md):
 *   listener pid=P addr=127.0.0.1|::1|0.0.0.0|:: port=N   one row
 *   grow N     the first N calls with a buffer find one row more than their
 *              size query did (a server started in between)
 *   grow every every call with a buffer finds the table one row longer than
 *              the call before did, so no size asked for is ever enough
 *   fail       every call answers ERROR_NOT_SUPPORTED
 * Each call is logged to GTM_FAKE_TCP_LOG when set: "call af=A size=S rc=R". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <iphlpapi.h>

#include "scenario_words.h"

#define MAX_ROWS 256

struct row {
	DWORD pid;
	int af;
	unsigned char addr[16]; /* network order: 4 bytes for AF_INET */
	USHORT port;
};

struct scenario {
	struct row rows[MAX_ROWS];
	int n, grow;
	bool grow_every, fail;
};

static LONG grown; /* calls that found the table grown so far */

static void parse_listener(const char *p, struct scenario *s)
{
	char key[32], val[64];
	struct row r = {0};
	bool ok = true;
	while (scenario_next_word(&p, key, sizeof key, val, sizeof val)) {
		if (!strcmp(key, "pid"))
			r.pid = (DWORD)strtoul(val, NULL, 10);
		else if (!strcmp(key, "port"))
			r.port = (USHORT)strtoul(val, NULL, 10);
		else if (!strcmp(key, "addr") && inet_pton(AF_INET, val, r.addr) == 1)
			r.af = AF_INET;
		else if (!strcmp(key, "addr") && inet_pton(AF_INET6, val, r.addr) == 1)
			r.af = AF_INET6;
		else {
			fprintf(stderr, "fake-iphlpapi: bad listener word '%s=%s'\n", key, val);
			ok = false;
		}
	}
	if (ok && r.af && s->n < MAX_ROWS)
		s->rows[s->n++] = r;
}

static void load(struct scenario *s)
{
	char *text = scenario_read_file(getenv("GTM_FAKE_TCP_SCENARIO"));
	char word[32], val[64];

	memset(s, 0, sizeof *s);
	for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		if (!scenario_next_word(&p, word, sizeof word, val, sizeof val))
			continue;
		if (!strcmp(word, "listener"))
			parse_listener(p, s);
		else if (!strcmp(word, "grow") && scenario_next_word(&p, word, sizeof word, val, sizeof val))
			s->grow_every = !strcmp(word, "every"), s->grow = atoi(word);
		else if (!strcmp(word, "fail"))
			s->fail = true;
		else
			fprintf(stderr, "fake-iphlpapi: unknown directive '%s'\n", word);
	}
	free(text);
}

static void log_call(ULONG af, DWORD size, DWORD rc)
{
	const char *path = getenv("GTM_FAKE_TCP_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	fprintf(f, "call af=%lu size=%lu rc=%lu\n", (unsigned long)af, (unsigned long)size, (unsigned long)rc);
	fclose(f);
}

static void fill_v4(const struct scenario *s, int extra, MIB_TCPTABLE_OWNER_PID *t)
{
	DWORD k = 0;
	for (int i = 0; i < s->n; i++) {
		if (s->rows[i].af != AF_INET)
			continue;
		MIB_TCPROW_OWNER_PID *r = &t->table[k++];
		memset(r, 0, sizeof *r);
		r->dwState = MIB_TCP_STATE_LISTEN;
		memcpy(&r->dwLocalAddr, s->rows[i].addr, 4);
		r->dwLocalPort = htons(s->rows[i].port);
		r->dwOwningPid = s->rows[i].pid;
	}
	for (int i = 0; i < extra; i++, k++) /* the row that appeared: PID 0, as Wine's are */
		t->table[k] = (MIB_TCPROW_OWNER_PID){.dwState = MIB_TCP_STATE_LISTEN, .dwLocalPort = htons(1)};
	t->dwNumEntries = k;
}

static void fill_v6(const struct scenario *s, int extra, MIB_TCP6TABLE_OWNER_PID *t)
{
	DWORD k = 0;
	for (int i = 0; i < s->n; i++) {
		if (s->rows[i].af != AF_INET6)
			continue;
		MIB_TCP6ROW_OWNER_PID *r = &t->table[k++];
		memset(r, 0, sizeof *r);
		r->dwState = MIB_TCP_STATE_LISTEN;
		memcpy(r->ucLocalAddr, s->rows[i].addr, 16);
		r->dwLocalPort = htons(s->rows[i].port);
		r->dwOwningPid = s->rows[i].pid;
	}
	for (int i = 0; i < extra; i++, k++)
		t->table[k] = (MIB_TCP6ROW_OWNER_PID){.dwState = MIB_TCP_STATE_LISTEN, .dwLocalPort = htons(1)};
	t->dwNumEntries = k;
}

static DWORD table_size(ULONG af, int rows)
{
	if (af == AF_INET)
		return (DWORD)(offsetof(MIB_TCPTABLE_OWNER_PID, table) + (size_t)(rows ? rows : 1) * sizeof(MIB_TCPROW_OWNER_PID));
	return (DWORD)(offsetof(MIB_TCP6TABLE_OWNER_PID, table) + (size_t)(rows ? rows : 1) * sizeof(MIB_TCP6ROW_OWNER_PID));
}

static DWORD answer(PVOID buf, PDWORD size, ULONG af, TCP_TABLE_CLASS cls)
{
	static struct scenario s;
	load(&s);
	if (s.fail)
		return ERROR_NOT_SUPPORTED;
	if (!size || cls != TCP_TABLE_OWNER_PID_LISTENER || (af != AF_INET && af != AF_INET6))
		return ERROR_INVALID_PARAMETER;
	int rows = 0;
	for (int i = 0; i < s.n; i++)
		rows += s.rows[i].af == (int)af;
	/* a call with a buffer may find the table grown since the size query */
	int extra = !buf ? 0
		    : s.grow_every ? (int)InterlockedIncrement(&grown)
		    : InterlockedCompareExchange(&grown, 0, 0) < s.grow ? (InterlockedIncrement(&grown), 1)
									 : 0;
	DWORD need = table_size(af, rows + extra);
	if (!buf || *size < need) {
		*size = need;
		return ERROR_INSUFFICIENT_BUFFER;
	}
	if (af == AF_INET)
		fill_v4(&s, extra, buf);
	else
		fill_v6(&s, extra, buf);
	return NO_ERROR;
}

__declspec(dllexport) DWORD WINAPI GetExtendedTcpTable(PVOID buf, PDWORD size, BOOL order, ULONG af,
						       TCP_TABLE_CLASS cls, ULONG reserved)
{
	(void)order;
	(void)reserved;
	DWORD asked = size ? *size : 0;
	DWORD rc = answer(buf, size, af, cls);
	log_call(af, asked, rc);
	return rc;
}
