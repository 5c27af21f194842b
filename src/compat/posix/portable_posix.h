/* The calls of every OS's portable.h that Linux and macOS both make with
 * plain POSIX (src/compat/windows/portable.h has the same names over the
 * Windows API). Included by src/compat/linux/portable.h and
 * src/compat/darwin/portable.h, which add what differs between the two. */
#ifndef GTM_PORTABLE_POSIX_H
#define GTM_PORTABLE_POSIX_H

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "map_read.h"

/* stdout takes bytes as written (Windows's C runtime turns "\n" into
 * "\r\n" unless told): nothing to do here. */
static inline void os_stdout_binary(void)
{
}

/* Opens a path (UTF-8) for reading: close-on-exec, never waiting on a FIFO,
 * never becoming our terminal. */
static inline int os_open_read(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

static inline int os_stat(const char *path, struct stat *st)
{
	return stat(path, st);
}

static inline ssize_t os_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off);
}

static inline ssize_t os_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
	return pwrite(fd, buf, n, (off_t)off);
}

/* Opens a path (UTF-8) for reading and writing, creating it (mode 0600):
 * extra is 0 or O_EXCL. Non-blocking, as os_open_read: os_clear_nonblock
 * after checking it is a regular file. */
static inline int os_open_rw(const char *path, int extra)
{
	return open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | extra, 0600);
}

/* A rename into dir on the disk. */
static inline int os_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1;
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	return rc;
}

/* Takes the one writer's lock of an open file without waiting (flock); -1
 * when another process holds it. Held until the fd is closed. */
static inline int os_lock_exclusive(int fd)
{
	return flock(fd, LOCK_EX | LOCK_NB);
}

/* Puts from in place of to (rename(2): atomically). *to_fd, open on to, is
 * left open here; Windows, which cannot replace an open file, closes it
 * first and sets it to -1 (see its portable.h). */
static inline int os_rename_replace(const char *from, const char *to, int *to_fd)
{
	(void)to_fd;
	return rename(from, to);
}

/* Calls stop for SIGINT, SIGTERM and SIGHUP: system calls restart (the
 * collector's reads go on), a sleep is cut short with EINTR. */
static inline void os_catch_stop_signals(void (*stop)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Text written to a stream in memory (open_memstream on Linux, a temporary
 * file read back on Windows): write to the FILE os_memstream_open returns,
 * then os_memstream_close gives the text, malloc'd and NUL-terminated, its
 * length in *len; NULL when the stream could not be opened or written. */
struct os_memstream {
	FILE *f;
	char *buf;
	size_t len;
};
static inline FILE *os_memstream_open(struct os_memstream *m)
{
	m->buf = NULL;
	m->len = 0;
	return m->f = open_memstream(&m->buf, &m->len);
}
static inline char *os_memstream_close(struct os_memstream *m, size_t *len)
{
	if (fclose(m->f) != 0) {
		free(m->buf);
		return NULL;
	}
	*len = m->len;
	return m->buf;
}

/* Blocking reads again after os_open_read. */
static inline void os_clear_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

/* Paths of the observed system: absolute ones start with '/', '/' is the
 * only separator (Windows also has drive letters and '\\'). */
#define OS_PATH_SEP '/'
static inline bool os_path_absolute(const char *p)
{
	return p[0] == '/';
}
static inline const char *os_path_last_sep(const char *p)
{
	return strrchr(p, '/');
}
static inline bool os_path_has_sep(const char *p)
{
	return strchr(p, '/') != NULL;
}

#endif
