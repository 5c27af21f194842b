/* The few calls whose POSIX form Windows lacks (src/platform/linux/portable.h
 * has the same names over POSIX). Paths are UTF-8 inside gputaskman and
 * UTF-16 at the Windows boundary; files are opened in binary mode. */
#ifndef GTM_PORTABLE_H
#define GTM_PORTABLE_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

typedef uint32_t uid_t; /* Windows names users by SID: the scan fills user, uid stays 0 */

/* open(2) flags with no Windows meaning: a child never inherits our handles
 * (O_NOINHERIT is added by os_open_read), there are no FIFOs to wait on and
 * no controlling terminal. */
#define O_CLOEXEC 0
#define O_NONBLOCK 0
#define O_NOCTTY 0
#define O_DIRECTORY 0
#define O_NOFOLLOW 0

static inline int64_t stat_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtime * 1000000000;
}

int os_open_read(const char *path);
int os_stat(const char *path, struct stat *st);
/* A positional read (ReadFile with an offset): the file position is unused. */
ssize_t os_pread(int fd, void *buf, size_t n, uint64_t off);
static inline void os_clear_nonblock(int fd)
{
	(void)fd;
}
int os_usable_cpus(void);

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
FILE *open_memstream(char **buf, size_t *size);
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

#endif
