/* The Windows platform: processes through the Win32 process API (Toolhelp,
 * OpenProcess with limited rights, QueryFullProcessImageNameW, the PEB's
 * command line and environment, EnumProcessModulesEx, VirtualQueryEx +
 * GetMappedFileNameW) and listening ports through GetExtendedTcpTable. What a process refuses
 * (another user's, a protected one) leaves its fields empty and counts it
 * as not inspectable. The GPU source is WDDM's (wddm_source.h: PDH counters,
 * adapters and telemetry behind wddm_adapters.h). */
#ifndef GTM_PLATFORM_H
#define GTM_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform_api.h"

/* A FILETIME (100 ns ticks since 1601) as the start time of a process. */
#define WIN_TICKS_PER_SECOND 10000000ull

/* Turns an NT device path ("\Device\HarddiskVolume3\models\x.gguf") into a
 * drive-letter path ("C:\models\x.gguf") with a table of (device, drive)
 * pairs as QueryDosDeviceW gives them; the result is written into out. A
 * path in the Win32 namespace ("\??\C:\x", "\??\UNC\srv\share\x", as Wine
 * reports every mapped file) needs no table.
 * Returns 0, or -1 when no device of the table is a prefix. */
struct win_dos_device {
	char device[96]; /* "\Device\HarddiskVolume3" */
	char drive[4];   /* "C:" */
};
int win_device_path_to_dos(const char *nt_path, const struct win_dos_device *tab, size_t n, char *out, size_t cap);

/* One row of GetExtendedTcpTable's listening table, reduced to what the
 * join needs. */
struct win_tcp_listener {
	uint32_t pid;
	uint16_t port;
	bool loopback; /* reachable on loopback: 127.0.0.0/8, ::1, or a wildcard (0.0.0.0, ::) */
};
/* Whether a listener's address is reachable on loopback: 127.0.0.0/8 (an
 * IPv4 address in host order), ::1, or the wildcard (0.0.0.0, ::), which
 * accepts loopback connections too, as the Linux side counts it. */
bool win_v4_on_loopback(uint32_t addr);
bool win_v6_on_loopback(const uint8_t addr[16]);
/* The loopback ports of pid among the rows (distinct, in row order), at most
 * cap. Wine reports PID 0 for every listener: such rows join no process. */
int win_ports_of(const struct win_tcp_listener *rows, size_t n, uint32_t pid, uint16_t *ports, int cap);

#endif
