/* A process's effective uid through its pidfd (PIDFD_GET_INFO, Linux 6.13;
 * include/uapi/linux/pidfd.h, fs/pidfs.c), for the processes whose /proc
 * files are root's: root's own, and any non-dumpable one whoever runs it
 * (fs/proc/base.c task_dump_owner()), whose real owner only status says.
 * status is rendered whole for one line of it (about 11 us a process on a
 * VM); pidfd_open, the ioctl and a close cost about 5. Only on the real /proc
 * of our own PID namespace: a pidfd names a PID of ours, a tree under
 * GPUTASKMAN_ROOT or another namespace's procfs names other processes. */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "proc_internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* struct pidfd_info's first version (PIDFD_INFO_SIZE_VER0, 64 bytes); a
 * later kernel takes it and fills no newer field. Debian 12's headers
 * predate it, so the ABI is written here. */
struct pidfd_creds {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
_Static_assert(sizeof(struct pidfd_creds) == 64, "PIDFD_INFO_SIZE_VER0");

#define PIDFD_GET_INFO_IOCTL _IOWR(0xFF, 11, struct pidfd_creds)
#define PIDFD_INFO_CREDS_BIT (1ull << 1)

/* A kernel without the ioctl says so once: the rest read status. */
static atomic_bool unsupported;

bool proc_pidfd_uid_usable(struct proc_cache *c, int procfd)
{
	if (c->pidfd_uid == 0) {
		/* "self" in this procfs names our PID as its namespace numbers it */
		char link[16];
		ssize_t n = sysroot_prefix()[0] == '\0' ? sysroot_proc_readlinkat(procfd, "self", link, sizeof link - 1) : -1;
		bool ours = false;
		if (n > 0) {
			link[n] = '\0';
			unsigned long v = 0;
			const char *p = link;
			while (*p >= '0' && *p <= '9' && v < 1000000000ul)
				v = v * 10 + (unsigned long)(*p++ - '0');
			ours = *p == '\0' && v == (unsigned long)getpid();
		}
		c->pidfd_uid = ours ? 2 : 1;
	}
	return c->pidfd_uid == 2 && !atomic_load_explicit(&unsupported, memory_order_relaxed);
}

int proc_pidfd_euid(uint32_t pid, uid_t *euid)
{
	if (atomic_load_explicit(&unsupported, memory_order_relaxed))
		return 1;
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (fd < 0) {
		if (errno == ENOSYS) {
			atomic_store(&unsupported, true);
			return 1;
		}
		return -1; /* ESRCH: gone */
	}
	struct pidfd_creds info;
	memset(&info, 0, sizeof info);
	info.mask = PIDFD_INFO_CREDS_BIT;
	int r = ioctl(fd, PIDFD_GET_INFO_IOCTL, &info);
	int err = errno;
	close(fd);
	if (r != 0) {
		if (err == ENOTTY || err == EINVAL || err == EOPNOTSUPP) {
			atomic_store(&unsupported, true);
			return 1;
		}
		errno = err;
		return -1;
	}
	if (!(info.mask & PIDFD_INFO_CREDS_BIT))
		return 1; /* the kernel filled no creds: ask status */
	*euid = (uid_t)info.euid;
	return 0;
}
