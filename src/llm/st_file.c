/* Reading a safetensors header from a file: the 8-byte length, then exactly
 * that many bytes (at most ST_MAX_HEADER), never tensor data. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "llm/safetensors.h"
#include "portable.h"

static int open_path(const char *path, bool observed)
{
	return observed ? sysroot_open(O_RDONLY | O_NOCTTY | O_NONBLOCK, "%s", path) : os_open_read(path);
}

static bool read_at(int fd, uint8_t *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = os_pread(fd, buf + got, n - got, off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

static enum st_status io_fail(char *err, size_t n, const char *what, int e)
{
	snprintf(err, n, "%s: %s", what, e ? strerror(e) : "short read");
	return ST_ERR_IO;
}

static enum st_status read_fd(int fd, struct st_header **out, char *err, size_t en)
{
	struct stat before, after;
	uint8_t head[8];
	uint64_t len;

	if (fstat(fd, &before) != 0)
		return io_fail(err, en, "cannot stat", errno);
	if (!S_ISREG(before.st_mode)) {
		snprintf(err, en, "not a regular file");
		return ST_ERR_IO;
	}
	os_clear_nonblock(fd);
	uint64_t size = (uint64_t)before.st_size;
	if (size >= 8 && !read_at(fd, head, 8, 0))
		return io_fail(err, en, "read failed", errno);
	enum st_status st = st_header_len(head, size >= 8 ? 8 : 0, size, &len);
	if (st != ST_OK) /* the parser words the failure */
		return st_header_parse(head, size >= 8 ? 8 : 0, size, out, err, en);
	uint8_t *buf = xmalloc((size_t)len + 8);
	memcpy(buf, head, 8);
	if (!read_at(fd, buf + 8, (size_t)len, 8)) {
		free(buf);
		return io_fail(err, en, "read failed", errno);
	}
	st = st_header_parse(buf, (size_t)len + 8, size, out, err, en);
	free(buf);
	if (fstat(fd, &after) != 0 || after.st_size != before.st_size || stat_mtime_ns(&after) != stat_mtime_ns(&before)) {
		st_header_free(*out);
		*out = NULL;
		snprintf(err, en, "file changed while reading");
		return ST_ERR_CHANGED;
	}
	return st;
}

enum st_status st_read_file(const char *path, bool observed, struct st_header **out, char *err, size_t errlen)
{
	*out = NULL;
	int fd = open_path(path, observed);
	if (fd < 0)
		return io_fail(err, errlen, "cannot open", errno);
	enum st_status st = read_fd(fd, out, err, errlen);
	close(fd);
	return st;
}

bool st_file_is_safetensors(const char *path, bool observed)
{
	uint8_t m[9];
	struct stat st;
	int fd = open_path(path, observed);
	if (fd < 0)
		return false;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read_at(fd, m, sizeof m, 0) &&
		  st_is_safetensors_magic(m, sizeof m, (uint64_t)st.st_size);
	close(fd);
	return ok;
}
