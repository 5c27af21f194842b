/* The recorder's file (docs/recording.md): appends one `--json` snapshot line
 * per sample to the open zstd frame, flushed to the file at once (a block
 * that decodes on its own), closes the frame about every minute (the end,
 * fdatasync, then its index entry rewritten as closed), and drops the oldest
 * frames when the file passes its size. One recorder per file: the second
 * is refused (flock). */
#ifndef GTM_REC_WRITER_H
#define GTM_REC_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_DEFAULT_MAX_BYTES (256ull << 20)
#define REC_DEFAULT_FRAME_SECONDS 60.0
/* A frame is closed at this much text too, so one frame stays small to read. */
#define REC_FRAME_TEXT_LIMIT (8u << 20)

struct rec_writer_opts {
	uint64_t max_bytes;      /* 0: REC_DEFAULT_MAX_BYTES */
	double frame_seconds;    /* 0: REC_DEFAULT_FRAME_SECONDS */
	int level;               /* zstd level; 0: 3 */
};

struct rec_writer;

/* Opens or creates path and takes it. An existing recording is appended to:
 * a frame a killed recorder left open is closed again with its complete
 * snapshots, torn bytes after it are cut. NULL with err set and *status:
 * 2 refused (another recorder holds it, not a recording, a newer format),
 * 1 an I/O error. A note for stderr (what was repaired) goes to note. */
struct rec_writer *rec_writer_open(const char *path, const struct rec_writer_opts *o, int *status, char *err,
				   size_t errn, char *note, size_t noten);

/* Appends one snapshot line (len bytes, no newline) taken at taken_at_ns.
 * 0, or -1 with err set (the file could not be written). */
int rec_writer_add(struct rec_writer *w, const char *line, size_t len, uint64_t taken_at_ns, char *err,
		   size_t errn);

/* Closes the open frame (a clean stop), releases the file. 0 or -1 (err). */
int rec_writer_close(struct rec_writer *w, char *err, size_t errn);

/* Bytes written so far in this session (compressed, entries included), and
 * the samples; for the benchmark and the summary at exit. */
uint64_t rec_writer_bytes(const struct rec_writer *w);
uint64_t rec_writer_samples(const struct rec_writer *w);

#endif
