/* Matching vmwp.exe's GPU contexts to the Linux processes holding /dev/dxg
 * (../shared/platforms.md 2.5; docs/wsl.md). Pure: it sees one tick at a time
 * (the host's context list per adapter, newest first, and the live /dev/dxg
 * holders), keeps what it learned between ticks, and says for every context
 * who owns it and how sure that is. No I/O: the caller reads /proc, the host
 * stream and the hint cache.
 *
 * Rules, in order (each tick, each adapter):
 * - vmwp PID or boot id changed: everything tracked is dropped (hints too on a
 *   boot change) and the tick is a start-up tick.
 * - Align: the host only prepends contexts or removes them, never reorders,
 *   so the tracked list is matched to the new one from the oldest end by a
 *   small dynamic programme: an established owner keeps its context where it
 *   can, then the fewest size jumps; vanishing costs nothing for an exited
 *   owner's context and 1 GiB of jump for any other. Two best alignments that
 *   differ ⇒ the contexts they disagree on, and this tick's new matches, are
 *   '?'.
 * - A context whose owner left is held aside as exited until it vanishes,
 *   never offered again; a vanished context of a live owner returns the owner
 *   to pending.
 * - New head contexts are matched to pending processes: (b) one context per
 *   process per adapter; (c) an nvml_only process owns only a 0-byte context;
 *   (d) a process first seen in this tick, after the start-up tick, takes a
 *   context when one is left for it (a new process and a new context pin each
 *   other); one pending since an earlier tick, or seen in the start-up tick,
 *   may or may not (it may have opened the GPU long before or not yet; start
 *   order is no evidence of context order, so the processes already running
 *   when the monitor starts are guesses, shown in start order); surplus
 *   contexts are foreign. Every consistent assignment is enumerated: a
 *   context whose owner is the same in all of them is '*', else '?'; the one
 *   shown is the one whose foreign sizes best fit the hints, then the one
 *   with the fewest processes left pending, then start order.
 * - The assignments of a '?' match are kept: when one of its contexts
 *   vanishes, those in which it belonged to a live process are dropped; when
 *   it vanishes within WSL_EXIT_WINDOW ticks of the one process that left,
 *   those in which it was not that process's (a context that vanishes with one
 *   process is that process's), and that process owns no other context here;
 *   what all the rest agree on becomes '*'.
 * - A size that moves with one process: a context of a '?' match whose Total
 *   Committed grew by WSL_MOVE_MIN was grown by its owner's own calls, so it
 *   is none of the live processes that ran no thread since two ticks before
 *   the previous host sample came (run_known, run_ns and n_tasks the same); those
 *   assignments are dropped and what all the rest agree on becomes '*'.
 * - Two consecutive '*' ticks make an owner established: growth never
 *   reopens it.
 * - Foreign sizes judged '*' become hints of this boot; hints only choose
 *   which '?' assignment is shown, never make a '*'. */
#ifndef GTM_WSL_MATCH_H
#define GTM_WSL_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WSL_MAX_CTX 64      /* contexts per adapter in one tick (the protocol's bound too) */
#define WSL_MAX_ADAPTERS 4
#define WSL_MAX_PROCS 256   /* /dev/dxg holders in one tick */
#define WSL_LUID_LEN 24
#define WSL_COMM_LEN 16
#define WSL_BOOT_LEN 40
#define WSL_MAX_HINTS 64

/* One GPU Process Memory instance of vmwp.exe: Local, Non Local, Total
 * Committed. Committed may be unavailable ('-'): then it is not a 0 and the
 * paged estimate is N/A; local and non-local always are (the protocol refuses
 * a context without them: it could not be matched by size). */
struct wsl_ctx {
	uint64_t local, nonlocal, committed;
	bool committed_na;
};

struct wsl_adapter_ctxs {
	char luid[WSL_LUID_LEN];
	struct wsl_ctx ctx[WSL_MAX_CTX]; /* PDH order: newest first */
	int n;
};

/* A live process of this distro holding an fd on /dev/dxg. */
struct wsl_proc {
	uint32_t pid;
	uint64_t start;           /* /proc/PID/stat starttime: (pid, start) is the identity */
	char comm[WSL_COMM_LEN];
	bool nvml_only;           /* no CUDA/D3D12/DirectML runtime mapped: only NVML's 0-byte context */
	bool run_known;           /* run_ns and n_tasks were read */
	uint64_t run_ns;          /* CPU time of its live threads so far (ns: /proc/PID/task/TID/schedstat) */
	uint32_t n_tasks;         /* its threads (one exiting takes its time out of run_ns) */
};

struct wsl_tick {
	uint32_t vmwp_pid;
	char boot_id[WSL_BOOT_LEN];
	const struct wsl_adapter_ctxs *adapters;
	int n_adapters;
	const struct wsl_proc *procs;
	int n_procs;
	uint64_t sample_seq;      /* the host sample's sequence number (0: unknown): a tick may reuse one */
};

enum wsl_owner {
	WSL_OWNER_PROC = 0, /* a live process of this distro */
	WSL_OWNER_FOREIGN,  /* no process here: another distro, WSLg, Docker Desktop */
	WSL_OWNER_EXITED,   /* its process exited; the host still lists the context */
	WSL_OWNER_PENDING,  /* a process holding /dev/dxg without a context (values N/A) */
};

struct wsl_row {
	int adapter;              /* index into the tick's adapters; -1 for a pending process */
	int ctx;                  /* index in that adapter's list; -1 for a pending process */
	enum wsl_owner owner;
	uint32_t pid;             /* PROC, EXITED, PENDING */
	uint64_t start;
	char comm[WSL_COMM_LEN];
	bool matched;             /* '*' (one explanation fits), else '?' */
	bool established;
	struct wsl_ctx v;         /* the context's values (not for PENDING) */
};

struct wsl_result {
	const struct wsl_row *rows; /* the matcher's: valid until the next tick */
	int n_rows;
	bool reset;               /* this tick dropped the state (VM restarted, first tick) */
};

struct wsl_matcher;

struct wsl_matcher *wsl_matcher_new(void);
void wsl_matcher_free(struct wsl_matcher *m);
void wsl_match_tick(struct wsl_matcher *m, const struct wsl_tick *t, struct wsl_result *out);

/* Hints of the current boot (sizes of foreign contexts), for the caller's cache. */
size_t wsl_hints(const struct wsl_matcher *m, const uint64_t **sizes, const char **boot_id);
/* Loads a cached hint list; ignored unless boot_id is the tick's boot id when the next tick comes. */
void wsl_hints_load(struct wsl_matcher *m, const char *boot_id, const uint64_t *sizes, size_t n);
/* Whether the hints changed since the last call (so the caller writes its cache). */
bool wsl_hints_dirty(struct wsl_matcher *m);

#endif
