/* Which processes hold DRM file descriptors: one pass over /proc/PID/fd
 * reading each fd's link target (/dev/dri/renderD*, /dev/dri/card*, /dev/kfd),
 * so a fixture tree replays it. The fd lists are cached per (pid, start time):
 * steady refreshes stat /proc/PID/stat and /proc/PID/fd (the start time is read
 * again only when they changed), re-check only the cached DRM fds, and re-list
 * a process when its fd count or fd folder changed, its cached fds moved, or
 * its list grew old. */
#ifndef GTM_DRM_SCAN_H
#define GTM_DRM_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum drm_fd_kind {
	DRM_FD_NONE = 0,
	DRM_FD_RENDER,  /* /dev/dri/renderD<N> */
	DRM_FD_PRIMARY, /* /dev/dri/card<N> */
	DRM_FD_KFD,     /* /dev/kfd: the process uses ROCm */
};

struct drm_fd_ref {
	int fd;
	enum drm_fd_kind kind;
	char node[16]; /* "renderD128", "card0"; "" for kfd */
};

/* What fstat says of a file, to tell whether it changed since. */
struct drm_file_key {
	uint64_t ino;
	int64_t mtime_ns, ctime_ns, size;
};

/* A process's /proc/PID/stat and /proc/PID/fd as last seen. On procfs both
 * inodes are made when first looked up and a reused PID gets new ones; in a
 * replayed tree an edit changes them. trusted: their times were older than
 * the moment they were taken by a margin, so a later change cannot hide
 * inside a coarse timestamp (git's "racy" rule). */
struct drm_proc_key {
	struct drm_file_key stat, fd;
	bool trusted;
};

struct drm_proc {
	uint32_t pid;
	uint64_t start_time;  /* /proc/PID/stat field 22 */
	struct drm_fd_ref *fds;
	int n_fds, cap_fds;
	uint32_t listed_gen;  /* refresh that last listed its fds; 0: never */
	int64_t fd_count;     /* st_size of /proc/PID/fd (fd count on Linux 6.2+), -1 unknown */
	struct drm_proc_key key; /* unchanged and trusted: stat is not read again */
	bool unlistable;      /* its fd folder could not be read (permission) */
	bool stale;           /* a cached DRM fd changed: list again now */
	bool count_changed;   /* its fd count changed since the last listing */
	bool skipped;         /* this refresh: never listed, no budget left */
	bool gone;            /* found exited during this refresh */
	bool kthread;         /* a kernel thread: no fds to list */
	bool kfd;             /* holds /dev/kfd */
};

struct drm_scan {
	struct drm_proc *procs; /* sorted by pid */
	size_t n, cap;
	uint32_t gen;
	/* the last refresh */
	int n_unlistable;       /* processes whose fds could not be listed */
	int n_skipped;          /* processes left unlisted by the budget */
	int n_listed;           /* processes listed this refresh */
	uint64_t listing_ns;    /* time spent listing fds */
};

void drm_scan_init(struct drm_scan *s);
void drm_scan_free(struct drm_scan *s);
/* One refresh. one_shot lists every process; otherwise listing stops once
 * budget_ns is spent (0: no limit) and never-listed processes are marked
 * skipped. Returns 0, or -1 when /proc cannot be read. */
int drm_scan_refresh(struct drm_scan *s, bool one_shot, uint64_t budget_ns);

/* Pure helpers, exposed for tests and fuzzing. */
/* Classifies a /proc/PID/fd link target; node gets "renderD128"/"card0". */
enum drm_fd_kind drm_fd_classify(const char *target, char *node, size_t cap);
/* Fields 22 (starttime) and 9 (flags) of /proc/PID/stat; the command name
 * may hold spaces and parentheses, so fields are counted from the last ')'. */
bool proc_stat_identity(const char *buf, size_t len, uint64_t *start_time, uint32_t *flags);

#endif
