#include "core/format.h"

#include <stdio.h>

char *fmt_bytes_raw(char *buf, size_t n, uint64_t b)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)b;
	int u = 0;

	if (b < 1024) {
		snprintf(buf, n, "%llu B", (unsigned long long)b);
		return buf;
	}
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, n, "%.2f %s", v, units[u]);
	return buf;
}

char *fmt_bytes(char *buf, size_t n, gtm_u64 r)
{
	if (!gtm_u64_ok(r)) {
		snprintf(buf, n, "N/A");
		return buf;
	}
	return fmt_bytes_raw(buf, n, r.v);
}

char *fmt_mib(char *buf, size_t n, uint64_t bytes)
{
	snprintf(buf, n, "%.2f MiB", (double)bytes / (1024.0 * 1024.0));
	return buf;
}

char *fmt_f64(char *buf, size_t n, gtm_f64 r, int decimals, const char *suffix)
{
	if (!gtm_f64_ok(r))
		snprintf(buf, n, "N/A");
	else
		snprintf(buf, n, "%.*f%s", decimals, r.v, suffix ? suffix : "");
	return buf;
}
