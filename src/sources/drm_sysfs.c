#include "sources/drm_sysfs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"

static bool vread(char *buf, size_t cap, const char *fmt, va_list ap)
{
	char path[1024];
	if (vsnprintf(path, sizeof path, fmt, ap) >= (int)sizeof path)
		return false;
	if (sysroot_read(buf, cap, "%s", path) <= 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] != '\0';
}

bool drm_sysfs_str(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool ok = vread(buf, cap, fmt, ap);
	va_end(ap);
	if (!ok && cap)
		buf[0] = '\0';
	return ok;
}

bool drm_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	/* base 10 unless 0x: "08" is eight, never octal */
	int base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
	unsigned long long x = strtoull(s, &end, base);
	if (errno || end == s)
		return false;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end)
		return false;
	*v = x;
	return true;
}

bool drm_sysfs_u64(uint64_t *v, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	bool ok = vread(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return ok && drm_parse_u64(buf, v);
}
