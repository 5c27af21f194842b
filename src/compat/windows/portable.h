/* The few calls whose POSIX form Windows lacks (src/compat/linux/portable.h
 * has the same names over POSIX). Paths are UTF-8 inside gputaskman and
 * UTF-16 at the Windows boundary; files are opened in binary mode. */
#ifndef GTM_PORTABLE_H
#define GTM_PORTABLE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

typedef uint32_t uid_t; /* Windows names users by SID: the scan fills user, uid stays 0 */

/* open(2) flags: every open in gputaskman (and its tests) asks for
 * O_CLOEXEC, which on Windows is O_NOINHERIT, and no file it opens is text,
 * so O_BINARY comes with it (else the C runtime turns "\n" into "\r\n").
 * The others have no Windows meaning: there are no FIFOs to wait on and no
 * controlling terminal. */
#define O_CLOEXEC (_O_NOINHERIT | _O_BINARY)
#define O_NONBLOCK 0
#define O_NOCTTY 0
#define O_DIRECTORY 0
#define O_NOFOLLOW 0

static inline int64_t stat_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtime * 1000000000;
}

/* Opens with every sharing mode (a model being read can still be renamed
 * or deleted, as on Linux), folders included, so that fstat says what the
 * path is. */
int os_open_read(const char *path);
/* stat and fstat by the file's handle, so a path and an fd of one file
 * agree: st_dev is the volume serial number, st_ino the file index's low
 * 16 bits (the C runtime's _ino_t; size and mtime complete a cache key),
 * folders S_IFDIR, consoles S_IFCHR, pipes S_IFIFO. The C runtime's own
 * fstat puts the fd number in st_dev and 0 in st_ino. */
int os_stat(const char *path, struct stat *st);
#undef fstat
#define fstat(fd, st) gtm_fstat(fd, st)
int gtm_fstat(int fd, struct stat *st);
/* A positional read (ReadFile with an offset): the file position is unused. */
ssize_t os_pread(int fd, void *buf, size_t n, uint64_t off);
ssize_t os_pwrite(int fd, const void *buf, size_t n, uint64_t off);
/* Read/write, created, shared as os_open_read, binary, not inherited; extra 0 or O_EXCL. */
int os_open_rw(const char *path, int extra);
int os_fdatasync(int fd); /* FlushFileBuffers */
int os_sync_dir(const char *dir); /* FlushFileBuffers on the folder's handle */
/* LockFileEx on one byte far past any end of file: a second writer's lock
 * fails, while reads and writes of the data (Windows locks are mandatory)
 * go on. Held until the fd is closed. */
int os_lock_exclusive(int fd);
/* MoveFileExW with MOVEFILE_REPLACE_EXISTING, which fails while any handle
 * of to is open: *to_fd is closed first and set to -1. When the move fails,
 * to is opened again into *to_fd (read/write, with the writer's lock), so
 * the caller goes on with the file it had. */
int os_rename_replace(const char *from, const char *to, int *to_fd);
/* Calls stop for Ctrl+C, Ctrl+Break and SIGTERM (the C runtime's signal:
 * the console runs it on a thread of its own, so a sleep is not cut short:
 * os_sleep_until, platform_time.h, looks at the flag every 100 ms). */
void os_catch_stop_signals(void (*stop)(int));
/* Text written to a stream in memory (src/compat/linux/portable.h): here
 * a temporary file, deleted when closed, read back by os_memstream_close. */
struct os_memstream {
	FILE *f;
	char *buf;
	size_t len;
};
FILE *os_memstream_open(struct os_memstream *m);
char *os_memstream_close(struct os_memstream *m, size_t *len);
static inline void os_clear_nonblock(int fd)
{
	(void)fd;
}
int os_usable_cpus(void);

/* Every program here is an .exe: the name says nothing of games (see
 * src/compat/linux/portable.h). */
#define OS_EXE_IS_FOREIGN 0

/* Paths of the observed system: "C:\\x", "C:/x" and "\\\\server\\share\\x" are
 * absolute (path_is_dos_absolute), '\\' and '/' both separate. */
#define OS_PATH_SEP '\\'
bool os_path_absolute(const char *p);
const char *os_path_last_sep(const char *p);
bool os_path_has_sep(const char *p);

#include <stdio.h>
#include <time.h>

/* GNU/POSIX functions the Windows C runtime lacks (portable.c). The Windows
 * build includes this header in every file (-include, see meson.build), as
 * a config.h would be, so the layers above compile unchanged. */
char *strndup(const char *s, size_t n);
void *memmem(const void *hay, size_t hn, const void *needle, size_t nn);
void *memrchr(const void *s, int c, size_t n);
char *strcasestr(const char *hay, const char *needle);
/* winsock2.h has its own, needing WSAStartup: ours asks the computer name */
#define gethostname gtm_gethostname
int gtm_gethostname(char *name, int len);
/* mkdir(2) with a mode (ignored: the folder inherits its parent's ACL) and
 * mkdtemp(3), over the C runtime's one-argument _wmkdir. */
#include <direct.h>
#include <io.h>
/* JSON goes to stdout as written, "\n" and all, as on Linux (a snapshot's
 * bytes do not depend on the OS that wrote it). Text mode cost more than the
 * CRs: the C runtime's text-mode write converts through a 2 KB buffer, one
 * WriteFile each, and under Wine each was a wineserver round trip (1,300 for
 * a 630 KB --once --json of 200 processes: 60-80 ms of a 100 ms run). */
static inline void os_stdout_binary(void)
{
	fflush(stdout);
	_setmode(_fileno(stdout), _O_BINARY);
}
#define mkdir(path, mode) gtm_mkdir(path, mode)
int gtm_mkdir(const char *path, int mode);
char *mkdtemp(char *tmpl);
/* setenv(3) over _putenv_s (the C runtime's copy of the environment). */
int setenv(const char *name, const char *value, int overwrite);
#define S_ISSOCK(m) 0
#define S_ISLNK(m) 0
/* Start times are FILETIMEs: "clock ticks" are 100 ns. */
#define _SC_CLK_TCK 2
long sysconf(int name);
static inline struct tm *localtime_r(const time_t *t, struct tm *out)
{
	return localtime_s(out, t) == 0 ? out : NULL;
}
static inline struct tm *gmtime_r(const time_t *t, struct tm *out)
{
	return gmtime_s(out, t) == 0 ? out : NULL;
}

/* UTF-8 <-> UTF-16 at the boundary: malloc'd, NULL on invalid input. */
wchar_t *utf8_to_wide(const char *s);
char *wide_to_utf8(const wchar_t *w, int wlen); /* wlen -1: NUL-terminated */

/* No read-only mapping of a file's first bytes here (src/compat/posix/map_read.h
 * has the Linux and macOS side): callers read the file instead. */
struct os_map {
	const uint8_t *p;
	size_t len;
	int faulted;
};
static inline bool os_map_read(int fd, size_t len, struct os_map *m)
{
	(void)fd;
	(void)len;
	m->p = NULL;
	m->len = 0;
	m->faulted = 0;
	return false;
}
static inline void os_map_release(struct os_map *m)
{
	(void)m;
}

#endif
