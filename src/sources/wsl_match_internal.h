/* The matcher's state and the two searches it runs each tick (alignment of
 * the tracked contexts to the host's list, assignment of new contexts to
 * pending processes). Shared by wsl_match.c, wsl_align.c, wsl_assign.c only. */
#ifndef GTM_WSL_MATCH_INTERNAL_H
#define GTM_WSL_MATCH_INTERNAL_H

#include "sources/wsl_match.h"

#define WSL_PROC_SLOTS (2 * WSL_MAX_PROCS) /* live holders and exited owners still listed */
#define WSL_GROUP_CTX 16                  /* contexts of one ambiguous match kept for revision */
#define WSL_GROUP_ALTS 256                /* its consistent assignments kept (a start-up tick of 4
                                           * processes and 4 contexts has 209) */
#define WSL_MAX_GROUPS 64
#define WSL_FOREIGN (-1)

struct wsl_pslot {
	bool used, alive;
	uint32_t pid;
	uint64_t start;
	char comm[WSL_COMM_LEN];
	bool nvml_only;
	uint64_t first_tick;
	uint64_t gone_tick;       /* the tick it was first missing */
	uint8_t vanished_on;      /* adapters (bits) where a context vanished since it left */
	uint64_t run_ns;          /* the last tick's run time and threads (wsl_proc) */
	uint32_t n_tasks;
	uint64_t ran_tick;        /* the last tick it was seen to have run (first seen, or unknown: that tick) */
};

struct wsl_tracked {
	struct wsl_ctx v;
	enum wsl_owner owner;     /* PROC, FOREIGN or EXITED */
	int proc;                 /* slot, for PROC and EXITED */
	bool matched;
	int star_ticks;           /* consecutive '*' ticks with the same owner */
	bool established;
	int group;                /* index of the ambiguous match it came from, or -1 */
	uint64_t vanish_cost;     /* what its vanishing weighs in the alignment (set before each one) */
	bool zero_only;           /* its live owner is NVML-only: it never holds a byte (rule c) */
	uint32_t uid;
};

struct wsl_adapter_state {
	bool used;
	char luid[WSL_LUID_LEN];
	struct wsl_tracked t[WSL_MAX_CTX]; /* host order: newest first */
	int n;
};

/* The consistent assignments of one ambiguous match: own[a][c] is the slot
 * that owns context uid[c] in assignment a, or WSL_FOREIGN. frozen: too many
 * to keep, or evidence that fit none: never turns into '*'. */
struct wsl_group {
	bool used, frozen;
	int n_ctx;
	uint32_t uid[WSL_GROUP_CTX];
	int n_alts;
	int16_t own[WSL_GROUP_ALTS][WSL_GROUP_CTX];
};

struct wsl_pending {
	int slot;
	bool fresh;               /* first seen in this tick, after the start-up tick: it pins a new context */
	uint64_t key;             /* start time in a start-up tick (the shown guess's order), else 0 */
	bool nvml_only;
	bool shadow;              /* shown owning a context of a '?' match in which it may own none:
	                           * it may own a new one instead, so it keeps a foreign one from '*',
	                           * but what is shown gives it none */
};

struct wsl_matcher {
	uint64_t tick;
	bool started;
	uint32_t vmwp_pid;
	char boot_id[WSL_BOOT_LEN];
	uint32_t next_uid;
	struct wsl_pslot procs[WSL_PROC_SLOTS];
	struct wsl_adapter_state ad[WSL_MAX_ADAPTERS];
	struct wsl_group groups[WSL_MAX_GROUPS];
	uint64_t sample_seq, sample_tick, prev_sample_tick; /* the host sample's sequence, its first tick, the
	                                                     * first tick of the one before */
	char hints_boot[WSL_BOOT_LEN];
	uint64_t hints[WSL_MAX_HINTS];
	size_t n_hints;
	bool hints_dirty;
	struct wsl_row rows[WSL_MAX_ADAPTERS * WSL_MAX_CTX + WSL_MAX_PROCS];
	int n_rows;
	uint64_t dp_f[WSL_MAX_CTX + 1][WSL_MAX_CTX + 1], dp_b[WSL_MAX_CTX + 1][WSL_MAX_CTX + 1];
	struct wsl_pending pend[WSL_MAX_PROCS]; /* match_new's scratch */
};

