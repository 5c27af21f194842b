/* The live view's scan between full listings of /proc (proc_scan_internal.h):
 * the priority PIDs held by pidfds or looked up by inode, then their parents. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_scan_internal.h"

/* The inode of /proc/PID, or 0 when it is gone. */
static ino_t pid_ino(int procfd, uint32_t pid)
{
	char name[16];
	struct stat st;
	snprintf(name, sizeof name, "%u", pid);
	return fstatat(procfd, name, &st, 0) == 0 ? st.st_ino : 0;
}

/* Whether PID is to be read, and its /proc inode where a later scan needs
 * it (the live view: a PID reused shows as a new inode). A scan that keeps
 * nothing (a one-shot run) reads the stat alone: a gone PID's read fails and
 * it gets no row, so no fstatat a process. */
static bool look_up(const struct scan_state *s, uint32_t pid, ino_t *ino)
{
	*ino = s->trust_ino ? pid_ino(s->procfd, pid) : 0;
	return !s->trust_ino || *ino != 0;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Held stat fds stay below this descriptor number: hundreds of GPU processes
 * never take the descriptors the detail reads need. */
#define HELD_STAT_FD_MAX 512

/* A priority PID known by its /proc inode gets a pidfd: the process it names
 * cannot change while the pidfd does not report an exit (a PID is reused
 * only after its process is gone), so one poll replaces an fstatat per PID.
 * The inode is checked again after the opens: a reuse in between shows. Its
 * /proc/PID/stat is kept open beside it: an open procfs file stays bound to
 * the process it was opened for (a read after that process exits fails with
 * ESRCH, never shows a new process under the PID), so a later stat read is
 * a pread at 0 of the same file, without the open's path walk and the close. */
static void hold_pidfd(int procfd, struct proc_entry *e)
{
	char path[32];

	if (e->pidfd_slot || !e->ino || e->gen == 0)
		return;
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)e->pid, 0);
	if (fd < 0)
		return; /* before Linux 5.3, or no more fds: looked up by inode */
	snprintf(path, sizeof path, "%u/stat", e->pid);
	int sfd = sysroot_proc_openat(procfd, path, O_RDONLY | O_NOCTTY);
	if (sfd >= HELD_STAT_FD_MAX) {
		close(sfd);
		sfd = -1;
	}
	if (pid_ino(procfd, e->pid) != e->ino) {
		close(fd);
		if (sfd >= 0)
			close(sfd);
		return;
	}
	e->pidfd_slot = fd + 1;
	e->stat_fd_slot = sfd + 1;
}

/* The live view between full listings, and any priority-only scan of a
 * /proc that counts itself (proc_count.c): the priority PIDs (a poll of
 * their pidfds, an fstatat of /proc/PID for those without one), then their
 * parents by inode; everything else keeps its entry (no eviction) and the
 * count the caller put in listed_total (the last listing's, or the link
 * count's). */
void scan_targeted(struct scan_state *s)
{
	struct proc_cache *c = s->c;
	size_t n = 0;
	ino_t ino;

	for (size_t i = 0; i < s->n_priority; i++) {
		struct proc_entry *e = proc_cache_find(c, s->priority[i]);
		if (e && e->pidfd_slot && (i == 0 || s->priority[i] != s->priority[i - 1])) {
			c->pfds = grow_array(c->pfds, sizeof *c->pfds, &c->pfds_cap, n);
			c->pfds[n++] = (struct pollfd){.fd = e->pidfd_slot - 1, .events = POLLIN};
		}
	}
	if (n && poll(c->pfds, (nfds_t)n, 0) < 0)
		for (size_t k = 0; k < n; k++)
			c->pfds[k].revents = POLLERR; /* no answer: look them up */
	for (size_t i = 0, k = 0; i < s->n_priority; i++) {
		if (i > 0 && s->priority[i] == s->priority[i - 1])
			continue;
		struct proc_entry *e = proc_cache_find(c, s->priority[i]);
		if (e && e->pidfd_slot) {
			bool exited = c->pfds[k++].revents != 0;
			if (!exited) {
				scan_push_item(s, e->pid, e->ino);
				continue;
			}
			proc_entry_drop_fds(e);
		}
		if (look_up(s, s->priority[i], &ino))
			scan_push_item(s, s->priority[i], ino);
	}
	scan_items(s);
	/* a pidfd pays off from the next refresh on: none for a one-shot run */
	for (size_t i = 0; s->trust_ino && i < s->n_items; i++) {
		struct proc_entry *e = proc_cache_find(c, s->items[i].pid);
		if (e && e->gen == c->gen)
			hold_pidfd(s->procfd, e);
	}
	s->parents_known = true;
	c->n_items = 0;
	for (size_t i = 0; i < s->n_parents; i++)
		if ((i == 0 || s->parents[i] != s->parents[i - 1]) && !is_priority(s, s->parents[i]) &&
		    look_up(s, s->parents[i], &ino))
			scan_push_item(s, s->parents[i], ino);
	s->n_items = c->n_items;
	if (c->n_items)
		scan_items(s);
	if (s->snap->n_procs_total < c->listed_total)
		s->snap->n_procs_total = c->listed_total;
	if (s->snap->n_procs_uninspectable < c->listed_uninspectable)
		s->snap->n_procs_uninspectable = c->listed_uninspectable;
}
