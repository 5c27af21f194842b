#include "portable.h"

#include <errno.h>
#include <signal.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "core/util.h"

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

/* errno for the last Win32 error of an open or a stat. */
static int errno_of_last_error(void)
{
	switch (GetLastError()) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		return ENOENT;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
		return EACCES;
	default:
		return EIO;
	}
}

/* CreateFileW with every sharing mode, folders allowed; INVALID_HANDLE_VALUE and errno on failure. */
static HANDLE open_handle(const char *path, DWORD access, DWORD disposition)
{
	wchar_t *w = utf8_to_wide(path);
	if (!w) {
		errno = EINVAL;
		return INVALID_HANDLE_VALUE;
	}
	HANDLE h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, disposition,
			       FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE)
		errno = errno_of_last_error();
	free(w);
	return h;
}

static int fd_of_handle(HANDLE h, int crt_flags)
{
	if (h == INVALID_HANDLE_VALUE)
		return -1;
	int fd = _open_osfhandle((intptr_t)h, crt_flags | _O_BINARY | _O_NOINHERIT);
	if (fd < 0)
		CloseHandle(h);
	return fd;
}

int os_open_read(const char *path)
{
	return fd_of_handle(open_handle(path, GENERIC_READ, OPEN_EXISTING), _O_RDONLY);
}

static time_t unix_time(FILETIME ft)
{
	uint64_t t = (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime;
	return (time_t)(t / 10000000ull) - (time_t)11644473600ll; /* 1601 -> 1970 */
}

static int stat_of_handle(HANDLE h, struct stat *st)
{
	BY_HANDLE_FILE_INFORMATION fi;

	memset(st, 0, sizeof *st);
	switch (GetFileType(h)) {
	case FILE_TYPE_CHAR:
		st->st_mode = _S_IFCHR;
		return 0;
	case FILE_TYPE_PIPE:
		st->st_mode = _S_IFIFO;
		return 0;
	default:
		break;
	}
	if (!GetFileInformationByHandle(h, &fi)) {
		errno = errno_of_last_error();
		return -1;
	}
	bool dir = fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY;
	bool ro = fi.dwFileAttributes & FILE_ATTRIBUTE_READONLY;
	st->st_mode = (unsigned short)(dir ? _S_IFDIR | 0755 : _S_IFREG | (ro ? 0444 : 0644));
	st->st_dev = fi.dwVolumeSerialNumber;
	st->st_ino = (_ino_t)fi.nFileIndexLow;
	st->st_nlink = (short)fi.nNumberOfLinks;
	st->st_size = (int64_t)((uint64_t)fi.nFileSizeHigh << 32 | fi.nFileSizeLow);
	st->st_mtime = unix_time(fi.ftLastWriteTime);
	st->st_atime = unix_time(fi.ftLastAccessTime);
	st->st_ctime = unix_time(fi.ftCreationTime);
	return 0;
}

int os_stat(const char *path, struct stat *st)
{
	HANDLE h = open_handle(path, FILE_READ_ATTRIBUTES, OPEN_EXISTING);
	if (h == INVALID_HANDLE_VALUE)
		return -1;
	int rc = stat_of_handle(h, st);
	CloseHandle(h);
	return rc;
}

int gtm_fstat(int fd, struct stat *st)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	return stat_of_handle(h, st);
}

/* The fd's Windows handle with an OVERLAPPED at off; NULL (errno EBADF) for a bad fd. */
static HANDLE handle_at(int fd, uint64_t off, OVERLAPPED *ov)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	memset(ov, 0, sizeof *ov);
	ov->Offset = (DWORD)off;
	ov->OffsetHigh = (DWORD)(off >> 32);
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return NULL;
	}
	return h;
}

/* One positional ReadFile or WriteFile of at most 1 GiB. */
static ssize_t rw_at(int fd, void *rbuf, const void *wbuf, size_t n, uint64_t off)
{
	OVERLAPPED ov;
	HANDLE h = handle_at(fd, off, &ov);
	DWORD done = 0;

	if (!h)
		return -1;
	if (n > 0x40000000u)
		n = 0x40000000u;
	if (rbuf && !ReadFile(h, rbuf, (DWORD)n, &done, &ov))
		return GetLastError() == ERROR_HANDLE_EOF ? 0 : (errno = EIO, -1);
	if (!rbuf && !WriteFile(h, wbuf, (DWORD)n, &done, &ov)) {
		errno = GetLastError() == ERROR_DISK_FULL ? ENOSPC : EIO;
		return -1;
	}
	return (ssize_t)done;
}

ssize_t os_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return rw_at(fd, buf, NULL, n, off);
}

ssize_t os_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
	return rw_at(fd, NULL, buf, n, off);
}

