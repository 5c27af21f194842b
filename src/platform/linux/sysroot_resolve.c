#include "sysroot_resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WALK_MAX_DEPTH 256 /* folders held open at once; deeper is ENAMETOOLONG */

/* 0: not tried yet, 1: the kernel has openat2, -1: it does not */
static atomic_int have_openat2;
static atomic_bool force_walk;

void resolve_force_walk(bool on)
{
	atomic_store(&force_walk, on);
}

int resolve_openat2(int rootfd, const char *path, int flags)
{
#ifdef SYS_openat2
	/* RESOLVE_IN_ROOT: "/" and ".." stop at rootfd (openat2(2)); magic links
	 * (a real procfs mounted in the tree) would jump out, so none is followed. */
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd, tries = 0;

	while (*path == '/')
		path++;
	do /* EAGAIN: a rename raced the walk inside the root; the kernel asks for a retry */
		fd = (int)syscall(SYS_openat2, rootfd, *path ? path : ".", &how, sizeof how);
	while (fd < 0 && errno == EAGAIN && ++tries < 8);
	return fd;
#else
	(void)rootfd, (void)path, (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

struct walk {
	int fds[WALK_MAX_DEPTH]; /* fds[0] is rootfd (not ours to close) */
	int depth;
};

static void walk_unwind(struct walk *w, int to)
{
	while (w->depth > to)
		close(w->fds[w->depth--]);
}

/* Replaces the unwalked rest of buf (which starts at rest) by target + rest. */
static int splice_link(char *buf, const char *rest, const char *target, size_t tlen)
{
	char tmp[PATH_MAX];
	size_t rlen = strlen(rest);

	if (tlen + rlen + 1 > sizeof tmp)
		return -1;
	memcpy(tmp, target, tlen);
	memcpy(tmp + tlen, rest, rlen + 1);
	memcpy(buf, tmp, tlen + rlen + 1);
	return 0;
}

static int walk_fail(struct walk *w, int err)
{
	walk_unwind(w, 0);
	errno = err;
	return -1;
}

int resolve_walk(int rootfd, const char *path, int flags)
{
	struct walk w = {.fds = {rootfd}, .depth = 0};
	char buf[PATH_MAX], name[NAME_MAX + 1], target[PATH_MAX];
	const char *p = buf;
	int links = 0;

	if (strlen(path) >= sizeof buf)
		return walk_fail(&w, ENAMETOOLONG);
	strcpy(buf, path);
	for (;;) {
		while (*p == '/')
			p++;
		int cur = w.fds[w.depth];
		if (!*p) { /* "/" or a trailing slash: the folder reached */
			int fd = openat(cur, ".", flags | O_CLOEXEC);
			int err = errno;
			walk_unwind(&w, 0);
			errno = err;
			return fd;
		}
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > NAME_MAX)
			return walk_fail(&w, ENAMETOOLONG);
		memcpy(name, p, len);
		name[len] = '\0';
		p += len; /* at the '/' after the name, or the end */
		const char *q = p;
		while (*q == '/')
			q++;
		bool last = !*q, slash_after = *p == '/';
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			walk_unwind(&w, w.depth > 0 ? w.depth - 1 : 0);
			continue;
		}
		if (!last || slash_after || !(flags & O_NOFOLLOW)) {
			ssize_t n = readlinkat(cur, name, target, sizeof target);
			if (n >= 0) {
				if (++links > RESOLVE_MAX_LINKS)
					return walk_fail(&w, ELOOP);
				if ((size_t)n >= sizeof target || splice_link(buf, p, target, (size_t)n) != 0)
					return walk_fail(&w, ENAMETOOLONG);
				p = buf;
				if (target[0] == '/')
					walk_unwind(&w, 0);
				continue;
			}
			if (errno != EINVAL) /* EINVAL: there, and no link */
				return walk_fail(&w, errno);
		}
		if (last && !slash_after) {
			/* O_NOFOLLOW: a link swapped in since readlinkat is not followed */
			int fd = openat(cur, name, flags | O_NOFOLLOW | O_CLOEXEC);
			int err = errno;
			walk_unwind(&w, 0);
			errno = err;
			return fd;
		}
		if (w.depth + 1 >= WALK_MAX_DEPTH)
			return walk_fail(&w, ENAMETOOLONG);
		int fd = openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return walk_fail(&w, errno);
		w.fds[++w.depth] = fd;
	}
}

/* Asked once with a call that cannot fail otherwise: ENOSYS on kernels before
 * 5.6, EPERM where a seccomp filter of an older container runtime refuses it. */
static bool openat2_works(int rootfd)
{
	int known = atomic_load(&have_openat2);
	if (known)
		return known > 0;
	int fd = resolve_openat2(rootfd, ".", O_PATH | O_DIRECTORY);
	if (fd >= 0)
		close(fd);
	known = fd >= 0 || (errno != ENOSYS && errno != EPERM) ? 1 : -1;
	atomic_store(&have_openat2, known);
	return known > 0;
}

int resolve_open(int rootfd, const char *path, int flags)
{
	if (!atomic_load(&force_walk) && openat2_works(rootfd))
		return resolve_openat2(rootfd, path, flags);
	return resolve_walk(rootfd, path, flags);
}
