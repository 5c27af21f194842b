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

/* What a listener's local address is, for the port join: exactly the
 * loopback address (127.0.0.1, ::1), the wildcard (0.0.0.0, ::), or any
 * other (an interface's, or 127.0.0.2: the probe asks 127.0.0.1 only). */
enum win_addr_kind {
	WIN_ADDR_OTHER,
	WIN_ADDR_LOOPBACK,
	WIN_ADDR_ANY,
};

/* One row of GetExtendedTcpTable's listening table, reduced to what the
 * join needs. */
struct win_tcp_listener {
	uint32_t pid;
	uint16_t port;
	uint8_t family; /* 4 or 6 */
	uint8_t kind;   /* enum win_addr_kind */
};
/* The kind of an IPv4 address (host order) and of an IPv6 one. */
enum win_addr_kind win_v4_addr_kind(uint32_t addr);
enum win_addr_kind win_v6_addr_kind(const uint8_t addr[16]);
/* The ports among the rows (distinct, in row order, at most cap) at which
 * the probe, asking 127.0.0.1:P and then ::1:P when refused, reaches a
 * socket of pid. On Windows a process may bind 127.0.0.1:P while another
 * holds 0.0.0.0:P (the specific bind wins), and [::]:P is IPv6-only by
 * default, so the socket reached is: the 127.0.0.1:P holder, else the
 * 0.0.0.0:P one; with no IPv4 listener there at all, the ::1:P holder, else
 * the [::]:P one. A slot two PIDs share joins neither: N/A beats a wrong
 * join. Wine reports PID 0 for every listener: such rows join no process. */
int win_ports_of(const struct win_tcp_listener *rows, size_t n, uint32_t pid, uint16_t *ports, int cap);

#endif
