/* The Linux /proc collector: lists processes, keeps their details cached by
 * (PID, start time), and joins listening loopback TCP sockets to them. Every
 * path goes through core/sysroot (GPUTASKMAN_ROOT) so tests replay trees.
 *
 * What a scan reads:
 * - every refresh, per process: /proc/PID/stat only (one open + read + fstat;
 *   uid is the owner of that file, i.e. the effective uid for a dumpable
 *   process), so a steady refresh costs about one small read per process;
 * - for a new (PID, start time), and when the rescan rule fires (resident
 *   memory moved by 64 MiB or 10% since the last read, or 2 minutes passed;
 *   at most once per 5 s per process): cmdline (first 128 KiB), exe, cwd,
 *   status (for the effective uid of non-dumpable processes, whose /proc
 *   files root owns), maps, environ (first 64 KiB, cut at the last whole
 *   entry; with defer_environ only when asked, which the collector does for
 *   processes in which a runtime was found) and the socket fds; with
 *   details_priority_only (the collector's default) only for the priority
 *   PIDs; their parents get their stat, and every other process is counted
 *   from the listing, its stat unread (unless /proc has hidepid=1 and we are
 *   not root: then every stat is read, so the refused ones are counted;
 *   proc_mounts.c). Kernel
 *   threads get an empty detail without these reads. A cold scan of many
 *   processes spreads these reads over up to 4 threads (core/parallel.h). This slow work stops when the budget
 *   runs out; the rest keep their cached detail (new ones get none yet) and
 *   snap->partial_scan is set; they are read on a later refresh.
 *
 * Which processes are listed and what "uninspectable" means:
 * - a process whose stat can be read is listed (a row in the snapshot); one
 *   whose stat is refused (hidepid=1) counts in n_procs_total and
 *   n_procs_uninspectable without a row;
 * - its detail is partial when the kernel refuses some files (maps, exe, cwd,
 *   environ and fd need ptrace-read access: another user's process when we
 *   are not root): argv is still filled from cmdline, the refused parts are
 *   NULL/empty, and the process counts in n_procs_uninspectable;
 * - a process whose stat or cmdline is gone mid-read (ENOENT or ESRCH) has
 *   exited: it is dropped without a row or a message. Any other file missing
 *   while stat is still there (a fixture tree without maps or fd/) is simply
 *   absent from the detail; when stat is gone too, the process is dropped.
 *   n_procs_total counts the processes listed plus the refused ones.
 *
 * Ports: listening sockets on 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104 only
 * (a wildcard 0.0.0.0 or :: listener is not counted), in this process's network
 * namespace, joined by inode with the process's fd links "socket:[INODE]". The
 * listening table is read at most once per scan and only when some process's
 * fds are read: under the real root through NETLINK_SOCK_DIAG, LISTEN state
 * only (reading /proc/net/tcp walks the whole established hash: 0.5 ms or more
 * per pass even when idle); under a fixture root, or when sock_diag fails,
 * from <root>/proc/net/tcp and tcp6. No fd is read when nothing listens. */
#ifndef GTM_PROC_H
#define GTM_PROC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "platform/platform_api.h"
#include "proc_parse.h"


/* A steady refresh of the real /proc re-reads a known process's stat (RSS,
 * state) only every 2-3.75 s, staggered by PID: the inode of /proc/PID, which
 * readdir returns for free, changes when a PID is reused (procfs makes a new
 * inode for a new task), so identity never rests on a stale read. Fixture
 * roots, whose folders keep their inode when a test rewrites them, are always
 * read in full. With details_priority_only a process that is not a priority
 * PID keeps the stat of its first sight for as long as its inode stays: no
 * view shows it (--all and the live view's `a` turn the rule off). Such a
 * scan lists /proc itself only every PROC_LIST_PERIOD_NS (a listing of 400
 * PIDs costs more than the rest of a steady refresh: 0.4 ms, mostly the
 * kernel's dentry lookups; with 1,000 PIDs about 4 ms, two fifths of the
 * collection thread at 10 s); in between it looks up the priority PIDs and
 * their parents by their /proc inode, evicts nothing and keeps the last
 * listing's n_procs_total and n_procs_uninspectable. Nothing a row shows
 * comes from the listing: only that count (the help screen's) and the
 * eviction of entries no source lists any more. Where /proc counts itself
 * (proc_count.c: the initial PID namespace's procfs, hiding no PID from us)
 * no priority-only scan lists it at all, the one-shot run's neither: the
 * count comes from its root folder's link count at every scan, and an entry
 * no scan touched for a period is let go instead. */
#define PROC_STAT_PERIOD_NS (2000ull * 1000 * 1000)
#define PROC_LIST_PERIOD_NS (30ull * 1000000000ull)
#define PROC_STAT_STAGGER_NS (250ull * 1000 * 1000)

/* Rescan rule (issue 2): resident memory change, or age, since the last read
 * of a process's maps. */
#define PROC_RESCAN_RSS_BYTES (64ull * 1024 * 1024)
#define PROC_RESCAN_RSS_PERCENT 10
#define PROC_RESCAN_AGE_NS (120ull * 1000000000ull)
/* ...but a process's details are read at most once per 5 s: a small process
 * whose resident set wobbles by 10% would otherwise be rescanned on every
 * refresh (measured: a growing `perf record` was, each time). */
#define PROC_RESCAN_MIN_INTERVAL_NS (5ull * 1000000000ull)
#define PROC_CMDLINE_MAX (128u * 1024u)
#define PROC_MAPS_MAX_PATHS 8192

#endif
