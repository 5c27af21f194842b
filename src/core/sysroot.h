/* Every read of /proc, /sys and /dev goes through one root prefix, taken from
 * GPUTASKMAN_ROOT (default "/"), so tests replay captured trees. */
#ifndef GTM_SYSROOT_H
#define GTM_SYSROOT_H

#include <stdbool.h>
#include <dirent.h>
#include <stddef.h>
#include <sys/types.h>

/* The prefix without a trailing slash ("" for "/"). Read once. */
const char *sysroot_prefix(void);
/* Re-read GPUTASKMAN_ROOT (tests change it between cases). */
void sysroot_reset(void);
/* Why GPUTASKMAN_ROOT cannot be used (too long, not a folder), or NULL.
 * The commands refuse to run on a root they cannot use rather than read "/". */
const char *sysroot_problem(void);

/* Formats an absolute path and prefixes it. Returns 0, or -1 when it does not fit. */
int sysroot_path(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads at most cap-1 bytes of a file under the root and NUL-terminates.
 * Returns the byte count or -1 with errno set. */
ssize_t sysroot_read(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int sysroot_open(int flags, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
DIR *sysroot_opendir(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* readlink under the root; NUL-terminates; returns length or -1. */
ssize_t sysroot_readlink(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reads an entire (small) file into a malloc'd NUL-terminated buffer, at most max bytes. */
char *sysroot_slurp(size_t max, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Same as sysroot_read but for an already prefixed path. */
ssize_t read_file_bounded(const char *path, char *buf, size_t cap);
/* The same from an open fd (left open). short_is_end: a read that returns
 * less than asked ends it (procfs hands a small file over whole; see
 * proc_detail.c), saving the read that would return 0. */
ssize_t read_fd_bounded(int fd, char *buf, size_t cap, bool short_is_end);

#endif
