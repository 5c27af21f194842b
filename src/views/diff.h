/* `gputaskman diff`: which memory bucket grew between two `--json` snapshots.
 * A pure comparison: two read snapshots in, a result out; renderers in
 * diff_text.c and diff_json.c. Measured counters are compared; reported and
 * estimated figures are listed beside them and never added in (docs/diff.md). */
#ifndef GTM_DIFF_H
#define GTM_DIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "snapread/snap_rows.h"

/* Text hides processes that moved less than this (issue 6). */
#define DIFF_HIDE_BELOW_BYTES (16ull * 1024 * 1024)

/* How a before row and an after row were found to be the same process. */
enum diff_rule {
	DIFF_RULE_NONE = 0,      /* listed on one side only */
	DIFF_RULE_PID_START,     /* same PID and same start time */
	DIFF_RULE_PID,           /* same PID; a start time is missing on one side */
	DIFF_RULE_HOST_PID,      /* H: rows, same host PID */
	DIFF_RULE_UNATTRIBUTED,  /* the unattributed row of the same device */
	DIFF_RULE_NAME_PORTS,    /* restarted: same name and listening ports */
	DIFF_RULE_UNIQUE_NAME,   /* restarted: the only process of that name on each side */
};
/* "pid+start_time", "pid", "host_pid", "unattributed", "name+ports", "unique_name", NULL. */
const char *diff_rule_name(enum diff_rule r);
/* Rules that pair different processes (a restart), not one process seen twice. */
bool diff_rule_is_restart(enum diff_rule r);

/* A counter on both sides. `listed` false: that side's row is not in the snapshot
 * ("not listed"), which is neither null nor zero. delta only when both are known. */
struct diff_delta {
	bool b_listed, a_listed;
	struct snap_val b, a;
	bool known;
	int64_t delta;
};

struct diff_dev_row {
	const struct snap_dev *b, *a;   /* NULL: that GPU is not in the snapshot */
	const char *paired_by;          /* "uuid", "pci_bus_id", "index" or NULL */
	struct diff_delta total, used, free, reserved, shared_used, processes_listed;
};

/* One device's measured use by one process pair. */
struct diff_use_row {
	const struct snap_dev *dev_b, *dev_a; /* may be NULL when the snapshot lacks the device */
	int index_b, index_a;                 /* -1 when not listed */
	struct diff_delta vram, spill, paged;
};

struct diff_seg_row {
	const struct snap_seg *b, *a;   /* NULL: not listed on that side */
	struct diff_delta bytes;
};

enum diff_model_change { DIFF_MODEL_KEPT, DIFF_MODEL_ADDED, DIFF_MODEL_REMOVED };
struct diff_model_row {
	const struct snap_model *b, *a;
	enum diff_model_change change;
};

/* How the measured VRAM change stands against the KV estimate's (signed). */
enum diff_kv_direction {
	DIFF_KV_AS_ESTIMATED,           /* measured == estimate */
	DIFF_KV_MEASURED_SMALLER,       /* grew less (or fell more) than the estimate */
	DIFF_KV_MEASURED_LARGER,        /* grew more (or fell less) than the estimate */
};

/* The KV estimate's change beside the measured VRAM change of the same process. */
struct diff_kv_check {
	bool present;                   /* both deltas known and the estimate moved */
	int64_t estimate_delta, measured_delta;
	bool has_ratio;                 /* false when the two moved in opposite directions */
	double ratio;                   /* measured / estimate, when has_ratio */
	enum diff_kv_direction direction;
};
/* One sentence on what can make the measured change differ that way, or NULL
 * (DIFF_KV_AS_ESTIMATED). Starts with a capital, ends without a full stop. */
const char *diff_kv_note(enum diff_kv_direction d);
/* "take the after snapshot once the model has answered one request" */
#define DIFF_KV_ADVICE "Take the \"after\" snapshot once the model has answered one request"

/* A llama.cpp flag whose value differs between the paired processes. */
struct diff_flag_change {
	int which;                      /* index into snap_flags[] */
	const json_t *b, *a;            /* NULL: the default */
};

struct diff_proc_row {
	const struct snap_proc *b, *a;  /* NULL: not listed on that side */
	enum diff_rule rule;
	struct diff_delta vram_total, spill_total, paged_total, rss;
	struct diff_use_row *uses;
	int n_uses;
	struct diff_seg_row *segs;
	int n_segs;
	struct diff_model_row *models;
	int n_models;
	struct diff_flag_change flags[SNAP_N_FLAGS];
	int n_flags;
	struct diff_kv_check kv;
	bool movement_known;            /* every counter known on either side has a delta (or the row is one-sided) */
	uint64_t movement;              /* largest |change| (one-sided: largest value), bytes */
	bool hidden;                    /* text leaves it out (moved less than the threshold) */
	int n_order;                    /* pairing order, to keep sorting stable */
};

struct diff_result {
	const struct snap_rows *before, *after;
	struct diff_dev_row *devs;
	int n_devs;
	struct diff_proc_row *procs;    /* largest movement first */
	int n_procs;
	int n_hidden;
	uint64_t hide_below;
	char **warnings;                /* different GPUs, clock going backwards, ... */
	int n_warnings;
};

struct diff_opts {
	uint64_t hide_below;            /* 0: DIFF_HIDE_BELOW_BYTES */
};

/* Compares two read snapshots. Never fails; the result borrows from both. */
struct diff_result *diff_compare(const struct snap_rows *before, const struct snap_rows *after,
				 const struct diff_opts *opts);
void diff_result_free(struct diff_result *r);

/* Pairs process rows (diff_pair.c): fills rows[] with before/after/rule, returns the count. */
int diff_pair_processes(const struct snap_rows *b, const struct snap_rows *a, struct diff_proc_row *rows);

/* The text report and the JSON document (diff_text.c, diff_json.c). show_all: no hidden rows. */
void diff_print_text(FILE *out, const struct diff_result *r, const char *before_name, const char *after_name,
		     bool show_all);
json_t *diff_to_json(const struct diff_result *r, const char *before_name, const char *after_name);

#endif
