/* Shared between the files of src/platform/linux; not part of its public surface. */
#ifndef GTM_PROC_INTERNAL_H
#define GTM_PROC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <sys/types.h>

#include "core/parallel.h"
#include "core/snapshot.h"
#include "proc.h"

#define PROC_MAX_PORTS ((int)(sizeof(((struct gtm_process *)0)->ports) / sizeof(uint16_t)))
#define PROC_IO_BUF (PROC_CMDLINE_MAX + 1u) /* holds a whole bounded cmdline */

/* ---- line splitting (proc_lines.c) ---- */
typedef void (*proc_line_fn)(const char *line, size_t len, void *ctx);
/* Calls fn for each '\n'-separated line of buf (the last may lack '\n'). */
void proc_for_each_line(const char *buf, size_t len, proc_line_fn fn, void *ctx);
/* Streams an open file through io (cap bytes) line by line; a line longer than
 * cap is skipped whole. Returns 0, or -1 with errno on a read error. */
int proc_fd_for_each_line(int fd, char *io, size_t cap, proc_line_fn fn, void *ctx);
/* "PID/what", the path of a process's file relative to the /proc folder's
 * fd, into out (cut to n - 1 bytes, as snprintf "%u/%s" would): one per file
 * a scan opens, where snprintf cost 900 instructions a call. */
void proc_pid_file(char *out, size_t n, uint32_t pid, const char *what);

/* ---- distinct mapped paths (proc_paths.c) ---- */
struct proc_path_list {
	char **v;
	size_t n, cap;
	uint32_t *slots;         /* open addressing: index+1 into v, 0 = empty */
	size_t n_slots;
};
/* Adds the path of one maps line when it names a file not yet in the list. */
void proc_path_list_add_maps_line(struct proc_path_list *l, const char *line, size_t len);
/* Adds path (n bytes, a file's as proc_maps_path_is_file says) unless the
 * list holds it or is full. Its index in the list, or SIZE_MAX (a full list
 * without it, a NUL inside). */
size_t proc_path_list_add(struct proc_path_list *l, const char *path, size_t n);
/* The distinct file paths of an open /proc/PID/maps through the PROCMAP_QUERY
 * ioctl (proc_maps_query.c), which reads no text of anonymous ranges and
 * asks for a name only where the file changes. 0: done; 1: this kernel or
 * file has no such ioctl (nothing added: read the text); -1 with errno: a
 * failure (ESRCH: the process has exited). name is cap bytes of scratch.
 * ask (or NULL) asks for more. */
struct maps_spans;
struct proc_maps_ask {
	/* the runs of files learned so far (or NULL): added to, and stepped
	 * over where this process's ranges match one (proc_maps_spans.h) */
	struct maps_spans *spans;
	uint64_t covering;       /* an address (0: none) whose file to say: */
	size_t covering_path;    /* out: that file's index in the list, SIZE_MAX if none */
};
int proc_maps_query(int fd, char *name, size_t cap, struct proc_path_list *l, struct proc_maps_ask *ask);
/* Parses a whole maps buffer into l (pure; used by tests and fuzzing). */
void proc_maps_parse(const char *buf, size_t len, struct proc_path_list *l);
/* Hands the vector over (caller frees each string and the array). */
char **proc_path_list_take(struct proc_path_list *l, size_t *n);
void proc_path_list_free(struct proc_path_list *l);

/* ---- listening loopback sockets (proc_ports.c, proc_diag.c) ---- */
#define PROC_MAX_LISTENERS 65536 /* bounds a hostile or huge table */
struct proc_listener {
	uint64_t inode;
	uint16_t port;
};
struct proc_listeners {
	struct proc_listener *v; /* sorted by inode after proc_listeners_finish */
	size_t n, cap;
	uint64_t gen;            /* the scan generation they were read in */
	uint64_t sig;            /* a hash of the (inode, port) set: unchanged, so is every port */
	bool loaded;
};
/* Adds one /proc/net/tcp(6) line when it is a loopback listener. */
void proc_listeners_add_line(struct proc_listeners *t, const char *line, size_t len);
void proc_listeners_finish(struct proc_listeners *t);
int proc_listeners_port(const struct proc_listeners *t, uint64_t inode);
/* Fills t (cleared first): through sock_diag under the real root, else (or
 * when that fails) from <procfd>/net/tcp and tcp6. */
