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

bool win_v4_on_loopback(uint32_t addr)
{
	return (addr >> 24) == 127 || addr == 0;
}

bool win_v6_on_loopback(const uint8_t addr[16])
{
	static const uint8_t one[16] = {[15] = 1}, any[16] = {0};
	return memcmp(addr, one, 16) == 0 || memcmp(addr, any, 16) == 0;
}

int win_ports_of(const struct win_tcp_listener *rows, size_t n, uint32_t pid, uint16_t *ports, int cap)
{
	int k = 0;

	if (pid == 0)
		return 0; /* the System Idle Process owns nothing; Wine's rows all say 0 */
	for (size_t i = 0; i < n && k < cap; i++) {
		if (rows[i].pid != pid || !rows[i].loopback)
			continue;
		bool seen = false;
		for (int j = 0; j < k; j++)
			seen = seen || ports[j] == rows[i].port;
		if (!seen)
			ports[k++] = rows[i].port;
	}
	return k;
}
