/* Reading a recording (docs/recording.md): the index of its frames, built by
 * hopping from entry to entry (48 bytes read per minute recorded), and one
 * frame's snapshots. Everything read is bounded and checked: a file cut at
 * any byte (SIGKILL, power loss) keeps every complete frame and the complete
 * snapshots of the frame it was cut in, and says so. */
#ifndef GTM_REC_READER_H
#define GTM_REC_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/rec_format.h"

/* A zstd decompression context kept from one frame read to the next. A
 * fresh context per frame allocates that frame's window (up to 16 MiB for
 * a hostile header) and its buffers again each time; one kept is reset
 * before each frame, and keeps its buffers. NULL when out of memory. */
struct rec_dctx;
struct rec_dctx *rec_dctx_new(void);
void rec_dctx_free(struct rec_dctx *d);

/* Where the bytes are: a descriptor (pread) or memory (tests, fuzzing). */
struct rec_src {
	int fd;                  /* -1 when mem is used */
	const uint8_t *mem;
	uint64_t size;
	uint64_t *bytes_read;    /* when set, counts the bytes read (tests: the reader stays linear) */
	struct rec_dctx *dctx;   /* when set, every frame read through this source reuses it; NULL: one per frame */
};

/* Reads n bytes at off into buf; the count read (short at the end), or -1. */
long long rec_src_read(const struct rec_src *s, void *buf, size_t n, uint64_t off);

struct rec_frame {
	uint64_t entry_off;      /* where its index entry starts (a cut there drops the frame) */
	uint64_t data_off, data_len;
	uint64_t first_ns, last_ns; /* taken_at of its first and last snapshot (0: none) */
	uint32_t n_samples;      /* as the entry says, at most what the frame's size can hold */
	bool closed;             /* a whole frame: its entry, or the frame's own end, says so */
};

struct rec_index {
	struct rec_header header;
	struct rec_frame *frames;
	size_t n_frames;
	uint64_t size;           /* bytes in the file */
	uint64_t valid_end;      /* end of the last whole frame (where a writer resumes) */
	bool open_tail;          /* the last frame is not closed: being written, or cut short */
	bool torn;               /* bytes were dropped: a cut snapshot, entry or frame */
	char note[200];          /* what was dropped, in words, when torn */
};

enum rec_status {
	REC_OK = 0,
	REC_NOT_RECORDING = -1,  /* no recording header */
	REC_NEWER = -2,          /* a format version newer than this build reads */
	REC_DAMAGED = -3,        /* a header cut short or damaged */
	REC_IO = -4,
};

/* Builds the index. On error err says why in one line and idx holds nothing. */
enum rec_status rec_index_build(const struct rec_src *src, struct rec_index *idx, char *err, size_t errn);
void rec_index_free(struct rec_index *idx);

/* One snapshot of a frame: a line of text[], without its newline. */
struct rec_sample {
	size_t off, len;
	int64_t taken_at_s;      /* its taken_at, seconds since the epoch */
};

struct rec_frame_text {
	char *text;
	size_t len;
	struct rec_sample *samples;
	size_t n;
	bool complete;           /* the zstd frame ended */
	bool partial_line;       /* a snapshot cut short was dropped at the end */
	bool text_limit;         /* the text stopped at the frame text limit (REC_MAX_FRAME_TEXT): more was not read */
	size_t bad_lines;        /* lines without a readable taken_at, left out */
};

/* Decompresses frame f and splits it into snapshots. Returns 0 (a cut frame
 * gives its complete snapshots, complete false), or -1 with err set when
 * nothing could be read (out of memory, an I/O error). */
int rec_frame_read(const struct rec_src *src, const struct rec_frame *f, struct rec_frame_text *out, char *err,
		   size_t errn);
/* The same with a lower text limit than REC_MAX_FRAME_TEXT (64 KiB at least). */
int rec_frame_read_bounded(const struct rec_src *src, const struct rec_frame *f, size_t max_text,
			   struct rec_frame_text *out, char *err, size_t errn);
void rec_frame_text_free(struct rec_frame_text *t);

/* The last frame whose first snapshot was taken at or before t_s (seconds),
 * or -1 when t_s is before the recording. */
long rec_index_find(const struct rec_index *idx, int64_t t_s);
/* In a read frame: the last snapshot taken at or before t_s, or -1. */
long rec_frame_find(const struct rec_frame_text *t, int64_t t_s);

/* The `taken_at` of a snapshot line (its first "taken_at" key: the top level's,
 * which `--json` writes third), as seconds since the epoch; -1 when absent. */
int64_t rec_line_taken_at(const char *line, size_t len);

#endif