void proc_listeners_load(struct proc_listeners *t, int procfd, char *io, size_t cap);
void proc_listeners_load_files(struct proc_listeners *t, int procfd, char *io, size_t cap);
/* sock_diag (proc_diag.c): 0, or -1 when unavailable (t then empty). */
int proc_listeners_load_diag(struct proc_listeners *t, char *io, size_t cap);
/* Parses one recv() of a sock_diag dump into t: 1 at NLMSG_DONE, 0 for more,
 * -1 on an error message or a malformed buffer. */
#define PROC_DIAG_SEQ 0x67746d31u /* "gtm1": our requests' sequence number */
int proc_diag_parse(const void *buf, size_t len, struct proc_listeners *t);
void proc_listeners_free(struct proc_listeners *t);
/* Joins PID's socket fds with t: sorted distinct ports. Returns 0, or -1 with
 * errno (ENOENT when the fd folder is gone, EACCES when refused). */
int proc_read_ports(int procfd, uint32_t pid, const struct proc_listeners *t, uint16_t *ports, int *n);

/* ---- uid -> user name (proc_users.c) ---- */
struct proc_user {
	uid_t uid;
	char name[33];
};
struct proc_users {
	struct proc_user *v;
	size_t n, cap;
	char *passwd;            /* <root>/etc/passwd under a non-"/" root */
	size_t passwd_len;
	bool passwd_tried;
};
const char *proc_users_name(struct proc_users *u, uid_t uid);
void proc_users_clear(struct proc_users *u);

/* ---- the cache (proc_cache.c) ---- */
struct proc_entry {
	uint32_t pid;
	uint64_t start_time;
	uint64_t gen;            /* last scan that saw it */
	struct gtm_proc_detail *detail;
	bool detailed;           /* detail read at least once */
	bool denied;             /* the kernel refused part of it */
	uid_t stat_uid;          /* owner of /proc/PID/stat at the last scan */
	bool has_status_uid;
	uid_t status_uid;        /* effective uid from status, read when stat_uid is 0 */
	ino_t ino;               /* inode of /proc/PID at the last stat read (0 unknown) */
	uint64_t ports_at_ns;    /* when proc_refresh_ports last checked them (the cache's clock) */
	uint64_t ports_fds_at_ns; /* when it last read the fds for them */
	uint64_t ports_sig;      /* the listeners' sig at that read */
	bool ports_read;         /* ports[] holds a reading (at a detail read or a refresh) */
	bool have_stat;
	uint64_t stat_at_ns;     /* when last_stat was read (the cache's clock) */
	struct proc_stat last_stat;
	uint64_t detail_rss;     /* resident bytes when the detail was read */
	uint64_t detail_at_ns;
	uint16_t ports[PROC_MAX_PORTS];
	int n_ports;
	int pidfd_slot;          /* a pidfd of this process + 1 (0: none): live priority PIDs only */
	int stat_fd_slot;        /* its /proc/PID/stat kept open + 1 (0: none), beside the pidfd */
};

/* One PID of a scan (proc_scan.c): what its phases found. Most of a
 * listing's PIDs are only counted (no GPU, no GPU runner's parent), so the
 * stat read for the others is kept apart (item_stat), and an item is small. */
struct scan_item {          /* 32 bytes: one a listed PID, the ino first */
	ino_t ino;               /* of /proc/PID, from readdir (0 unknown) */
	uint32_t pid;
	uint32_t entry;          /* index into the cache's entries once stats are applied */
	uint32_t st;             /* index into the cache's item_stats; SCAN_NO_STAT when counted */
	uint8_t stat;            /* enum stat_result */
	uint8_t detail;          /* enum item_detail */
	int held_slot;           /* the entry's stat_fd_slot, for the stat phase (0: open by path) */
};
#define SCAN_NO_STAT UINT32_MAX

