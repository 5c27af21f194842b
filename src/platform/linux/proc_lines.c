/* Line-at-a-time reading of /proc text files, bounded in memory: maps and
 * net/tcp can be megabytes on a busy machine, so they are streamed through
 * one reusable buffer rather than read whole. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "proc_internal.h"

void proc_for_each_line(const char *buf, size_t len, proc_line_fn fn, void *ctx)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		fn(p, (size_t)(eol - p), ctx);
		p = eol + 1;
	}
}

static ssize_t read_retry(int fd, char *buf, size_t n)
{
	for (;;) {
		ssize_t r = read(fd, buf, n);
		if (r >= 0 || errno != EINTR)
			return r;
	}
}

int proc_fd_for_each_line(int fd, char *io, size_t cap, proc_line_fn fn, void *ctx)
{
	size_t have = 0;
	bool skipping = false; /* inside a line longer than cap */

	for (;;) {
		ssize_t r = read_retry(fd, io + have, cap - have);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		have += (size_t)r;
		char *p = io, *end = io + have;
		char *nl;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			if (!skipping)
				fn(p, (size_t)(nl - p), ctx);
			skipping = false;
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have == cap) { /* no newline in a full buffer: drop this line */
			skipping = true;
			have = 0;
		} else if (p != io) {
			memmove(io, p, have);
		}
	}
	if (have > 0 && !skipping)
		fn(io, have, ctx);
	return 0;
}
