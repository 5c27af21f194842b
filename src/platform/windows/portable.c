#include "portable.h"

#include <errno.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

wchar_t *utf8_to_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0)
		return NULL;
	wchar_t *w = malloc((size_t)n * sizeof *w);
	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}

char *wide_to_utf8(const wchar_t *w, int wlen)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, wlen, NULL, 0, NULL, NULL);
	if (n < 0 || (n == 0 && wlen != 0))
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	if (n && WideCharToMultiByte(CP_UTF8, 0, w, wlen, s, n, NULL, NULL) != n) {
		free(s);
		return NULL;
	}
	s[n] = '\0'; /* wlen -1 counted the NUL already; a counted string gets one */
	return s;
}

int os_open_read(const char *path)
{
	wchar_t *w = utf8_to_wide(path);
	if (!w) {
		errno = EINVAL;
		return -1;
	}
	int fd = _wopen(w, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
	free(w);
	return fd;
}

int os_stat(const char *path, struct stat *st)
{
	wchar_t *w = utf8_to_wide(path);
	if (!w) {
		errno = EINVAL;
		return -1;
	}
	struct _stat64 s64;
	int r = _wstat64(w, &s64);
	free(w);
	if (r != 0)
		return -1;
	memset(st, 0, sizeof *st);
	st->st_dev = s64.st_dev;
	st->st_ino = s64.st_ino;
	st->st_mode = s64.st_mode;
	st->st_nlink = s64.st_nlink;
	st->st_size = s64.st_size;
	st->st_mtime = s64.st_mtime;
	st->st_atime = s64.st_atime;
	st->st_ctime = s64.st_ctime;
	return 0;
}

ssize_t os_pread(int fd, void *buf, size_t n, uint64_t off)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED ov = {0};
	DWORD got = 0;

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	ov.Offset = (DWORD)off;
	ov.OffsetHigh = (DWORD)(off >> 32);
	if (n > 0x40000000u)
		n = 0x40000000u;
	if (!ReadFile(h, buf, (DWORD)n, &got, &ov))
		return GetLastError() == ERROR_HANDLE_EOF ? 0 : (errno = EIO, -1);
	return (ssize_t)got;
}

int os_usable_cpus(void)
{
	DWORD_PTR proc_mask, sys_mask;
	int n = 0;

	if (!GetProcessAffinityMask(GetCurrentProcess(), &proc_mask, &sys_mask))
		return 1;
	for (; proc_mask; proc_mask &= proc_mask - 1)
		n++;
	return n ? n : 1;
}

char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

void *memmem(const void *hay, size_t hn, const void *needle, size_t nn)
{
	const unsigned char *h = hay;

	if (nn == 0)
		return (void *)hay;
	for (size_t i = 0; nn <= hn && i <= hn - nn; i++)
		if (h[i] == *(const unsigned char *)needle && memcmp(h + i, needle, nn) == 0)
			return (void *)(h + i);
	return NULL;
}

void *memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	while (n--)
		if (p[n] == (unsigned char)c)
			return (void *)(p + n);
	return NULL;
}

char *strcasestr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (_strnicmp(hay, needle, n) == 0)
			return (char *)hay;
	return n ? NULL : (char *)hay;
}

int gtm_gethostname(char *name, int len)
{
	DWORD n = (DWORD)len;
	return GetComputerNameExA(ComputerNameDnsHostname, name, &n) ? 0 : -1;
}

long sysconf(int name)
{
	if (name == _SC_CLK_TCK)
		return 10000000; /* FILETIME ticks */
	errno = EINVAL;
	return -1;
}

/* A memory stream over a temporary file: the text is copied out at fclose
 * only through the caller's own read, so this build reports it unavailable. */
FILE *open_memstream(char **buf, size_t *size)
{
	(void)buf;
	(void)size;
	errno = ENOSYS;
	return NULL;
}
