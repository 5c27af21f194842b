/* The options of the procfs a /proc descriptor is on, asked of the kernel:
 * statx(2) gives the descriptor's unique mount ID (STATX_MNT_ID_UNIQUE,
 * Linux 6.8) and statmount(2) that mount's super block options (mnt_opts,
 * Linux 6.11), the same list mountinfo prints after " - proc proc rw".
 * /proc/self/mountinfo renders every mount of the namespace to say the same
 * (40 – 80 us for 20 mounts on a VM, more on a desktop with snaps); these two
 * calls cost a few. Only for the live /proc: a tree under GPUTASKMAN_ROOT has
 * its mountinfo as a file. Older kernels, and a mount statmount may not
 * see, answer an error: the caller then reads mountinfo. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc_internal.h"

/* The kernel's ABI, written here: Debian 12's headers predate both calls. */
#define STATX_MNT_ID_UNIQUE_BIT 0x4000u
#define STATMOUNT_SB_BASIC_BIT 0x1u
#define STATMOUNT_MNT_OPTS_BIT 0x80u
#define STATMOUNT_SUPPORTED_MASK_BIT 0x1000u
#define PROC_SUPER_MAGIC_VALUE 0x9fa0u
#ifndef SYS_statmount
#define SYS_statmount 457 /* the same number on every architecture */
#endif

/* struct statx up to stx_mnt_id, padded to its 256 bytes */
struct statx_head {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	uint8_t times[64];
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint64_t spare[13];
};
_Static_assert(offsetof(struct statx_head, mnt_id) == 144 && sizeof(struct statx_head) == 256, "struct statx");

/* struct mnt_id_req as first published (MNT_ID_REQ_SIZE_VER0) */
struct mount_id_req {
	uint32_t size, spare;
	uint64_t mnt_id, param;
};

/* struct statmount's fixed part; its strings follow it, mnt_opts an offset
 * into them */
struct statmount_head {
	uint32_t size, mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major, sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags, fs_type;
	uint64_t mnt_id, mnt_parent_id;
	uint32_t mnt_id_old, mnt_parent_id_old;
	uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master, propagate_from;
	uint32_t mnt_root, mnt_point;
	uint64_t mnt_ns_id;
	uint32_t fs_subtype, sb_source;
	uint32_t opt_num, opt_array, opt_sec_num, opt_sec_array;
	uint64_t supported_mask; /* STATMOUNT_SUPPORTED_MASK: Linux 6.15 */
	uint32_t uidmap_num, uidmap, gidmap_num, gidmap;
	uint64_t spare2[43];
};
_Static_assert(offsetof(struct statmount_head, supported_mask) == 144 && sizeof(struct statmount_head) == 512,
	       "struct statmount");

bool proc_mount_flags_of_fd(int procfd, unsigned *flags)
{
	struct statx_head sx;
	/* the options of a procfs are a few dozen bytes (gid=, hidepid=, subset=) */
	_Alignas(8) char buf[sizeof(struct statmount_head) + 512];
	struct statmount_head *sm = (struct statmount_head *)buf;

	memset(&sx, 0, sizeof sx);
	if (syscall(SYS_statx, procfd, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE_BIT, &sx) != 0 ||
	    !(sx.mask & STATX_MNT_ID_UNIQUE_BIT))
		return false;
	struct mount_id_req req = {.size = sizeof req, .mnt_id = sx.mnt_id,
				   .param = STATMOUNT_SB_BASIC_BIT | STATMOUNT_MNT_OPTS_BIT | STATMOUNT_SUPPORTED_MASK_BIT};
	memset(buf, 0, sizeof buf);
	if (syscall(SYS_statmount, &req, sm, sizeof buf, 0) != 0)
		return false;
	if (!(sm->mask & STATMOUNT_SB_BASIC_BIT) || sm->sb_magic != PROC_SUPER_MAGIC_VALUE)
		return false;
	if (!(sm->mask & STATMOUNT_MNT_OPTS_BIT)) {
		/* none written: the options are empty where the kernel says it
		 * knows them, unknown on a kernel that cannot say (6.8 – 6.14) */
		bool knows = (sm->mask & STATMOUNT_SUPPORTED_MASK_BIT) && (sm->supported_mask & STATMOUNT_MNT_OPTS_BIT);
		*flags = 0;
		return knows;
	}
	size_t end = sm->size < sizeof buf ? sm->size : sizeof buf;
	size_t at = sizeof(struct statmount_head) + (size_t)sm->mnt_opts;
	if (at >= end)
		return false;
	size_t on = strnlen(buf + at, end - at);
	if (at + on >= end)
		return false; /* no terminating NUL inside what the kernel wrote */
	*flags = proc_mount_opts_flags(buf + at, on);
	return true;
}
