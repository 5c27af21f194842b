/* Reads a GGUF header from a file. Where the OS maps files (Linux, macOS:
 * portable.h's os_map_read), the header is parsed in place in a read-only
 * mapping: only the pages the parser touches are read, none is copied, and a
 * file that shrinks meanwhile is "changed while reading", not a SIGBUS.
 * Elsewhere (Windows), or where mapping fails: pread in chunks as the parser
 * asks, into a window that moves forward, so tensor data is never read (at
 * most a chunk or so past the tensor infos) and the bytes the parser only
 * passes over (the vocabulary, most of a header) are never more than a few
 * hundred KiB in memory at once. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "portable.h"
#include "core/util.h"
#include "llm/gguf.h"
#include "llm/gguf_internal.h"

#define GGUF_READ_CHUNK (256u * 1024u)
#define GGUF_READ_SLACK (16u * 1024u) /* read past the parser's estimate of the header's end */
#define GGUF_READ_MIN (64u * 1024u)   /* the least a read then reads, if the file goes on */

void (*gguf_read_file_hook)(const char *path);
void (*gguf_map_hook)(const char *path);
bool gguf_read_no_map;

struct file_fill {
	int fd;
	uint8_t *buf;
	size_t base, len, cap; /* buf holds the file's bytes [base, base + len) */
	uint64_t size;         /* from fstat before reading */
	bool short_read;
	int err;
};

/* How many bytes from `from` the window should hold after a read: as far as
 * the buffer goes (fewer calls, one chunk or so of read-ahead), but not much
 * past where the parser expects the header to end (the last read of a 6 MB
 * header went 360 KiB into the tensor data, more than the 0.6 MB the reader
 * skips saved). most: the file's bytes from `from` on; need: what the parser
 * asked for; likely: its estimate (0: none). */
static size_t read_to(size_t cap, size_t most, uint64_t need, uint64_t likely)
{
	size_t to = cap < most ? cap : most;
	if (likely > need && likely + GGUF_READ_SLACK < to) {
		to = (size_t)likely + GGUF_READ_SLACK;
		if (to < GGUF_READ_MIN) /* guesses too short, again and again, cost a call each */
			to = GGUF_READ_MIN < cap && GGUF_READ_MIN < most ? GGUF_READ_MIN : (cap < most ? cap : most);
	}
	return to;
}

/* The window moves forward: what the parser still needs (from on) moves to
 * the front of the buffer, and the rest of the buffer is read after it, so a
 * header of any length passes through a buffer of about two chunks (it grows
 * only for one value longer than a chunk). */
static void file_fill(void *vctx, uint64_t from, uint64_t upto, uint64_t likely_end, const uint8_t **buf,
		      size_t *base, size_t *len)
{
	struct file_fill *c = vctx;
	uint64_t limit = c->size;
	if (limit > GGUF_MAX_HEADER_BYTES + GGUF_READ_CHUNK)
		limit = GGUF_MAX_HEADER_BYTES + GGUF_READ_CHUNK;
	if (upto > limit)
		upto = limit;
	if (from > upto)
		from = upto;
	if (from < c->base || from > c->base + c->len) {
		/* out of order (never the parser's way) or past the window: start again at from */
		c->base = (size_t)from;
		c->len = 0;
	} else if (from > c->base) {
		memmove(c->buf, c->buf + (from - c->base), c->base + c->len - from);
		c->len -= (size_t)(from - c->base);
		c->base = (size_t)from;
	}
	uint64_t want = upto - from + GGUF_READ_CHUNK;
	if (want > limit - from)
		want = limit - from;
	if (want > c->cap) {
		size_t cap = c->cap ? c->cap : 2 * GGUF_READ_CHUNK;
		while (cap < want)
			cap *= 2;
		c->buf = xrealloc(c->buf, cap);
		c->cap = cap;
	}
	if (c->len < upto - from) {
		size_t to = read_to(c->cap, (size_t)(limit - from), upto - from, likely_end > from ? likely_end - from : 0);
		while (c->len < to && !c->short_read) {
			ssize_t n = os_pread(c->fd, c->buf + c->len, to - c->len, c->base + c->len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				c->short_read = true;
				c->err = n < 0 ? errno : 0;
				break;
			}
			c->len += (size_t)n;
		}
	}
	*buf = c->buf;
	*base = c->base;
	*len = c->len;
}