/* ---- alignment (wsl_align.c) ---- */

/* What a context's vanishing weighs, in bytes of size jump, by what is known
 * of its owner: an established live owner keeps it unless nothing else fits; a
 * live process keeps its context far more often than a foreign one goes; an
 * exited owner's goes (nearly free when certain, half a foreign one when only
 * a guess or a kept assignment says so). */
#define WSL_EST_LOST (1ull << 56)
#define WSL_LIVE_VANISH (12ull << 30)
#define WSL_VANISH (4ull << 30)
#define WSL_MAYBE_GONE (WSL_VANISH / 2)
#define WSL_GONE 1

/* fate[i]: the new index of tracked entry i, or -1 when it vanished;
 * unsure[i]: two best alignments disagree about it. */
#define WSL_EVIDENCE (5ull << 30) /* an alignment margin that makes a vanishing evidence: more than a
                                   * foreign context vanishing instead would cost */
#define WSL_EXIT_WINDOW 2         /* ticks after a process left in which a vanishing is its context's */

struct wsl_align {
	int fate[WSL_MAX_CTX];
	bool unsure[WSL_MAX_CTX];
	uint64_t margin[WSL_MAX_CTX]; /* extra cost of the best alignment with another fate for it */
	bool any_unsure;
	int n_new;                /* head entries of the host list that are new */
	int n_vanished;
};

/* n_fresh: processes first seen in this tick without a context here; each
 * explains a new head context, any further new one weighs NEW_CTX. */
void wsl_align(struct wsl_matcher *m, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h, int n_fresh,
	       struct wsl_align *out);

static inline uint64_t wsl_ctx_size(const struct wsl_ctx *c)
{
	return c->local + c->nonlocal;
}

/* ---- assignment (wsl_assign.c) ---- */


struct wsl_assign_in {
	const struct wsl_ctx *ctx; /* the new contexts, newest first */
	int q;
	const struct wsl_pending *pend;
	int np;
	const uint64_t *hints;
	size_t n_hints;
};

struct wsl_assign_out {
	int shown[WSL_MAX_CTX];   /* index into pend, or WSL_FOREIGN */
	bool agree[WSL_MAX_CTX];  /* the same owner in every consistent assignment */
	long n_alts;
	bool overflow;            /* the search was cut short: nothing is certain */
	int n_kept;               /* assignments kept in alts (all of them when <= WSL_GROUP_ALTS) */
	int16_t alts[WSL_GROUP_ALTS][WSL_GROUP_CTX]; /* as indices into pend */
};

void wsl_assign(const struct wsl_assign_in *in, struct wsl_assign_out *out);
/* How many of the foreign sizes in own (index WSL_FOREIGN) fit a hint, each hint once. */
int wsl_hint_fit(const struct wsl_ctx *ctx, const int *own, int q, const uint64_t *hints, size_t n_hints);

/* ---- sizes that move with one process (wsl_moves.c) ---- */

#define WSL_MOVE_MIN (1ull << 20) /* Total Committed growth that counts as an allocation */
#define WSL_QUIET_TICKS 2         /* ticks before the previous sample's first tick a process must not have
                                   * run in: a sample may have been taken before the tick before it */

/* Notes the tick's host sample (wsl_tick.sample_seq); returns the first tick
 * of the sample before it when this tick's is a new one, else 0 (nothing can
 * have moved: the same sample, or one of unknown sequence). */
uint64_t wsl_sample_note(struct wsl_matcher *m, uint64_t seq);
/* The column of context uid in a match, or -1. */
int wsl_group_col(const struct wsl_group *g, uint32_t uid);
/* Before apply_alignment: each sure context of a '?' match that grew by
 * WSL_MOVE_MIN drops the match's assignments that give it to a live process
 * quiet since WSL_QUIET_TICKS before since_tick (wsl_sample_note; 0: none). */
void wsl_moves(struct wsl_matcher *m, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
	       const struct wsl_align *al, uint64_t since_tick);

/* ---- rows (wsl_match_rows.c) ---- */

/* Fills m->rows: every tracked context of the tick's adapters in host order
 * (ad_of[k]: the state of the tick's adapter k, or -1), then every live process
 * without a context on any adapter (pending, values N/A). */
void wsl_match_emit(struct wsl_matcher *m, const struct wsl_tick *t, const int *ad_of);

#endif
