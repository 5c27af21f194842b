#include "record/rec_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "portable.h"
#include "record/rec_time.h"
#include "record/zstd_names.h"

/* A frame's window may not ask for more than this (the writer's level uses
 * 2 MiB or less): a hostile header cannot make the reader allocate GiBs. */
#define REC_WINDOW_LOG_MAX 24
/* The most text a compressed byte can give: an RLE block, 3 header bytes and
 * one byte, regenerates up to 128 KiB (RFC 8878 section 3.1.1.2). */
#define REC_ZSTD_MAX_RATIO 32768u
/* The shortest line a frame's split keeps: "taken_at":"YYYY-MM-DDTHH:MM" and
 * its newline. */
#define REC_MIN_LINE 30u
/* A frame found by its own structure is looked for in reads from this size
 * up, doubling: an entry's empty or tiny frame costs a small read, not the
 * rest of the file. */
#define REC_SCAN_FIRST_READ 4096u

long long rec_src_read(const struct rec_src *s, void *buf, size_t n, uint64_t off)
{
	if (off >= s->size)
		return 0;
	if (n > s->size - off)
		n = (size_t)(s->size - off);
	if (s->bytes_read)
		*s->bytes_read += n;
	if (s->mem) {
		memcpy(buf, s->mem + off, n);
		return (long long)n;
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = os_pread(s->fd, (char *)buf + got, n - got, off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (long long)got;
}

/* bytes [off, off + n) into a new buffer, or NULL (short read or no memory). */
static uint8_t *read_range(const struct rec_src *s, uint64_t off, size_t n)
{
	uint8_t *buf = malloc(n ? n : 1);
	if (buf && rec_src_read(s, buf, n, off) != (long long)n) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

static void note(struct rec_index *idx, const char *fmt, unsigned long long at)
{
	idx->torn = true;
	if (!idx->note[0])
		snprintf(idx->note, sizeof idx->note, fmt, at);
}

static struct rec_frame *add_frame(struct rec_index *idx, size_t *cap)
{
	idx->frames = grow_array(idx->frames, sizeof *idx->frames, cap, idx->n_frames + 1);
	struct rec_frame *f = &idx->frames[idx->n_frames++];
	memset(f, 0, sizeof *f);
	return f;
}

/* Where the zstd frame at f->data_off ends, in reads growing from
 * REC_SCAN_FIRST_READ bytes (so the cost is the frame's size, not the
 * file's): closed with its length, or not closed and the bytes there. */
static void frame_extent(const struct rec_src *src, struct rec_frame *f)
{
	uint64_t avail = src->size - f->data_off;
	size_t max = avail > REC_MAX_FRAME_BYTES ? REC_MAX_FRAME_BYTES : (size_t)avail;
	size_t n = max < REC_SCAN_FIRST_READ ? max : REC_SCAN_FIRST_READ;

	for (;;) {
		uint8_t *buf = read_range(src, f->data_off, n);
		size_t len = buf ? ZSTD_findFrameCompressedSize(buf, n) : 0;
		free(buf);
		if (buf && !ZSTD_isError(len)) {
			f->closed = true;
			f->data_len = len;
			return;
		}
		if (!buf || n == max)
			break;
		n = n > max / 2 ? max : n * 2;
	}
	f->closed = false;
	f->data_len = max;
}

/* Whether the bytes at off start a skippable frame (the next entry, say):
 * then the entry before holds no data frame. */
static bool skippable_at(const struct rec_src *src, uint64_t off)
{
	uint8_t m[4];
	return rec_src_read(src, m, sizeof m, off) == (long long)sizeof m &&
	       ((uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24) >> 4 ==
		       REC_MAGIC_HEADER >> 4;
}

/* A frame whose entry does not give a trusted length (open, torn rewrite, or
 * a length past the end): its own zstd structure says where it ends, if it
 * does. Its times come from decoding it (it is the tail, a minute at most). */
static void scan_frame(const struct rec_src *src, struct rec_index *idx, struct rec_frame *f)
{
	struct rec_frame_text t;
	char err[128];

	frame_extent(src, f);
	if (rec_frame_read(src, f, &t, err, sizeof err) != 0)
		return;
	f->n_samples = (uint32_t)t.n;
	if (t.n) {
		f->first_ns = (uint64_t)t.samples[0].taken_at_s * 1000000000ull;
		f->last_ns = (uint64_t)t.samples[t.n - 1].taken_at_s * 1000000000ull;
	}
	if (!f->closed && (t.partial_line || f->data_len > 0))
		idx->open_tail = true;
	if (t.text_limit)
		note(idx, "a frame holds more than the 256 MiB of text a frame may: the snapshots past that are not "
			  "read (frame at byte %llu)",
		     (unsigned long long)f->data_off);
	else if (t.partial_line)
		note(idx, "the last snapshot was cut short (a torn tail at byte %llu): skipped",
		     (unsigned long long)src->size);
	rec_frame_text_free(&t);
}

/* An entry's snapshot count, as many as its frame can hold at most: what it
 * claims beyond that (a damaged or hostile entry) would make a reader step
 * through snapshots that are not there. */
static uint32_t samples_bound(struct rec_index *idx, const struct rec_entry *e, uint64_t off)
{
	uint64_t text = e->frame_len > REC_MAX_FRAME_TEXT / REC_ZSTD_MAX_RATIO ? REC_MAX_FRAME_TEXT
									       : e->frame_len * REC_ZSTD_MAX_RATIO;
	uint64_t most = text / REC_MIN_LINE;

	if (e->n_samples <= most)
		return e->n_samples;
	note(idx, "the index entry at byte %llu counts more snapshots than its frame can hold: bounded by the "
		  "frame's size",
	     (unsigned long long)off);
	return (uint32_t)most;
}

enum rec_status rec_index_build(const struct rec_src *src, struct rec_index *idx, char *err, size_t errn)
{
	uint8_t head[REC_HEADER_BYTES], eb[REC_ENTRY_BYTES];
	size_t cap = 0;
	long long got = rec_src_read(src, head, sizeof head, 0);
	uint64_t off;

	memset(idx, 0, sizeof *idx);
	idx->size = src->size;
	if (!zstd_ep_load(err, errn))
		return REC_IO;
	if (got < 0) {
		snprintf(err, errn, "cannot read: %s", strerror(errno));
		return REC_IO;
	}
	int rc = rec_header_decode(head, (size_t)got, &idx->header);
	if (rc == -1) {
		snprintf(err, errn, "not a gputaskman recording (make one with `gputaskman record`)");
		return REC_NOT_RECORDING;
	}
	if (rc == -2) {
		snprintf(err, errn, "a damaged recording: its header is cut short");
		return REC_DAMAGED;
	}
	if (idx->header.version == 0) {
		snprintf(err, errn, "a damaged recording: its header says format version 0 (gputaskman's start at 1)");
		return REC_DAMAGED;
	}
	if (idx->header.version > REC_FORMAT_VERSION) {
		snprintf(err, errn, "recording format version %u is newer than this gputaskman reads (%d): "
				    "use the gputaskman that wrote it, or a newer one",
			 idx->header.version, REC_FORMAT_VERSION);
		return REC_NEWER;
	}
	off = REC_SKIP_HEAD + (uint64_t)(head[4] | head[5] << 8 | head[6] << 16 | (uint32_t)head[7] << 24);
	idx->valid_end = off;
	while (off < src->size && idx->n_frames < REC_MAX_FRAMES) {
		struct rec_entry e;
		got = rec_src_read(src, eb, sizeof eb, off);
		if (got < 0) {
			snprintf(err, errn, "cannot read: %s", strerror(errno));
			rec_index_free(idx);
			return REC_IO;
		}
		if ((size_t)got < sizeof eb) {
			note(idx, "an index entry was cut short at byte %llu: skipped", (unsigned long long)off);
			break;
		}
		rc = rec_entry_decode(eb, sizeof eb, &e);
		if (rc == -1) {
			note(idx, "no frame where one should start (byte %llu): the rest is skipped", (unsigned long long)off);
			break;
		}
		if (skippable_at(src, off + REC_ENTRY_BYTES)) {
			/* no data frame after this entry: hop to the next entry */
			if (rc != 0 || e.closed)
				note(idx, "an index entry without its frame at byte %llu: skipped", (unsigned long long)off);
			off += REC_ENTRY_BYTES;
			idx->valid_end = off;
			continue;
		}
		struct rec_frame *f = add_frame(idx, &cap);
		f->entry_off = off;
		f->data_off = off + REC_ENTRY_BYTES;
		if (rc == 0 && e.closed && e.frame_len > 0 && e.frame_len <= REC_MAX_FRAME_BYTES &&
		    e.frame_len <= src->size - f->data_off) {
			f->closed = true;
			f->data_len = e.frame_len;
			f->first_ns = e.first_ns;
			f->last_ns = e.last_ns;
			f->n_samples = samples_bound(idx, &e, off);
		} else {
			if (rc == -2)
				note(idx, "the index entry at byte %llu was damaged: its frame was read from its own structure",
				     (unsigned long long)off);
			else if (e.closed && e.frame_len > src->size - f->data_off)
				note(idx, "the last frame was cut short (the file ends at byte %llu): its complete snapshots are kept",
				     (unsigned long long)src->size);
			scan_frame(src, idx, f);
			if (!f->closed) {
				if (f->n_samples == 0 && f->data_len == 0)
					idx->n_frames--; /* an entry with no data yet: nothing to read */
				break;
			}
		}
		off = f->data_off + f->data_len;
		idx->valid_end = off;
	}
	if (idx->n_frames && !idx->frames[idx->n_frames - 1].closed)
		idx->open_tail = true;
	return REC_OK;
}

void rec_index_free(struct rec_index *idx)
{
	free(idx->frames);
	idx->frames = NULL;
	idx->n_frames = 0;
}

struct rec_dctx {
	ZSTD_DCtx *z;
};

struct rec_dctx *rec_dctx_new(void)
{
	char why[8];
	struct rec_dctx *d = zstd_ep_load(why, sizeof why) ? calloc(1, sizeof *d) : NULL;
	if (d && !(d->z = ZSTD_createDCtx())) {
		free(d);
		d = NULL;
	}
	return d;
}

void rec_dctx_free(struct rec_dctx *d)
{
	if (d)
		ZSTD_freeDCtx(d->z);
	free(d);
}

/* keep: the source's context, reset here (a frame read before may have
 * stopped halfway), or NULL for one made and freed here. */
static int decompress(const uint8_t *in, size_t n, size_t max_text, struct rec_dctx *keep, struct rec_frame_text *out,
		      char *err, size_t errn)
{
	if (!keep && !zstd_ep_load(err, errn))
		return -1;
	ZSTD_DCtx *d = keep ? keep->z : ZSTD_createDCtx();
	ZSTD_inBuffer ib = {in, n, 0};
	size_t cap = 64 * 1024, ret;

	if (!d) {
		snprintf(err, errn, "out of memory");
		return -1;
	}
	if (keep)
		ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
	ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, REC_WINDOW_LOG_MAX);
	out->text = xmalloc(cap);
	for (;;) {
		if (out->len == cap) {
			if (cap >= max_text) {
				out->text_limit = true;
				break;
			}
			cap = cap * 2 < max_text ? cap * 2 : max_text;
			out->text = xrealloc(out->text, cap);
		}
		size_t in_before = ib.pos;
		ZSTD_outBuffer ob = {out->text, cap, out->len};
		ret = ZSTD_decompressStream(d, &ob, &ib);
		bool progress = ib.pos != in_before || ob.pos != out->len;
		out->len = ob.pos;
		if (ZSTD_isError(ret))
			break;
		if (ret == 0) {
			out->complete = true;
			break;
		}
		if (!progress)
			break; /* nothing more comes from this input: the frame was cut */
	}
	if (!keep)
		ZSTD_freeDCtx(d);
	return 0;
}

static void split_lines(struct rec_frame_text *t)
{
	size_t cap = 0, start = 0;

	for (size_t i = 0; i < t->len; i++) {
		if (t->text[i] != '\n')
			continue;
		int64_t at = rec_line_taken_at(t->text + start, i - start);
		if (at < 0) {
			t->bad_lines++;
		} else {
			t->samples = grow_array(t->samples, sizeof *t->samples, &cap, t->n + 1);
			t->samples[t->n++] = (struct rec_sample){start, i - start, at};
		}
		start = i + 1;
	}
	t->partial_line = start < t->len;
}

int rec_frame_read(const struct rec_src *src, const struct rec_frame *f, struct rec_frame_text *out, char *err,
		   size_t errn)
{
	return rec_frame_read_bounded(src, f, REC_MAX_FRAME_TEXT, out, err, errn);
}

int rec_frame_read_bounded(const struct rec_src *src, const struct rec_frame *f, size_t max_text,
			   struct rec_frame_text *out, char *err, size_t errn)
{
	size_t n = f->data_len > REC_MAX_FRAME_BYTES ? REC_MAX_FRAME_BYTES : (size_t)f->data_len;
	uint8_t *in;
	int rc;

	memset(out, 0, sizeof *out);
	in = read_range(src, f->data_off, n);
	if (!in) {
		snprintf(err, errn, "cannot read a frame at byte %llu: %s", (unsigned long long)f->data_off,
			 errno ? strerror(errno) : "short read");
		return -1;
	}
	rc = decompress(in, n, max_text < 64 * 1024 ? 64 * 1024 : max_text, src->dctx, out, err, errn);
	free(in);
	if (rc == 0)
		split_lines(out);
	return rc;
}

void rec_frame_text_free(struct rec_frame_text *t)
{
	free(t->text);
	free(t->samples);
	memset(t, 0, sizeof *t);
}

long rec_index_find(const struct rec_index *idx, int64_t t_s)
{
	long found = -1;
	for (size_t i = 0; i < idx->n_frames; i++) {
		const struct rec_frame *f = &idx->frames[i];
		if (f->n_samples && (int64_t)(f->first_ns / 1000000000ull) <= t_s)
			found = (long)i;
	}
	return found;
}

long rec_frame_find(const struct rec_frame_text *t, int64_t t_s)
{
	long found = -1;
	for (size_t i = 0; i < t->n && t->samples[i].taken_at_s <= t_s; i++)
		found = (long)i;
	return found;
}

int64_t rec_line_taken_at(const char *line, size_t len)
{
	static const char key[] = "\"taken_at\":";
	const char *p = memmem(line, len, key, sizeof key - 1);
	int64_t t;

	if (!p)
		return -1;
	p += sizeof key - 1;
	while (p < line + len && *p == ' ')
		p++;
	if (p >= line + len || *p != '"')
		return -1;
	const char *q = memchr(p + 1, '"', (size_t)(line + len - p - 1));
	if (!q || rec_time_parse_iso(p + 1, (size_t)(q - p - 1), &t) != 0)
		return -1;
	return t;
}
