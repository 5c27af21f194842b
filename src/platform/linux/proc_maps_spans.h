/* The ranges one mapped file (an ELF object: a library, an executable)
 * occupies, learned from one process's maps and recognised in the next, so
 * that a walk of maps steps over the object's inner ranges with one query
 * (proc_maps_spans.c). */
#ifndef GTM_PROC_MAPS_SPANS_H
#define GTM_PROC_MAPS_SPANS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A range as PROCMAP_QUERY gives it, the fields a span compares. */
struct maps_range {
	uint64_t start, end, offset, flags, inode;
	uint32_t dev_major, dev_minor;
};

/* One file's run of consecutive file-backed ranges, from its range at file
 * offset 0 to its last, relative to the first's start. */
struct maps_span {
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint64_t first_len, first_flags;
	uint64_t last_rel, last_len, last_offset, last_flags;
	uint32_t ranges;
};

#define MAPS_SPANS_MIN_SLOTS 64
#define MAPS_SPANS_MAX_SLOTS 4096 /* a large CUDA process maps 300 – 600 objects */
#define MAPS_SPAN_MIN_RANGES 3 /* fewer: stepping over saves no query */

/* Shared by the scan's workers (a lock); one per proc_cache, kept across
 * scans (a file's layout is checked at both ends each time it is used). An
 * open-addressing table that doubles from MAPS_SPANS_MIN_SLOTS when three
 * quarters full, and begins again past MAPS_SPANS_MAX_SLOTS: a one-shot run
 * touches a page or two of it, not the largest table's. */
struct maps_spans {
	pthread_mutex_t lock;
	size_t n, n_slots;
	uint64_t learned, stepped; /* counts, for the tests and bench */
	struct maps_span *slot;
};

struct maps_spans *maps_spans_new(void);
void maps_spans_free(struct maps_spans *s);
/* Records the run first .. last of n ranges (first at offset 0), if new. */
void maps_spans_learn(struct maps_spans *s, const struct maps_range *first, const struct maps_range *last,
		      uint32_t n);
/* Where the last range of the run that first begins should start, if this
 * file's run was learned with the same first range: true, *want filled with
 * what that range must be (start, end, offset, flags, the file). */
bool maps_spans_predict(struct maps_spans *s, const struct maps_range *first, struct maps_range *want);
/* Counts one step over a run (for the counts). */
void maps_spans_stepped(struct maps_spans *s);

#endif
