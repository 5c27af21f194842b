/* One moment of a recording file, as `replay --json --at` and `diff
 * PATH@TIME` ask for it: the last snapshot taken at or before TIME. */
#ifndef GTM_REC_LOOKUP_H
#define GTM_REC_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/rec_reader.h"

/* An open recording: the descriptor and its index. */
struct rec_file {
	int fd;
	struct rec_src src;
	struct rec_index idx;
	int64_t first_s, last_s; /* taken_at of its first and last snapshot */
	uint64_t n_samples;
	char note[200];          /* set by rec_file_line_at: what a read frame left out ("" if nothing) */
};

/* Opens and indexes path. 0; or 2 (not a recording, a newer format, no
 * snapshot in it) / 1 (cannot read) with err set. A torn tail is not an
 * error: f->idx.torn and idx.note say what was skipped. */
int rec_file_open(const char *path, struct rec_file *f, char *err, size_t errn);
void rec_file_close(struct rec_file *f);

/* The snapshot line (malloc'd, *len bytes, NUL-terminated) of the last
 * snapshot taken at or before `when` (NULL: the last one), TIME as
 * rec_time_resolve reads it. 0, or 2 with err set (bad TIME, before the
 * recording), 1 (a read error). */
int rec_file_line_at(struct rec_file *f, const char *when, char **line, size_t *len, char *err, size_t errn);

/* Does path name a recording (its first bytes)? */
bool rec_path_is_recording(const char *path);

#endif
