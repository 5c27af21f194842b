#include "drm_tree.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static void link_at(const char *target, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void write_at(const char *data, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void link_at(const char *target, const char *fmt, ...)
{
	char path[PATH_MAX], dir[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof path, fmt, ap);
	va_end(ap);
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	tu_mkdirs(dir);
	unlink(path);
	if (symlink(target, path) != 0) {
		perror(path);
		abort();
	}
}

static void write_at(const char *data, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof path, fmt, ap);
	va_end(ap);
	tu_write_file(path, data, strlen(data));
}

void dt_device(const char *root, int card, int render, const char *slot, const char *driver, uint16_t vendor,
	       uint16_t device)
{
	char uevent[256], target[128];

	snprintf(uevent, sizeof uevent, "DRIVER=%s\nPCI_CLASS=30000\nPCI_ID=%04X:%04X\nPCI_SLOT_NAME=%s\n", driver,
		 vendor, device, slot);
	write_at(uevent, "%s/sys/devices/pci0000:00/%s/uevent", root, slot);
	snprintf(target, sizeof target, "../../../devices/pci0000:00/%s", slot);
	if (card >= 0)
		link_at(target, "%s/sys/class/drm/card%d/device", root, card);
	if (render >= 0)
		link_at(target, "%s/sys/class/drm/renderD%d/device", root, render);
	/* connectors sit beside the nodes and are not devices */
	if (card >= 0)
		write_at("connected\n", "%s/sys/class/drm/card%d-DP-1/status", root, card);
}

void dt_attr(const char *root, const char *slot, const char *rel, const char *value)
{
	write_at(value, "%s/sys/devices/pci0000:00/%s/%s", root, slot, rel);
}

void dt_proc(const char *root, uint32_t pid, uint64_t start_time, const char *comm)
{
	char stat[512];
	/* the (comm) field may hold spaces and ')' */
	snprintf(stat, sizeof stat,
		 "%u (%s) S 1 %u %u 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 4 0 %llu 123456789 2048 "
		 "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n",
		 pid, comm, pid, pid, (unsigned long long)start_time);
	write_at(stat, "%s/proc/%u/stat", root, pid);
	write_at(comm, "%s/proc/%u/comm", root, pid);
	/* what the /proc scanner needs to list it: cmdline (NUL-separated) and status */
	char path[PATH_MAX], status[256];
	snprintf(path, sizeof path, "%s/proc/%u/cmdline", root, pid);
	tu_write_file(path, comm, strlen(comm) + 1);
	snprintf(status, sizeof status, "Name:\t%s\nTgid:\t%u\nPid:\t%u\nPPid:\t1\nUid:\t0\t0\t0\t0\n", comm, pid,
		 pid);
	write_at(status, "%s/proc/%u/status", root, pid);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/proc/%u/fd", root, pid);
	tu_mkdirs(dir);
	snprintf(dir, sizeof dir, "%s/proc/%u/fdinfo", root, pid);
	tu_mkdirs(dir);
}

void dt_fd(const char *root, uint32_t pid, int fd, const char *target, const char *body)
{
	link_at(target, "%s/proc/%u/fd/%d", root, pid, fd);
	write_at(body ? body : "pos:\t0\nflags:\t02\nmnt_id:\t25\nino:\t1\n", "%s/proc/%u/fdinfo/%d", root, pid, fd);
}

void dt_plain_fds(const char *root, uint32_t pid, int first, int n)
{
	static const char *const targets[] = {"/dev/null", "socket:[4242]", "pipe:[99]", "/var/log/app.log",
					      "anon_inode:[eventfd]", "/dev/pts/0", "/usr/lib/libfoo.so"};
	for (int i = 0; i < n; i++)
		dt_fd(root, pid, first + i, targets[(size_t)i % (sizeof targets / sizeof *targets)], NULL);
}

void dt_close_fd(const char *root, uint32_t pid, int fd)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/proc/%u/fd/%d", root, pid, fd);
	unlink(path);
	snprintf(path, sizeof path, "%s/proc/%u/fdinfo/%d", root, pid, fd);
	unlink(path);
}

char *dt_capture(const char *name)
{
	const char *dir = tu_shared_fixture("drm");
	char path[PATH_MAX];
	size_t len;

	if (!dir)
		return NULL;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	char *raw = tu_read_file(path, &len), *out = malloc(len + 1), *w = out;
	for (char *line = raw; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
		if (line[0] != '#') {
			memcpy(w, line, n);
			w += n;
		}
		line += n;
	}
	*w = '\0';
	free(raw);
	return out;
}

char *dt_capture_or_skip(const char *name)
{
	char *b = dt_capture(name);
	if (!b) {
		printf("../shared/fixtures/drm is absent: skipped\n");
		exit(77);
	}
	return b;
}
