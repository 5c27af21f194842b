/* The tail of a log file, re-read only when the file changed (inode, size,
 * mtime): at most the last `max` bytes, starting at a line boundary. Paths
 * are the observed system's, read under GPUTASKMAN_ROOT when it is set. */
#ifndef GTM_LOGFILE_H
#define GTM_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LOG_TAIL_MAX (512u * 1024u)

struct tail_file {
	char path[512];
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
	char *buf;          /* whole lines only after the first newline when cut */
	size_t len;
	bool cut;           /* the file is longer than the tail: older lines were skipped */
	off_t lines_end;    /* file offset just after the last '\n' read */
	bool valid;
};

/* 1: (re)read, 0: unchanged since the last call, -1: cannot read (errno).
 * 2: only appended to (same inode, larger, at most max new bytes): t->buf
 *    holds just the new bytes from the end of the last whole line read before,
 *    so a parser can go on from its state. */
int tail_read(struct tail_file *t, const char *path, size_t max);
/* The first max bytes of a regular file, cut after its last newline, in a
 * malloc'd buffer (*len bytes), or NULL. The load block of a server's own
 * log sits at its start, which a long-running server's tail no longer holds. */
char *head_read(const char *path, size_t max, size_t *len);
void tail_free(struct tail_file *t);

#endif