/* The stat of a scan item that is read or kept (not only counted). */
struct item_stat {
	struct proc_stat st;
	uid_t uid;
};

struct proc_cache {
	struct proc_entry *entries;
	size_t n, cap;
	int32_t *index;          /* open addressing by pid: entry index, -1 empty */
	size_t n_index;
	uint64_t gen;
	char root[4096];         /* the prefix the entries came from */
	struct proc_listeners listeners;
	struct proc_users users;
	char *io;                /* PROC_IO_BUF bytes for streamed reads */
	char *worker_io[PARALLEL_MAX_WORKERS]; /* the same, one per scan worker ([0] is io) */
	struct scan_item *items; /* the scan's PIDs, kept between scans */
	size_t n_items, items_cap;
	struct item_stat *item_stats; /* the stats of one scan_items pass (scan_item.st) */
	size_t n_item_stats, item_stats_cap;
	uint32_t *counted;       /* the PIDs the last scan counted without an entry, sorted */
	size_t n_counted, counted_cap;
	uint64_t counted_gen;    /* the scan that listed them */
	uint32_t *parents;       /* a scan's scratch: its priority PIDs' parents */
	size_t parents_cap;
	uint64_t listed_at_ns;   /* the last full listing of /proc by a live priority-only scan */
	int listed_total;        /* the processes it saw */
	int listed_uninspectable; /* and of those, the uninspectable */
	struct pollfd *pfds;     /* a targeted scan's scratch: the pidfds it polls */
	size_t pfds_cap;
	long page_size;
	uint64_t (*clock)(void); /* monotonic ns for the rescan rule (tests replace it) */
	uint64_t stat_reads;     /* /proc/PID/stat reads so far (tests check the steady path) */
	uint64_t listings;       /* full listings of /proc so far (tests check the counted path) */
	int kept_procfd;         /* /proc kept open between scans (proc_cache_procfd), or -1 */
	struct maps_spans *spans; /* learned runs of mapped files, shared by the workers */
	int stat_refusal;        /* proc_stat_may_be_refused: 0 not asked yet, 1 no, 2 yes */
	unsigned mount_flags;    /* proc_mount_flags, once mount_flags_known */
	bool mount_flags_known;
	int countable;           /* proc_count_processes may count: 0 not asked yet, 1 no, 2 yes */
	int pidfd_uid;           /* proc_pidfd_uid_usable: 0 not asked yet, 1 no, 2 yes */
	int root_dirs;           /* its static folders (-1: not read) */
	uint64_t root_dirs_at_ns; /* when they were read (the cache's clock) */
	uint64_t evict_gen;      /* counted scans: the gen of the last period's eviction */
	uint64_t evict_at_ns;    /* and when it ran (the cache's clock) */
};

struct proc_entry *proc_cache_find(struct proc_cache *c, uint32_t pid);
/* What an entry holds (its detail, its pidfd), let go. */
void proc_entry_release(struct proc_entry *e);
/* Its pidfd and kept stat fd closed (the process exited, or matters no more). */
void proc_entry_drop_fds(struct proc_entry *e);
struct proc_entry *proc_cache_insert(struct proc_cache *c, uint32_t pid, uint64_t start_time);
/* Room for `more` inserts in one allocation (a listing's new PIDs): no chain
 * of doublings, each copying the array into fresh pages. */
void proc_cache_reserve(struct proc_cache *c, size_t more);
void proc_entry_reset(struct proc_entry *e, uint64_t start_time);
void proc_cache_evict(struct proc_cache *c);
/* The entries no scan since scan `gen` touched, let go (proc_cache_evict:
 * those the last scan did not touch). */
void proc_cache_evict_before(struct proc_cache *c, uint64_t gen);
void proc_cache_check_root(struct proc_cache *c);
/* The root's /proc folder, opened once and kept (-1 if it cannot be). */
int proc_cache_procfd(struct proc_cache *c);
/* Makes worker_io[0..workers) usable. */
void proc_cache_worker_io(struct proc_cache *c, int workers);

