/* Counting /proc's processes without listing them. A listing costs the kernel
 * a dentry lookup per PID (proc_pid_readdir -> proc_fill_cache: about 3 us a
 * process on a VM, 2.7 ms at 1,000 processes), and all it gives a priority-
 * only scan is a count. procfs's root folder says that count itself:
 * fs/proc/root.c proc_root_getattr sets its link count to proc_root.nlink +
 * nr_processes(), where proc_root.nlink is 2 plus one for each static folder
 * (proc_register) and nr_processes() the thread-group leaders of the whole
 * system. So the count is st_nlink - 2 - the static folders, and the static
 * folders are the first entries of a listing, before any PID: a small
 * getdents64 buffer reads them with at most a few PIDs' lookups.
 *
 * That is the listing's count only where the listing would show every
 * process of the system: a procfs (not a tree under GPUTASKMAN_ROOT), of the
 * initial PID namespace (a container's /proc lists its own processes, while
 * nr_processes() counts the host's), mounted without hidepid=2/4 unless we
 * are root, and without subset=pid. hidepid=1 for a non-root user needs every
 * stat read anyway (proc_stat_may_be_refused). Anything else: -1, and the
 * caller lists. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "proc_internal.h"
#include "proc_parse.h"

#define PROC_SUPER_MAGIC_NUM 0x9fa0
/* include/linux/proc_ns.h PROC_PID_INIT_INO: the initial PID namespace's inode */
#define INIT_PID_NS_LINK "pid:[4026531836]"
/* linux_dirent64's fixed part: d_ino 8, d_off 8, d_reclen 2, d_type 1 */
#define DIRENT_HEAD 19u
#define DT_DIR_TYPE 4u

static bool name_is_pid(const char *name, size_t len)
{
	if (len == 0 || name[0] < '1' || name[0] > '9')
		return false;
	for (size_t i = 1; i < len; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

static bool name_is_dot(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

void proc_root_dirs_feed(struct proc_root_dirs *d, const char *buf, size_t len)
{
	size_t off = 0;

	while (!d->bad && !d->pid_seen && off < len) {
		uint16_t reclen;
		if (len - off < DIRENT_HEAD + 1) {
			d->bad = true;
			break;
		}
		memcpy(&reclen, buf + off + 16, sizeof reclen);
		if (reclen < DIRENT_HEAD + 1 || reclen > len - off) {
			d->bad = true;
			break;
		}
		const char *name = buf + off + DIRENT_HEAD;
		const char *nul = memchr(name, '\0', reclen - DIRENT_HEAD);
		if (!nul) {
			d->bad = true;
			break;
		}
		size_t nlen = (size_t)(nul - name);
		if (name_is_pid(name, nlen))
			d->pid_seen = true;
		else if ((uint8_t)buf[off + 18] == DT_DIR_TYPE && !name_is_dot(name, nlen))
			d->dirs++;
		off += reclen;
	}
}

/* Whether this root's /proc is one whose link count is its listing's count
 * (the comment at the top); asked once per root. */
static bool countable(struct proc_cache *c, int procfd)
{
	if (c->countable == 0) {
		struct statfs sf;
		char link[64];
		unsigned f = proc_mount_flags(c);
		ssize_t n = sysroot_proc_readlinkat(procfd, "self/ns/pid", link, sizeof link);
		bool ok = fstatfs(procfd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC_NUM;
		ok = ok && n == (ssize_t)strlen(INIT_PID_NS_LINK) && memcmp(link, INIT_PID_NS_LINK, (size_t)n) == 0;
		ok = ok && f != PROC_MOUNT_UNKNOWN && !(f & PROC_MOUNT_SUBSET);
		ok = ok && (geteuid() == 0 || !(f & (PROC_MOUNT_INVISIBLE | PROC_MOUNT_NOACCESS)));
		c->countable = ok ? 2 : 1;
	}
	return c->countable == 2;
}

/* The static folders, by a listing cut at the first PID; -1 if that fails. */
static int static_dirs(int procfd)
{
	/* 8-aligned: the kernel writes 8-aligned records into it */
	_Alignas(8) char buf[1024];
	struct proc_root_dirs d = {0};

	/* a descriptor of its own: the caller's keeps its position */
	int dfd = sysroot_proc_openat(procfd, ".", O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return -1;
	while (!d.pid_seen && !d.bad) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
		if (n <= 0)
			break;
		proc_root_dirs_feed(&d, buf, (size_t)n);
	}
	close(dfd);
	return d.bad || !d.pid_seen || d.dirs > INT_MAX ? -1 : (int)d.dirs;
}

int proc_count_processes(struct proc_cache *c, int procfd, uint64_t now)
{
	struct stat st;

	if (!countable(c, procfd) || fstat(procfd, &st) != 0)
		return -1;
	/* the static folders change only when a module registers one at the
	 * root: read again once a listing period, the link count every time */
	if (c->root_dirs < 0 || now - c->root_dirs_at_ns >= PROC_LIST_PERIOD_NS || now < c->root_dirs_at_ns) {
		c->root_dirs = static_dirs(procfd);
		c->root_dirs_at_ns = now;
	}
	if (c->root_dirs < 0 || st.st_nlink < 2u + (unsigned)c->root_dirs + 1u)
		return -1;
	uint64_t count = (uint64_t)st.st_nlink - 2u - (unsigned)c->root_dirs;
	return count <= INT_MAX ? (int)count : -1;
}
