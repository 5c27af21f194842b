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
 *   PIDs, every other process getting what ps reads, its stat. Kernel
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
#include "proc/proc_parse.h"

struct proc_cache;

struct proc_scan_opts {
	uint64_t budget_ns; /* 0 = no budget: one-shot output scans fully */
	uint32_t only_pid;  /* scan just this PID and its parent (inspect PID); 0 = every process */
	const uint32_t *priority_pids; /* sorted: PIDs whose details are read even past the budget */
	size_t n_priority;             /* (the PIDs a GPU driver lists: they are the rows shown first) */
	bool ports_on_demand; /* list no process's fds for ports while scanning: the caller asks
	                       * proc_refresh_ports for the rows that matter (GPU and AI) */
	bool defer_environ;   /* read no environ while scanning: the caller asks
	                       * proc_detail_load_environ for the rows that need it */
	bool details_priority_only; /* details only for priority_pids, and rows only for them and
	                             * their parents (the rest only counted in n_procs_total); a
	                             * parent's row comes from its stat alone, as ps reads it
	                             * (detail NULL, a cached one dropped): proc_detail_load
	                             * reads one later */
	bool pair_if_missing; /* with details_priority_only: a priority PID the listing lacks (a
	                       * host PID in a container) turns it off for this scan, since
	                       * pairing looks at every process */
};

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
 * kernel's dentry lookups); in between it looks up the priority PIDs and
 * their parents by their /proc inode, evicts nothing and keeps the last
 * listing's n_procs_total and n_procs_uninspectable. */
#define PROC_STAT_PERIOD_NS (2000ull * 1000 * 1000)
#define PROC_LIST_PERIOD_NS (10ull * 1000000000ull)
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
#define PROC_ENVIRON_MAX (64u * 1024u)
#define PROC_CMDLINE_MAX (128u * 1024u)
#define PROC_MAPS_MAX_PATHS 8192

struct proc_cache *proc_cache_new(void);
void proc_cache_free(struct proc_cache *c);

/* Scans /proc under GPUTASKMAN_ROOT. Appends one struct gtm_process per
 * listed process: pid, label (decimal pid), owner = GTM_OWNER_NONE,
 * start_time, ppid, uid, user, name (comm), rss (measured bytes), detail (a
 * new reference to the cached detail, or NULL), ports. Adds to
 * n_procs_total and n_procs_uninspectable; sets partial_scan when the budget
 * cut the detail reads short. o may be NULL (no budget).
 * Returns 0, or -1 when /proc itself cannot be listed (nothing appended). */
int proc_cache_scan(struct proc_cache *c, struct gtm_snapshot *snap, const struct proc_scan_opts *o);

/* Re-reads the listening loopback TCP ports of one process now (the collector
 * calls it every refresh for GPU and AI processes, since servers start
 * listening after loading a model). Reads the listening table at most once
 * per scan. Updates p->ports/n_ports and the cache. Returns 0, or -1 when the
 * process's fds cannot be read (exited, refused); p is then left as it was. */
int proc_refresh_ports(struct proc_cache *c, struct gtm_process *p);

/* Whether the last scan listed PID (a process of this /proc, not a thread);
 * false before the first scan. */
bool proc_cache_listed(struct proc_cache *c, uint32_t pid);
/* Whether any scan ran yet. */
bool proc_cache_scanned(const struct proc_cache *c);

/* Whether a PID is a process in this /proc (root-prefixed): its folder exists
 * and, where status is readable, its Tgid is itself (/proc/TID of a thread
 * resolves too, though readdir never lists it). */
bool proc_pid_exists(uint32_t pid);
/* proc_refresh_ports, unless this process's ports were read less than
 * max_age_ns ago (the live view refreshes GPU and AI rows' ports every
 * couple of seconds, not at every frame), or the set of listening loopback
 * sockets is what it was when its fds were last read, less than
 * PROC_PORTS_MAX_AGE_NS ago (a process gains or loses a port only with a
 * listener appearing or going, but for a socket passed to it or inherited:
 * the age bounds that). Returns 1 when it kept them. */
#define PROC_PORTS_MAX_AGE_NS (30ull * 1000000000ull)
int proc_refresh_ports_if_older(struct proc_cache *c, struct gtm_process *p, uint64_t max_age_ns);

/* Reads the detail of a row the scan left without one (details_priority_only)
 * now, and keeps it in the cache. Returns 0 (p->detail set, a new reference),
 * 1 when the kernel refused part of it (p->detail set too), or -1 when the
 * process is gone, was reused, or is not in the cache. */
int proc_detail_load(struct proc_cache *c, struct gtm_process *p);

/* Reads the environment a scan deferred (proc_scan_opts.defer_environ) into
 * p's detail, once: kept only if the PID's start time is still the row's
 * afterwards (an exited or reused PID leaves it empty). Does nothing when the
 * environment is already there. On the collector's thread only (the cache's
 * buffer); readers elsewhere see it appear atomically. */
void proc_detail_load_environ(struct proc_cache *c, const struct gtm_process *p);

#endif