/* ---- whether a stat may be refused (proc_mounts.c) ---- */
/* Whether the mount at /proc in a mountinfo text has hidepid=1 (noaccess). */
bool proc_mountinfo_hides_pids(const char *buf, size_t len);
/* The processes of this /proc without listing them (proc_count.c): its root
 * folder's link count less its static folders, where that is the listing's
 * count (a procfs of the initial PID namespace that hides no PID from us);
 * -1 elsewhere: then only a listing counts. procfd: the root's /proc; now:
 * the cache's clock (the static folders are read again once a period). */
int proc_count_processes(struct proc_cache *c, int procfd, uint64_t now);

/* The options of the mount at /proc that change what a listing shows:
 * PROC_MOUNT_* bits, or PROC_MOUNT_UNKNOWN when mountinfo cannot be read.
 * proc_mountinfo_flags is the pure parse; proc_mount_flags reads the root's
 * once. */
#define PROC_MOUNT_NOACCESS 1u  /* hidepid=1: listed, files refused */
#define PROC_MOUNT_INVISIBLE 2u /* hidepid=2 or 4: others' processes not listed */
#define PROC_MOUNT_SUBSET 4u    /* subset=pid: no static entries */
#define PROC_MOUNT_UNKNOWN 0x80000000u
unsigned proc_mountinfo_flags(const char *buf, size_t len);
/* PROC_MOUNT_* of a comma-separated option list (mountinfo's super options) */
unsigned proc_mount_opts_flags(const char *opts, size_t len);
/* The flags of the procfs procfd is on, asked of the kernel (statx and
 * statmount, proc_mount_query.c); false where it cannot say. */
bool proc_mount_flags_of_fd(int procfd, unsigned *flags);
/* The live /proc's by proc_mount_flags_of_fd, a tree's (or an older
 * kernel's) by its mountinfo; once per root. */
unsigned proc_mount_flags(struct proc_cache *c);
/* Whether some /proc/PID/stat may be refused to us (hidepid=1 and not
 * root): then only reading every stat counts the uninspectable ones. Asked
 * once per root. */
bool proc_stat_may_be_refused(struct proc_cache *c);

/* ---- a process's effective uid through a pidfd (proc_pidfd_uid.c) ---- */
/* Whether this root's /proc is the real one of our PID namespace, where a
 * pidfd of a listed PID is that process's; asked once per root. */
bool proc_pidfd_uid_usable(struct proc_cache *c, int procfd);
/* PID's effective uid (PIDFD_GET_INFO). 0; 1: this kernel cannot say (read
 * status); -1 with errno (ESRCH: gone, or a zombie). Thread-safe. */
int proc_pidfd_euid(uint32_t pid, uid_t *euid);

/* ---- reading one process's detail (proc_detail.c) ---- */
enum proc_detail_result { PROC_DETAIL_OK = 0, PROC_DETAIL_GONE };
struct proc_detail_how {
	const struct proc_listeners *ports; /* the scan's listeners table, loaded beforehand; NULL: no ports */
	bool kthread;            /* an empty detail without reads */
	bool defer_environ;      /* environ is left for proc_detail_load_environ */
	bool pidfd_uid;          /* proc_pidfd_uid_usable: a root-owned process's uid by pidfd */
	struct maps_spans *spans; /* the cache's learned runs of mapped files (proc_maps_query) */
	uint64_t start_code;     /* stat's startcode (0: unknown): the exe is the file mapped there */
};
/* Reads cmdline, exe, cwd, the uid behind root-owned files, maps, environ
 * and the ports into e (replacing its detail) as how says; io is PROC_IO_BUF
 * bytes of the caller's. Touches nothing but e and io, so scan workers run
 * it side by side on distinct entries. */
enum proc_detail_result proc_detail_read(int procfd, char *io, const struct proc_detail_how *how,
					 struct proc_entry *e);
/* The listeners table for this scan generation, read once. */
const struct proc_listeners *proc_cache_listeners(struct proc_cache *c, int procfd);

#endif