int os_open_rw(const char *path, int extra)
{
	HANDLE h = open_handle(path, GENERIC_READ | GENERIC_WRITE, extra & O_EXCL ? CREATE_NEW : OPEN_ALWAYS);
	return fd_of_handle(h, _O_RDWR);
}

int os_fdatasync(int fd)
{
	OVERLAPPED ov;
	HANDLE h = handle_at(fd, 0, &ov);
	if (!h)
		return -1;
	return FlushFileBuffers(h) ? 0 : (errno = EIO, -1);
}

int os_sync_dir(const char *dir)
{
	wchar_t *w = utf8_to_wide(dir);
	if (!w)
		return -1;
	HANDLE h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return -1;
	int rc = FlushFileBuffers(h) ? 0 : -1;
	CloseHandle(h);
	return rc;
}

int os_lock_exclusive(int fd)
{
	OVERLAPPED ov;
	HANDLE h = handle_at(fd, 1ull << 62, &ov);
	if (!h)
		return -1;
	if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov)) {
		errno = EWOULDBLOCK;
		return -1;
	}
	return 0;
}

int os_rename_replace(const char *from, const char *to, int *to_fd)
{
	wchar_t *wf = utf8_to_wide(from), *wt = utf8_to_wide(to);
	int rc = -1, e = EINVAL;

	if (wf && wt) {
		if (*to_fd >= 0)
			close(*to_fd);
		*to_fd = -1;
		rc = MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING) ? 0 : -1;
		e = rc ? errno_of_last_error() : 0;
		if (rc && (*to_fd = os_open_rw(to, 0)) >= 0 && os_lock_exclusive(*to_fd) != 0) {
			close(*to_fd);
			*to_fd = -1;
		}
	}
	free(wf);
	free(wt);
	errno = e;
	return rc;
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

/* The C runtime's tmpfile() creates its file in the root of the current
 * drive, which a user often may not write: this one is in %TEMP%, opened
 * "D" (deleted at its last close) and "T" (kept in the cache if it can). */
FILE *os_memstream_open(struct os_memstream *m)
{
	wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 1];

	m->f = NULL;
	m->buf = NULL;
	m->len = 0;
	DWORD n = GetTempPathW(MAX_PATH + 1, dir);
	if (n == 0 || n > MAX_PATH || !GetTempFileNameW(dir, L"gtm", 0, name))
		return NULL;
	m->f = _wfopen(name, L"w+bTD");
	if (!m->f)
		DeleteFileW(name);
	return m->f;
}

char *os_memstream_close(struct os_memstream *m, size_t *len)
{
	FILE *f = m->f;
	int64_t n;
	char *buf = NULL;

	m->f = NULL;
	if (fflush(f) != 0 || ferror(f) || (n = _ftelli64(f)) < 0 || (uint64_t)n >= SIZE_MAX ||
	    fseek(f, 0, SEEK_SET) != 0 || !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

bool os_path_absolute(const char *p)
{
	return path_is_dos_absolute(p);
}

const char *os_path_last_sep(const char *p)
{
	const char *last = NULL;
	for (; *p; p++)
		if (*p == '\\' || *p == '/')
			last = p;
	return last;
}

bool os_path_has_sep(const char *p)
{
	return strpbrk(p, "\\/") != NULL;
}

void os_catch_stop_signals(void (*stop)(int))
{
	signal(SIGINT, stop);
	signal(SIGBREAK, stop);
	signal(SIGTERM, stop);
}

int gtm_mkdir(const char *path, int mode)
{
	(void)mode;
	wchar_t *w = utf8_to_wide(path);
	if (!w) {
		errno = EINVAL;
		return -1;
	}
	int rc = _wmkdir(w);
	free(w);
	return rc;
}

char *mkdtemp(char *tmpl)
{
	size_t n = strlen(tmpl);
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";

	if (n < 6 || strcmp(tmpl + n - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return NULL;
	}
	for (int attempt = 0; attempt < 100; attempt++) {
		LARGE_INTEGER t;
		QueryPerformanceCounter(&t);
		uint64_t r = (uint64_t)t.QuadPart * 6364136223846793005ull + GetCurrentProcessId() + (uint64_t)attempt;
		for (int i = 0; i < 6; i++, r /= 36)
			tmpl[n - 6 + i] = digits[r % 36];
		if (gtm_mkdir(tmpl, 0700) == 0)
			return tmpl;
		if (errno != EEXIST)
			return NULL;
	}
	errno = EEXIST;
	return NULL;
}

int setenv(const char *name, const char *value, int overwrite)
{
	if (!overwrite && getenv(name))
		return 0;
	return _putenv_s(name, value) == 0 ? 0 : (errno = EINVAL, -1);
}
