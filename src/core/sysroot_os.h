/* What core/sysroot.c asks of the platform: the observed system's paths
 * become files here. Each OS folder implements these (Linux: under "/" the
 * plain calls, under GPUTASKMAN_ROOT resolved inside the tree; Windows: the
 * wide-character calls on this machine's UTF-16 paths). abs is UTF-8. */
#ifndef GTM_SYSROOT_OS_H
#define GTM_SYSROOT_OS_H

#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/sysroot.h"

/* Opens abs with open(2)'s flags (close-on-exec always); an fd or -1 with errno. */
int sysroot_os_open(const char *abs, int flags);
int sysroot_os_stat(const char *abs, struct stat *st);
/* Reads a link's target into buf (NUL-terminated, cut to cap-1): its length, or -1. */
ssize_t sysroot_os_readlink(const char *abs, char *buf, size_t cap);
int sysroot_os_access(const char *abs, int mode);
DIR *sysroot_os_opendir(const char *abs);
/* Closes fd and returns r, keeping the errno r came with. */
int sysroot_close_keep_errno(int fd, int r);

#endif
