#include "explain/logfile.h"
#include "portable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"

void tail_free(struct tail_file *t)
{
	free(t->buf);
	memset(t, 0, sizeof *t);
}

static ssize_t pread_all(int fd, char *buf, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = os_pread(fd, buf + got, n - got, (uint64_t)off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* A log of the observed system (under GPUTASKMAN_ROOT when set). A path from
 * a command line may name a FIFO or a device: opening those can block or
 * act, so only a regular file is opened. */
static int open_regular(const char *path)
{
	struct stat st;
	if (sysroot_stat(&st, "%s", path) != 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	return sysroot_open(O_RDONLY | O_NONBLOCK | O_NOCTTY, "%s", path);
}

char *head_read(const char *path, size_t max, size_t *len)
{
	int fd = open_regular(path);
	if (fd < 0)
		return NULL;
	char *buf = xmalloc(max + 1);
	ssize_t n = pread_all(fd, buf, max, 0);
	close(fd);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	size_t k = (size_t)n;
	while (k > 0 && buf[k - 1] != '\n') /* whole lines only */
		k--;
	buf[k] = '\0';
	*len = k;
	return buf;
}

int tail_read(struct tail_file *t, const char *path, size_t max)
{
	struct stat st;
	int fd = open_regular(path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	int64_t mt = stat_mtime_ns(&st);
	if (t->valid && strcmp(t->path, path) == 0 && t->dev == st.st_dev && t->ino == st.st_ino &&
	    t->size == st.st_size && t->mtime_ns == mt) {
		close(fd);
		return 0;
	}
	bool grown = t->valid && strcmp(t->path, path) == 0 && t->dev == st.st_dev && t->ino == st.st_ino &&
		     st.st_size > t->size && (size_t)(st.st_size - t->lines_end) <= max;
	/* new, rotated (other inode), truncated or grown by more than the tail: read the tail again */
	size_t want = grown ? (size_t)(st.st_size - t->lines_end) : (size_t)st.st_size > max ? max : (size_t)st.st_size;
	off_t off = grown ? t->lines_end : st.st_size - (off_t)want;
	char *buf = xmalloc(want + 1);
	ssize_t got = pread_all(fd, buf, want, off);
	close(fd);
	if (got < 0)
		got = 0;
	size_t start = 0;
	if (off > 0 && !grown) { /* the first line is cut: skip to the next one */
		char *nl = memchr(buf, '\n', (size_t)got);
		start = nl ? (size_t)(nl - buf) + 1 : (size_t)got;
	}
	free(t->buf);
	t->buf = buf;
	memmove(buf, buf + start, (size_t)got - start);
	t->len = (size_t)got - start;
	buf[t->len] = 0;
	t->cut = grown ? t->cut : off > 0;
	char *last_nl = t->len ? memrchr(buf, '\n', t->len) : NULL;
	off_t base = off + (off_t)start;
	if (last_nl)
		t->lines_end = base + (off_t)(last_nl - buf) + 1;
	else if (!grown)
		t->lines_end = base;
	str_copy(t->path, path, sizeof t->path);
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->size = st.st_size;
	t->mtime_ns = mt;
	t->valid = true;
	return grown ? 2 : 1;
}
