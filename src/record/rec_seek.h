/* Moving through a recording by snapshot: a snapshot's ordinal (0 .. n-1 over
 * the whole file) to its frame and line, with the two frames last read kept
 * decoded; and the "big VRAM change" the replay's n key jumps to. */
#ifndef GTM_REC_SEEK_H
#define GTM_REC_SEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "record/rec_lookup.h"

/* What counts as a big VRAM change between two consecutive snapshots, in one
 * place (docs/recording.md, "Replay"):
 * - a sharp rise: a GPU's used VRAM grows by at least REC_RISE_PCT % of its
 *   total and at least REC_RISE_MIN_BYTES (REC_RISE_NO_TOTAL_BYTES when the
 *   total is N/A);
 * - a vanishing: a process that held at least REC_VANISH_MIN_BYTES on a GPU
 *   is gone from the next snapshot while that GPU was nearly full (used at
 *   least REC_FULL_PCT % of its total in the snapshot before). */
#define REC_RISE_PCT 10
#define REC_RISE_MIN_BYTES (256ull << 20)
#define REC_RISE_NO_TOTAL_BYTES (1ull << 30)
#define REC_FULL_PCT 90
#define REC_VANISH_MIN_BYTES (64ull << 20)

enum rec_change_kind { REC_CHANGE_NONE = 0, REC_CHANGE_RISE, REC_CHANGE_VANISH };

struct rec_change {
	enum rec_change_kind kind;
	int dev_index;           /* the GPU (gtm_device.index) */
	uint64_t bytes;          /* the rise, or what the vanished process held there */
	uint64_t used, total;    /* that GPU's used VRAM after the rise / before the vanishing; total 0: N/A */
	char label[24];          /* the vanished process's row label */
	char name[64];
};

/* Whether cur, the snapshot after prev, is a big change; the first one found
 * (rises before vanishings, GPUs in order) in *out. Pure. */
bool rec_vram_change(const struct gtm_snapshot *prev, const struct gtm_snapshot *cur, struct rec_change *out);
/* "+6.0 GiB on GPU 0 (22.1 of 24.0 GiB)", "1234 python vanished from GPU 0 (holding 8.0 GiB, 95 % full)" */
void rec_change_text(const struct rec_change *c, char *buf, size_t n);

struct rec_cursor_frame {
	long frame;              /* -1: empty slot */
	struct rec_frame_text t;
	uint64_t used;           /* for replacing the least recently used */
};

struct rec_cursor {
	struct rec_file *f;
	uint64_t *first;         /* per frame: the ordinal of its first snapshot */
	uint64_t n;              /* snapshots in the file */
	struct rec_cursor_frame cache[2];
	uint64_t tick;
};

void rec_cursor_init(struct rec_cursor *c, struct rec_file *f);
void rec_cursor_free(struct rec_cursor *c);
/* Snapshot ord's line (valid until the next call) and taken_at; 0, or -1
 * with err set (beyond the end, a frame that cannot be read). */
int rec_cursor_line(struct rec_cursor *c, uint64_t ord, const char **line, size_t *len, int64_t *taken_s, char *err,
		    size_t errn);
/* The ordinal after ord that names a snapshot of its own: ord + 1 within a
 * frame, the next frame's first once ord is its frame's last readable line (an
 * entry may count more than its frame holds); c->n at the end. */
uint64_t rec_cursor_next(struct rec_cursor *c, uint64_t ord);
/* The ordinal of the last snapshot taken at or before t_s; 0 when t_s is
 * before the recording. */
uint64_t rec_cursor_find(struct rec_cursor *c, int64_t t_s);

#endif
