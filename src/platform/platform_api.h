/* The platform layer's interface: what gputaskman asks the operating system
 * about processes. Every OS folder (src/platform/linux/, src/platform/windows/)
 * implements these functions and has a platform.h that includes this header,
 * in the manner of htop's linux/Platform.h, darwin/Platform.h: generic code
 * includes "platform.h" and never asks which OS it runs on.
 *
 * A scan lists every process it can see as one struct gtm_process: pid, label,
 * start time (with the PID, the process's identity), parent, user, name,
 * resident memory, a cached detail (command line, exe, cwd, mapped files,
 * environment) and its listening loopback TCP ports. What the OS refuses
 * (another user's or a protected process) is counted in
 * n_procs_uninspectable and left empty, never guessed. */
#ifndef GTM_PLATFORM_API_H
#define GTM_PLATFORM_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "sources/source.h"

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

/* The Unix time in seconds from which struct gtm_process's start_time counts
 * (in sysconf(_SC_CLK_TCK) ticks): Linux's boot time (/proc/stat btime, under
 * GPUTASKMAN_ROOT), Windows' 1601-01-01 (a FILETIME); INT64_MIN when unknown.
 * With it a start time compares with file times (is a log newer than its
 * process?). */
int64_t proc_start_epoch_s(void);

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

/* The most of a process's environment kept, on every OS: its first
 * PROC_ENVIRON_MAX bytes (UTF-8, NUL-separated), cut after the last whole
 * entry. */
#define PROC_ENVIRON_MAX (64u * 1024u)

/* Reads the environment a scan deferred (proc_scan_opts.defer_environ) into
 * p's detail, once: kept only if the PID's start time is still the row's
 * afterwards (an exited or reused PID leaves it empty). Does nothing when the
 * environment is already there. On the collector's thread only (the cache's
 * buffer); readers elsewhere see it appear atomically. */
void proc_detail_load_environ(struct proc_cache *c, const struct gtm_process *p);

/* Where apps keep their folders, as a process's environment tells: each
 * OS folder's table (folders_linux.c: $HOME/.ollama/models ...;
 * folders_windows.c: %USERPROFILE%\.ollama\models, %APPDATA%\com.pais.handy
 * ...), in the order the apps themselves look, so identify/ and explain/
 * ask identify/app_folders.h and never which OS this is. */
enum platform_folder {
	PLATFORM_FOLDER_OLLAMA_MODELS,   /* Ollama's models (manifests/, blobs/) */
	PLATFORM_FOLDER_OLLAMA_LOG,      /* Ollama's server log file */
	PLATFORM_FOLDER_LMSTUDIO_MODELS, /* LM Studio's models (publisher/repo/file) */
	PLATFORM_FOLDER_HF_HUB,          /* Hugging Face hub caches, llama.cpp's order */
	PLATFORM_FOLDER_HANDY_DATA,      /* Handy's app data (settings) */
	PLATFORM_FOLDER_HANDY_LOGS,      /* Handy's log folder (tauri-plugin-log's LogDir: handy.log) */
};
struct platform_folder_rule {
	enum platform_folder folder;
	const char *env;  /* a variable of the process's environment holding an absolute
	                   * path; NULL: tail is the whole path */
	const char *tail; /* appended to the variable's value, in this OS's separators */
};
extern const struct platform_folder_rule platform_folder_rules[];
extern const size_t platform_n_folder_rules;

/* Where gputaskman runs: native, in a container or in WSL (the collector
 * pairs host PIDs only in a container). Linux reads it from the
 * root-prefixed /proc and /dev; Windows is always native (a Windows
 * container's processes are the host's, and Wine's view of the Linux
 * files it runs on says nothing about Windows). */
enum gtm_mode platform_detect_mode(void);

/* ---- WSL2: the Windows host's counters and the /dev/dxg holders (docs/wsl.md).
 * Linux implements them (platform/linux/wsl_*.c); other platforms have no WSL:
 * platform_wsl_open returns NULL there. */
struct platform_wsl;
struct wsl_proc;
struct wsl_host_sample;

struct platform_wsl_opts {
	bool no_host;        /* --no-host: no helper, device-wide numbers only */
	bool one_shot;       /* --once/--json: the first sample is waited for (bounded) */
	double interval_s;   /* the helper's sampling interval */
};

/* Opens the WSL side when mode is GTM_MODE_WSL: the signals, the host
 * stream (started now, off the caller's thread), the hint cache. NULL elsewhere. */
