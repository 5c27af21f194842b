/* Every read of the observed system (/proc, /sys, /dev, and the files they
 * name: models, logs, stores, /etc/passwd) goes through one root, taken from
 * GPUTASKMAN_ROOT (default "/"), so tests replay captured trees, and a
 * replay never reads a file outside its tree. */
#ifndef GTM_SYSROOT_H
#define GTM_SYSROOT_H

#include <stdbool.h>
/* DIR and readdir: on Windows those of compat/windows/posix/dirent.h
 * (UTF-8 names), which the include path puts before mingw's */
#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The prefix without a trailing slash ("" for "/"). Read once. */
const char *sysroot_prefix(void);
/* Re-read GPUTASKMAN_ROOT (tests change it between cases). */
void sysroot_reset(void);
/* Why GPUTASKMAN_ROOT cannot be used (too long, not a folder), or NULL.
 * The commands refuse to run on a root they cannot use rather than read "/". */
const char *sysroot_problem(void);

/* The paths below are absolute paths of the observed system, formatted
 * printf-style. Under "/" they are opened as they are. Under a root they are
 * resolved inside it (platform/linux/sysroot_resolve.h): every symbolic link, absolute
 * or relative, is followed inside the tree, ".." stops at its top, and more
 * than 40 links is ELOOP, so nothing outside the tree is ever read. The same
 * holds for every string a replay hands over that names a file (a model on
 * a command line, a log an fd points at, a store under $HOME): open it here.
 * Each returns -1 (NULL) with errno set on failure. */

/* Reads at most cap-1 bytes and NUL-terminates. Returns the byte count. */
ssize_t sysroot_read(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* open(2)'s flags; O_CLOEXEC is added. */
int sysroot_open(int flags, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
DIR *sysroot_opendir(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* readlink of the last component (not followed); NUL-terminates; returns length. */
ssize_t sysroot_readlink(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* stat(2), links followed. */
int sysroot_stat(struct stat *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* access(2) for F_OK or R_OK (under a root: R_OK is "opens for reading"). */
int sysroot_access(int mode, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads an entire (small) file into a malloc'd NUL-terminated buffer, at most max bytes. */
char *sysroot_slurp(size_t max, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Relative to procfd, the /proc folder sysroot_open(O_DIRECTORY, "/proc")
 * gave; rel is like "123/stat". Under "/" these are the plain *at calls (the
 * hot scan costs what it did); under a root they resolve "/proc/<rel>" inside
 * it, so a link in the tree (proc/3100 -> /proc/1) stays in the tree.
 * A single name under an fd these return (readlinkat(fd_dir, "3")) follows
 * no link and needs no wrapper. */
int sysroot_proc_openat(int procfd, const char *rel, int flags);
/* NUL-terminates; returns the length. */
ssize_t sysroot_proc_readlinkat(int procfd, const char *rel, char *buf, size_t cap);
/* fstatat(2) with links followed. */
int sysroot_proc_fstatat(int procfd, const char *rel, struct stat *st);
/* fstatat(2), links followed, of n single names ("stat", "fd") in the
 * folder /proc/<pid>: err[i] is 0 or the errno of names[i]. Under "/" one
 * fstatat each; under a root the PID folder is resolved inside it once and
 * each name is stat'ed relative to it without following a link (a name that
 * is one is resolved inside the root, the slow way): 2 + n calls, not 3n. */
void sysroot_proc_stat_names(int procfd, unsigned pid, const char *const *names, int n, struct stat *st, int *err);

/* Reads from an open fd (left open) at most cap-1 bytes and NUL-terminates.
 * short_is_end: a read that returns less than asked ends it (procfs hands a
 * small file over whole; see proc_detail.c), saving the read that would
 * return 0. */
ssize_t read_fd_bounded(int fd, char *buf, size_t cap, bool short_is_end);

#endif
