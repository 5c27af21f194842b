/* What the phases of owner attribution share (attribute.c drives them):
 * the state kept between refreshes and one refresh's working set. Private to
 * src/collect/attribute*.c. */
#ifndef GTM_ATTRIBUTE_INTERNAL_H
#define GTM_ATTRIBUTE_INTERNAL_H

#include "collect/attribute.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct key {
	uint32_t pid;
	uint64_t start;
};

struct seen {
	uint32_t host_pid;
	uint64_t first_seq;
};

struct pairing {
	uint32_t host_pid;
	struct key local;
	enum gtm_owner owner;   /* MATCHED or GUESSED: how sure the pairing is */
	bool exited;            /* the local process is gone: its row shows it exited */
	char reason[96];
	char name[64], user[33]; /* the local process's, for its exited row */
};

struct attribute_state {
	uint64_t seq; /* refreshes so far */
	struct seen *seen;        /* unresolved host PIDs of the previous refresh, by host_pid */
	size_t n_seen, cap_seen;
	struct key *cands;        /* previous refresh's local CUDA processes, by (pid, start) */
	size_t n_cands, cap_cands;
	struct pairing *pairs;    /* previous refresh's pairings */
	size_t n_pairs, cap_pairs;
	struct pairing *locals;   /* the driver's PIDs that were processes here, by host_pid: */
	size_t n_locals, cap_locals; /* charged locally last refresh, or exited since */
	struct gtm_process *reorder; /* scratch for order_rows, kept: rows are big and */
	size_t cap_reorder;          /* a fresh buffer each refresh costs page faults */
};

/* One distinct raw PID of this refresh and its uses (order[first .. first+n)). */
struct rawpid {
	uint32_t pid;
	uint64_t start;
	size_t first, n;
	bool compute;       /* in a compute list on some device (NVML: a CUDA or OpenCL context) */
	bool compute_only;
	int row;            /* charged local row, or -1 */
	bool taken;         /* held by a pairing: offered to no other process */
	int hold;           /* taken, no row: its pairing in work.pairs, or -1 */
	int gone;           /* taken, no row: was a process here, in work.locals, or -1 */
	uint64_t first_seq; /* when this host PID was first seen unresolved */
};

/* Per-call working set. */
struct work {
	const struct gtm_raw_uses *uses;
	size_t *order;            /* indices of non-zero-PID raw uses, by (pid, start) */
	struct rawpid *raw;
	size_t n_raw;
	struct key *local;        /* (pid, row) of the local rows, by pid */
	size_t n_local;
	int *cands;               /* rows of local CUDA processes, by (start, pid) */
	size_t n_cands;
	bool *row_paired;         /* by local row: holds a host PID this refresh */
	size_t *unres;            /* indices into raw of pairable PIDs, by (first_seq, pid) */
	size_t n_unres;
	struct pairing *pairs;    /* made or kept this refresh */
	size_t n_pairs, cap_pairs;
	bool kept_guess;          /* a pairing kept from before is a guess */
	struct pairing *locals;   /* processes here that exited while the driver lists their PIDs */
	size_t n_locals, cap_locals;
};

/* A host PID of a container that may be paired: the driver's (no start
 * time: a source that read this /proc knows one) and in a compute list. A
 * graphics-only PID (the host's display server) is no CUDA process. */
static inline bool pairable(const struct rawpid *rp)
{
	return rp->row < 0 && rp->start == 0 && rp->compute && rp->gone < 0;
}

/* attribute.c: lookup and charging */
int attr_key_cmp(const void *a, const void *b);
/* The local row with this PID (and start time when known), or -1. */
int attr_find_local(const struct work *w, const struct gtm_snapshot *snap, uint32_t pid, uint64_t start);
void attr_charge(struct gtm_snapshot *snap, int row, const struct work *w, const struct rawpid *rp,
		 enum gtm_owner owner, const char *reason);

/* attribute_local.c: the raw PIDs that are processes here */
void attr_resolve_local(struct work *w, const struct attribute_state *st, struct gtm_snapshot *snap,
			enum gtm_mode mode, int n_local);
void attr_remember_locals(struct attribute_state *st, struct work *w, const struct gtm_snapshot *snap);

/* attribute_pair.c: host PIDs paired with a container's processes */
void attr_pair_containers(struct work *w, struct attribute_state *st, struct gtm_snapshot *snap, int n_local);
void attr_remember_pairings(struct attribute_state *st, struct work *w, const struct gtm_snapshot *snap);

#endif