struct platform_wsl *platform_wsl_open(const struct platform_wsl_opts *o);
/* The live processes of this distro holding /dev/dxg (at most max). */
int platform_wsl_holders(struct platform_wsl *w, struct wsl_proc *out, int max);
/* Copies the newest host sample; fills st (state, why, counts). Returns true
 * when a sample is there and fresh (not stale). */
bool platform_wsl_sample(struct platform_wsl *w, struct wsl_host_sample *out, struct gtm_host_stream *st);
/* The boot id of the WSL VM ("" when unreadable). */
void platform_wsl_boot_id(struct platform_wsl *w, char *out, size_t cap);
/* Loads and saves the matcher's hints of this boot (~/.cache/gputaskman). */
size_t platform_wsl_hints_load(struct platform_wsl *w, const char *boot_id, uint64_t *sizes, size_t max);
void platform_wsl_hints_save(struct platform_wsl *w, const char *boot_id, const uint64_t *sizes, size_t n);
void platform_wsl_close(struct platform_wsl *w);

/* The WSL2 host stream's Windows end (docs/wsl.md, protocol v1):
 * gputaskman.exe --host-stream prints the host's GPU counters to stdout, one
 * flushed line per interval, until its stdin reaches EOF or its parent goes
 * away. Windows implements it (platform/windows/host_stream*.c); Linux says
 * it is a Windows mode. Returns the exit status. */
int platform_host_stream(unsigned interval_ms);
/* --version's line on the Windows helper: on Linux whether gputaskman.exe is
 * beside this binary (where make install puts it and WSL looks); on Windows
 * that this build is the helper. */
void platform_host_helper_describe(char *out, size_t cap);

/* ---- --trace-opens: model files processes open, read and close (docs/explain.md).
 * Linux implements it with one fanotify group (FAN_CLASS_NOTIF: notification
 * only, nothing is ever blocked; FAN_REPORT_DFID_NAME) and FAN_OPEN marks on
 * the mounts that hold the folders it is given (platform/linux/opens_linux.c),
 * read on a thread of its own; other OSes say it is unsupported. */
struct platform_opens;

#define PLATFORM_OPEN_PATH_MAX 1024
#define PLATFORM_OPENS_MAX 256 /* the table's bound: the newest opens are kept */
/* One model file one process opened: the process by (PID, start time), so a
 * reused PID never inherits it. */
struct platform_open {
	uint32_t pid;
	uint64_t start_time;      /* as struct gtm_process's */
	int64_t first_unix_ns;    /* when the tracer read the first open (within its batching, 0.25 s) */
	int64_t last_unix_ns;     /* and the newest */
	uint64_t first_mono_ns;   /* the first on now_monotonic_ns's clock: compares with refreshes */
	uint32_t count;           /* opens seen */
	char path[PLATFORM_OPEN_PATH_MAX];
};

struct platform_opens_status {
	bool on;                  /* marks are in place and the reader runs */
	unsigned n_marks;         /* mounts marked */
	uint64_t events;          /* events read (every open on the marked mounts) */
	uint64_t model_opens;     /* of them, model files recorded */
	uint64_t overflows;       /* FAN_Q_OVERFLOW: the kernel's queue was full, opens were missed */
	uint64_t unresolved;      /* a model-named file whose folder could not be resolved */
	uint64_t mutes;           /* busy non-model folders muted since start (their opens unseen meanwhile) */
	bool mute_refused;        /* the kernel refused muting (FAN_MARK_IGNORE, Linux 6.0) */
	char problem[256];        /* the newest failure, a sentence; "" when none */
};

/* Starts the tracer (the group and its reader thread, no marks yet). NULL
 * with why (a sentence naming what is missing: root, the kernel's FID
 * reporting, this OS) when it cannot run. */
struct platform_opens *platform_opens_start(char *why, size_t cap);
/* Marks the mount holding dir (or its nearest existing parent). Returns 1
 * when it was marked already, 0 when marked now, -1 with why filled (no
 * CAP_SYS_ADMIN, a filesystem without file handles, the bound on marks). */
int platform_opens_watch(struct platform_opens *t, const char *dir, char *why, size_t cap);
/* Copies at most max recorded opens (newest table) and the status; returns
 * the count. Takes the table's lock only for the copy. */
size_t platform_opens_copy(struct platform_opens *t, struct platform_open *out, size_t max,
			   struct platform_opens_status *st);
void platform_opens_stop(struct platform_opens *t);

/* The GPU sources this platform samples, in the collector's order (NVIDIA
 * first), NULL-terminated, at most PLATFORM_MAX_SOURCES of them. */
#define PLATFORM_MAX_SOURCES 4
extern const struct gtm_source_ops *const platform_sources[PLATFORM_MAX_SOURCES + 1];

#endif
