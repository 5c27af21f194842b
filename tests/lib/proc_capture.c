#include "proc_capture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* what proc_scan, proc_detail, drm_scan and explain read of a process */
static const char *const pid_files[] = {"stat", "status", "cmdline", "comm", "environ", "maps", "io", "cgroup"};
static const char *const pid_links[] = {"exe", "cwd", "root"};
static const char *const system_files[] = {"/proc/stat",    "/proc/version",  "/proc/uptime", "/proc/meminfo",
					   "/proc/loadavg", "/proc/net/tcp", "/proc/net/tcp6", "/etc/passwd"};

/* procfs files say size 0: read to the end. False when from cannot be read. */
static int copy_file(const char *from, const char *to)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 1 << 16;
	char *buf;

	if (fd < 0)
		return -1;
	buf = malloc(cap);
	for (;;) {
		if (len == cap)
			buf = realloc(buf, cap *= 2);
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	unlink(to);
	tu_write_file(to, buf, len);
	free(buf);
	return 0;
}

static void copy_link(const char *from, const char *to)
{
	char target[PATH_MAX];
	ssize_t n = readlink(from, target, sizeof target - 1);
	if (n < 0)
		return; /* a kernel thread has no exe; another user's fds are hidden */
	target[n] = '\0';
	unlink(to);
	if (symlink(target, to) != 0)
		fprintf(stderr, "capture: symlink %s: %s\n", to, strerror(errno));
}

/* Each fd's link and its fdinfo. */
static void copy_fds(const char *src, const char *dst)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(from, sizeof from, "%s/fd", src);
	if (!(d = opendir(from)))
		return;
	snprintf(to, sizeof to, "%s/fd", dst);
	tu_mkdirs(to);
	snprintf(to, sizeof to, "%s/fdinfo", dst);
	tu_mkdirs(to);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(from, sizeof from, "%s/fd/%s", src, e->d_name);
		snprintf(to, sizeof to, "%s/fd/%s", dst, e->d_name);
		copy_link(from, to);
		snprintf(from, sizeof from, "%s/fdinfo/%s", src, e->d_name);
		snprintf(to, sizeof to, "%s/fdinfo/%s", dst, e->d_name);
		copy_file(from, to);
	}
	closedir(d);
}

int tu_capture_pid(const char *root, int pid)
{
	char src[64], dst[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	struct stat st;

	snprintf(src, sizeof src, "/proc/%d", pid);
	if (stat(src, &st) != 0)
		return -1;
	/* built under a name no scan lists, then renamed into place: a live view
	 * watching the tree sees the process whole or not at all */
	snprintf(dst, sizeof dst, "%s/proc/.%d.new", root, pid);
	tu_rmrf(dst);
	tu_mkdirs(dst);
	for (size_t i = 0; i < sizeof pid_files / sizeof pid_files[0]; i++) {
		snprintf(from, sizeof from, "%s/%s", src, pid_files[i]);
		snprintf(to, sizeof to, "%s/%s", dst, pid_files[i]);
		copy_file(from, to);
	}
	for (size_t i = 0; i < sizeof pid_links / sizeof pid_links[0]; i++) {
		snprintf(from, sizeof from, "%s/%s", src, pid_links[i]);
		snprintf(to, sizeof to, "%s/%s", dst, pid_links[i]);
		copy_link(from, to);
	}
	copy_fds(src, dst);
	snprintf(to, sizeof to, "%s/proc/%d", root, pid);
	tu_rmrf(to);
	if (rename(dst, to) != 0) {
		fprintf(stderr, "capture: rename %s: %s\n", to, strerror(errno));
		return -1;
	}
	return stat(src, &st) == 0 ? 0 : -1;
}

void tu_capture_system(const char *root)
{
	char to[PATH_MAX];

	for (size_t i = 0; i < sizeof system_files / sizeof system_files[0]; i++) {
		snprintf(to, sizeof to, "%s%s", root, system_files[i]);
		copy_file(system_files[i], to);
	}
}
