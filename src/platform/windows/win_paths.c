/* The pure parts of the Windows platform: what Wine cannot show through real
 * processes is tested on strings and rows (tests/windows/test_win_paths.c). */
#include "platform.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"

int win_device_path_to_dos(const char *nt_path, const struct win_dos_device *tab, size_t n, char *out, size_t cap)
{
	/* the Win32 namespace: "\??\C:\x" is C:\x, "\??\UNC\srv\share" is \\srv\share
	 * (Wine names every mapped file so) */
	if (strncmp(nt_path, "\\??\\", 4) == 0) {
		const char *rest = nt_path + 4;
		int k = strncmp(rest, "UNC\\", 4) == 0 ? snprintf(out, cap, "\\\\%s", rest + 4)
							: snprintf(out, cap, "%s", rest);
		return k >= 0 && (size_t)k < cap && path_is_dos_absolute(out) ? 0 : -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(tab[i].device);
		/* the device must end at a separator: HarddiskVolume1 is no prefix of HarddiskVolume12\x */
		if (k && strncmp(nt_path, tab[i].device, k) == 0 && (nt_path[k] == '\\' || nt_path[k] == '\0')) {
			if ((size_t)snprintf(out, cap, "%s%s", tab[i].drive, nt_path + k) >= cap)
				return -1;
			return 0;
		}
	}
	return -1;
}

enum win_addr_kind win_v4_addr_kind(uint32_t addr)
{
	return addr == 0x7F000001u ? WIN_ADDR_LOOPBACK : addr == 0 ? WIN_ADDR_ANY : WIN_ADDR_OTHER;
}

enum win_addr_kind win_v6_addr_kind(const uint8_t addr[16])
{
	static const uint8_t one[16] = {[15] = 1}, any[16] = {0};
	return memcmp(addr, one, 16) == 0 ? WIN_ADDR_LOOPBACK : memcmp(addr, any, 16) == 0 ? WIN_ADDR_ANY : WIN_ADDR_OTHER;
}

#define HELD_BY_NONE (-1)
#define HELD_BY_TWO (-2)

/* The holder of (family, kind, port): its PID (0 too: an owner Wine does
 * not tell still takes the connection), HELD_BY_NONE, or HELD_BY_TWO when
 * two PIDs do (a socket shared with a child, SO_REUSEADDR). */
static int64_t holder(const struct win_tcp_listener *rows, size_t n, uint8_t family, uint8_t kind, uint16_t port)
{
	int64_t pid = HELD_BY_NONE;
	for (size_t i = 0; i < n; i++) {
		const struct win_tcp_listener *r = &rows[i];
		if (r->family != family || r->kind != kind || r->port != port)
			continue;
		if (pid != HELD_BY_NONE && pid != r->pid)
			return HELD_BY_TWO;
		pid = r->pid;
	}
	return pid;
}

/* The PID whose socket a connection to 127.0.0.1:port reaches, else (none
 * listens for IPv4 there) the one ::1:port reaches; negative when none or
 * two. */
static int64_t reached(const struct win_tcp_listener *rows, size_t n, uint16_t port)
{
	int64_t pid = holder(rows, n, 4, WIN_ADDR_LOOPBACK, port);
	if (pid == HELD_BY_NONE)
		pid = holder(rows, n, 4, WIN_ADDR_ANY, port);
	if (pid == HELD_BY_NONE)
		pid = holder(rows, n, 6, WIN_ADDR_LOOPBACK, port);
	if (pid == HELD_BY_NONE)
		pid = holder(rows, n, 6, WIN_ADDR_ANY, port);
	return pid;
}

int win_ports_of(const struct win_tcp_listener *rows, size_t n, uint32_t pid, uint16_t *ports, int cap)
{
	int k = 0;

	if (pid == 0)
		return 0; /* the System Idle Process owns nothing; Wine's rows all say 0 */
	for (size_t i = 0; i < n && k < cap; i++) {
		if (rows[i].pid != pid || rows[i].kind == WIN_ADDR_OTHER)
			continue;
		bool seen = false;
		for (int j = 0; j < k; j++)
			seen = seen || ports[j] == rows[i].port;
		if (!seen && reached(rows, n, rows[i].port) == (int64_t)pid)
			ports[k++] = rows[i].port;
	}
	return k;
}
