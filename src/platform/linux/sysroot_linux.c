/* Linux's half of core/sysroot.h: the observed system is "/" or the tree
 * GPUTASKMAN_ROOT names, and every path under a root is resolved inside it
 * (sysroot_resolve.c), so a replay never reads a file outside its tree. */
#include "core/sysroot_os.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysroot_resolve.h"

static char root[4096];
static int rootfd = -1; /* the root folder (O_PATH): every path is resolved from it */
static int root_ready;
static char problem[160];

void sysroot_reset(void)
{
	const char *r = getenv("GPUTASKMAN_ROOT");
	size_t n;

	root[0] = '\0';
	problem[0] = '\0';
	if (rootfd >= 0)
		close(rootfd);
	rootfd = -1;
	if (r && *r && strlen(r) >= sizeof root)
		snprintf(problem, sizeof problem, "GPUTASKMAN_ROOT is longer than %zu bytes", sizeof root - 1);
	if (r && *r && strlen(r) < sizeof root) {
		strcpy(root, r);
		n = strlen(root);
		while (n > 0 && root[n - 1] == '/')
			root[--n] = '\0';
	}
	/* The root's own path is this machine's and is opened as given; what
	 * lies under it is resolved from this fd and never leaves it. */
	if (root[0])
		rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	root_ready = 1;
}

const char *sysroot_problem(void)
{
	struct stat st;

	if (!root_ready)
		sysroot_reset();
	if (problem[0])
		return problem;
	if (root[0] && (rootfd < 0 || fstat(rootfd, &st) != 0 || !S_ISDIR(st.st_mode))) {
		snprintf(problem, sizeof problem, "GPUTASKMAN_ROOT=%.100s is not a folder", root);
		return problem;
	}
	return NULL;
}

const char *sysroot_prefix(void)
{
	if (!root_ready)
		sysroot_reset();
	return root;
}

/* The one place a path of the observed system becomes a file: under "/" a
 * plain open (the live scan pays nothing), under a root resolved inside it
 * (platform/linux/sysroot_resolve.c). A relative path counts from the root too, never
 * from this process's working folder. */
int sysroot_os_open(const char *abs, int flags)
{
	if (!sysroot_prefix()[0])
		return open(abs, flags | O_CLOEXEC);
	if (rootfd < 0) {
		errno = ENOENT;
		return -1;
	}
	return resolve_open(rootfd, abs, flags);
}

int sysroot_os_stat(const char *abs, struct stat *st)
{
	if (!sysroot_prefix()[0])
		return stat(abs, st);
	int fd = sysroot_os_open(abs, O_PATH);
	if (fd < 0)
		return -1;
	return sysroot_close_keep_errno(fd, fstat(fd, st));
}

ssize_t sysroot_os_readlink(const char *abs, char *buf, size_t cap)
{
	ssize_t n;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	if (!sysroot_prefix()[0]) {
		n = readlink(abs, buf, cap - 1);
	} else {
		/* the link itself (O_PATH | O_NOFOLLOW), read through its fd */
		int fd = sysroot_os_open(abs, O_PATH | O_NOFOLLOW);
		if (fd < 0)
			return -1;
		n = readlinkat(fd, "", buf, cap - 1);
		sysroot_close_keep_errno(fd, 0);
	}
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

DIR *sysroot_os_opendir(const char *abs)
{
	int fd = sysroot_os_open(abs, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d)
		sysroot_close_keep_errno(fd, 0);
	return d;
}

int sysroot_os_access(const char *path, int mode)
{
	if (!sysroot_prefix()[0])
		return access(path, mode);
	/* readable is "opens for reading" here: the resolution ends in an fd */
	int fd = sysroot_os_open(path, mode & R_OK ? O_RDONLY | O_NONBLOCK | O_NOCTTY : O_PATH);
	if (fd < 0)
		return -1;
	return sysroot_close_keep_errno(fd, 0);
}

/* "/proc/<rel>", what a call relative to the /proc fd means under a root. */
static int proc_path(char *out, size_t n, const char *rel)
{
	if ((size_t)snprintf(out, n, "/proc/%s", rel) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int sysroot_proc_openat(int procfd, const char *rel, int flags)
{
	char path[4096];

	if (!sysroot_prefix()[0])
		return openat(procfd, rel, flags | O_CLOEXEC);
	/* a replayed tree may hold a FIFO where procfs has a file: never wait on it */
	if (!(flags & (O_DIRECTORY | O_PATH)))
		flags |= O_NONBLOCK;
	return proc_path(path, sizeof path, rel) != 0 ? -1 : sysroot_os_open(path, flags);
}

ssize_t sysroot_proc_readlinkat(int procfd, const char *rel, char *buf, size_t cap)
{
	char path[4096];

	if (sysroot_prefix()[0])
		return proc_path(path, sizeof path, rel) != 0 ? -1 : sysroot_os_readlink(path, buf, cap);
	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	ssize_t n = readlinkat(procfd, rel, buf, cap - 1);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int sysroot_proc_fstatat(int procfd, const char *rel, struct stat *st)
{
	char path[4096];

	if (!sysroot_prefix()[0])
		return fstatat(procfd, rel, st, 0);
	return proc_path(path, sizeof path, rel) != 0 ? -1 : sysroot_os_stat(path, st);
}

/* Under a root: one name in the PID folder pidfd (resolved in the root),
 * not followed; a link, or a name with a slash, takes the resolving way. */
static int stat_in_pid_folder(int pidfd, unsigned pid, const char *name, struct stat *st)
{
	char path[4096];

	if (!strchr(name, '/') && strcmp(name, "..") != 0) {
		if (fstatat(pidfd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
			return -1;
		if (!S_ISLNK(st->st_mode))
			return 0;
	}
	if ((size_t)snprintf(path, sizeof path, "/proc/%u/%s", pid, name) >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return sysroot_os_stat(path, st);
}

void sysroot_proc_stat_names(int procfd, unsigned pid, const char *const *names, int n, struct stat *st, int *err)
{
	char path[4096];

	if (!sysroot_prefix()[0]) {
		for (int i = 0; i < n; i++) {
			snprintf(path, sizeof path, "%u/%s", pid, names[i]);
			err[i] = fstatat(procfd, path, &st[i], 0) == 0 ? 0 : errno;
		}
		return;
	}
	/* procfd was resolved inside the root: its entry "PID", not followed,
	 * stays inside; one that is a link (ELOOP, ENOTDIR) is resolved the long way */
	snprintf(path, sizeof path, "%u", pid);
	int pidfd = openat(procfd, path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pidfd < 0 && errno != ENOENT) {
		snprintf(path, sizeof path, "/proc/%u", pid);
		pidfd = sysroot_os_open(path, O_PATH | O_DIRECTORY);
	}
	for (int i = 0; i < n; i++)
		err[i] = pidfd < 0 ? errno : stat_in_pid_folder(pidfd, pid, names[i], &st[i]) == 0 ? 0 : errno;
	if (pidfd >= 0)
		close(pidfd);
}
