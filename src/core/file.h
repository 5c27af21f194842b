/* Opening a file named by a user or a command line: never blocks on a FIFO,
 * never acts on a device, and knows the size before anything is read. */
#ifndef GTM_FILE_H
#define GTM_FILE_H

#include <stdint.h>
#include <sys/stat.h>

/* Opens path read-only and checks with fstat, before any read, that it is a
 * regular file of at most max_bytes. Returns the descriptor (blocking mode
 * restored) and fills *st; or -1 with errno set and *why a short reason
 * ("no such file", "is a FIFO, not a file", "larger than 64 MiB", ...). */
int file_open_regular(const char *path, uint64_t max_bytes, struct stat *st, const char **why);

/* The reason for a file type that is not a regular file, or NULL for one. */
const char *file_type_refusal(mode_t mode);

#endif
