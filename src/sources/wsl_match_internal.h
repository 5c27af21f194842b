/* The matcher's state and the two searches it runs each tick (alignment of
 * the tracked contexts to the host's list, assignment of new contexts to
 * pending processes). Shared by wsl_match.c, wsl_align.c, wsl_assign.c only. */
#ifndef GTM_WSL_MATCH_INTERNAL_H
#define GTM_WSL_MATCH_INTERNAL_H

#include "sources/wsl_match.h"

#define WSL_PROC_SLOTS (2 * WSL_MAX_PROCS) /* live holders and exited owners still listed */
#define WSL_GROUP_CTX 16                  /* contexts of one ambiguous match kept for revision */
#define WSL_GROUP_ALTS 64                 /* its consistent assignments kept */
#define WSL_MAX_GROUPS 64
#define WSL_FOREIGN (-1)

struct wsl_pslot {
	bool used, alive;
	uint32_t pid;
	uint64_t start;
	char comm[WSL_COMM_LEN];
	bool nvml_only;
	uint64_t first_tick;
};

struct wsl_tracked {
	struct wsl_ctx v;
	enum wsl_owner owner;     /* PROC, FOREIGN or EXITED */
	int proc;                 /* slot, for PROC and EXITED */
	bool matched;
	int star_ticks;           /* consecutive '*' ticks with the same owner */
	bool established;
	int group;                /* index of the ambiguous match it came from, or -1 */
	bool owner_gone;          /* its owner exited, in what is shown or in some kept assignment:
	                           * vanishing is expected (set before each alignment) */
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

struct wsl_matcher {
	uint64_t tick;
	bool started;
	uint32_t vmwp_pid;
	char boot_id[WSL_BOOT_LEN];
	uint32_t next_uid;
	struct wsl_pslot procs[WSL_PROC_SLOTS];
	struct wsl_adapter_state ad[WSL_MAX_ADAPTERS];
	struct wsl_group groups[WSL_MAX_GROUPS];
	char hints_boot[WSL_BOOT_LEN];
	uint64_t hints[WSL_MAX_HINTS];
	size_t n_hints;
	bool hints_dirty;
	struct wsl_row rows[WSL_MAX_ADAPTERS * WSL_MAX_CTX + WSL_MAX_PROCS];
	int n_rows;
	uint64_t dp_f[WSL_MAX_CTX + 1][WSL_MAX_CTX + 1], dp_b[WSL_MAX_CTX + 1][WSL_MAX_CTX + 1];
};

/* ---- alignment (wsl_align.c) ---- */

/* fate[i]: the new index of tracked entry i, or -1 when it vanished;
 * unsure[i]: two best alignments disagree about it. */
struct wsl_align {
	int fate[WSL_MAX_CTX];
	bool unsure[WSL_MAX_CTX];
	bool any_unsure;
	int n_new;                /* head entries of the host list that are new */
};

void wsl_align(struct wsl_matcher *m, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
	       struct wsl_align *out);

static inline uint64_t wsl_ctx_size(const struct wsl_ctx *c)
{
	return c->local + c->nonlocal;
}

/* ---- assignment (wsl_assign.c) ---- */

struct wsl_pending {
	int slot;
	bool fresh;               /* first seen in this tick (or a start-up tick) */
	uint64_t key;             /* open order between fresh ones: start time at start-up, else equal */
	bool nvml_only;
};

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

/* ---- rows (wsl_match_rows.c) ---- */

/* Fills m->rows: every tracked context of the tick's adapters in host order
 * (ad_of[k]: the state of the tick's adapter k, or -1), then every live process
 * without a context on any adapter (pending, values N/A). */
void wsl_match_emit(struct wsl_matcher *m, const struct wsl_tick *t, const int *ad_of);

#endif
