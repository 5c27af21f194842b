/* Opening a path inside a folder as if that folder were "/": what keeps a
 * replay (GPUTASKMAN_ROOT) inside its tree. Symbolic links, absolute or
 * relative, are followed inside the folder, ".." stops at it, and at most
 * RESOLVE_MAX_LINKS links are followed (then ELOOP), as the kernel does.
 * platform/linux/sysroot_linux.c is the one caller outside the tests. */
#ifndef GTM_SYSROOT_RESOLVE_H
#define GTM_SYSROOT_RESOLVE_H

#include <stdbool.h>

#define RESOLVE_MAX_LINKS 40 /* the kernel's MAXSYMLINKS */

/* Opens path (absolute or not, both taken from rootfd) with openat's flags;
 * O_CLOEXEC is always added. O_NOFOLLOW keeps a last component that is a
 * link unfollowed (ELOOP, or with O_PATH the link itself). openat2 with
 * RESOLVE_IN_ROOT where the kernel has it, resolve_walk otherwise.
 * Returns an fd or -1 with errno set. */
int resolve_open(int rootfd, const char *path, int flags);

/* The two ways, callable on their own (tests run both on the same trees).
 * resolve_openat2 fails with ENOSYS on a kernel without openat2 (before 5.6). */
int resolve_openat2(int rootfd, const char *path, int flags);
/* A component-by-component walk: each component opened with O_NOFOLLOW
 * relative to the folder reached so far, each link read and its target walked
 * from rootfd (absolute) or from that folder (relative). ".." goes back to
 * the folder the walk came from, never above rootfd. */
int resolve_walk(int rootfd, const char *path, int flags);

/* Tests: true makes resolve_open walk even where openat2 exists. */
void resolve_force_walk(bool on);

#endif