static int64_t mtime_ns(const struct stat *st)
{
	return stat_mtime_ns(st);
}

static enum gguf_status io_error(char *err, size_t n, const char *what, int e)
{
	snprintf(err, n, "%s: %s", what, strerror(e));
	return GGUF_ERR_IO;
}

enum gguf_status gguf_read_file(const char *path, struct gguf_header **out, char *err, size_t errlen)
{
	*out = NULL;
	int fd = os_open_read(path);
	if (fd < 0)
		return io_error(err, errlen, "cannot open", errno);
	enum gguf_status st = gguf_read_fd(fd, path, out, err, errlen);
	close(fd);
	return st;
}

/* The header parsed in place through a mapping (only the pages the parser
 * touches are read, none is copied), or, where the OS maps no file or the
 * mapping fails, read into the moving window. *faulted: a mapped page could
 * not be read (the file shrank, or an I/O error): zeros were parsed from
 * there on. */
static enum gguf_status parse_in_place_or_read(struct file_fill *c, const char *path, struct gguf_header **out,
					       char *err, size_t errlen, bool *faulted)
{
	struct os_map map;
	uint64_t most = GGUF_MAX_HEADER_BYTES + GGUF_READ_CHUNK, len = c->size < most ? c->size : most;

	if (gguf_read_no_map || !os_map_read(c->fd, (size_t)len, &map))
		return gguf_parse_fill(file_fill, c, NULL, 0, out, err, errlen);
	if (gguf_map_hook)
		gguf_map_hook(path);
	enum gguf_status st = gguf_parse(map.p, map.len, out, err, errlen);
	*faulted = map.faulted != 0;
	os_map_release(&map);
	return st;
}

enum gguf_status gguf_read_fd(int fd, const char *path, struct gguf_header **out, char *err, size_t errlen)
{
	struct stat before, after;
	struct file_fill c = {.fd = fd};
	enum gguf_status st;

	*out = NULL;
	if (fstat(c.fd, &before) != 0)
		return io_error(err, errlen, "cannot stat", errno);
	if (!S_ISREG(before.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		return GGUF_ERR_IO;
	}
	c.size = (uint64_t)before.st_size;
	bool faulted = false;
	st = parse_in_place_or_read(&c, path, out, err, errlen, &faulted);
	if (gguf_read_file_hook)
		gguf_read_file_hook(path);
	bool same = fstat(c.fd, &after) == 0 && after.st_size == before.st_size && mtime_ns(&after) == mtime_ns(&before);
	if (faulted && same) {
		/* a page of the mapping could not be read (SIGBUS with the file unchanged) */
		gguf_header_unref(*out);
		*out = NULL;
		st = io_error(err, errlen, "read failed", EIO);
	} else if (c.short_read && c.err && st != GGUF_OK)
		st = io_error(err, errlen, "read failed", c.err);
	else if (faulted || !same || (c.short_read && c.base + c.len < c.size && st != GGUF_OK)) {
		gguf_header_unref(*out);
		*out = NULL;
		snprintf(err, errlen, "file changed while reading");
		st = GGUF_ERR_CHANGED;
	}
	if (*out) {
		(*out)->file_size = c.size;
		(*out)->dev = (uint64_t)before.st_dev;
		(*out)->ino = (uint64_t)before.st_ino;
		(*out)->mtime_ns = mtime_ns(&before);
	}
	free(c.buf);
	return st;
}

bool gguf_file_is_gguf(const char *path)
{
	uint8_t m[4];
	int fd = sysroot_open(O_RDONLY | O_NOCTTY | O_NONBLOCK, "%s", path);
	if (fd < 0)
		return false;
	ssize_t n = os_pread(fd, m, 4, 0);
	close(fd);
	return n == 4 && gguf_is_gguf_magic(m, 4);
}
