#include "record/rec_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "portable.h"
#include "record/rec_format.h"
#include "record/rec_reader.h"
#include "record/zstd_names.h"

struct rec_writer {
	char *path;
	int fd;
	ZSTD_CCtx *cc;
	struct rec_writer_opts o;
	uint64_t created_ns;
	uint64_t end;            /* the file's size: where the next bytes go */
	bool frame_open;
	uint64_t entry_off, data_off, frame_text;
	struct rec_entry entry;  /* of the open frame */
	uint64_t *frames;        /* entry offsets of the closed frames, oldest first */
	size_t n_frames, cap_frames;
	uint8_t *out;
	size_t out_cap;
	uint64_t bytes, samples;
};

static int fail(char *err, size_t errn, const char *what, const char *path)
{
	snprintf(err, errn, "%s: %s: %s", path, what, strerror(errno));
	return -1;
}

static int write_at(int fd, const void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = os_pwrite(fd, (const char *)buf + done, n - done, off + done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static int append(struct rec_writer *w, const void *buf, size_t n, char *err, size_t errn)
{
	if (write_at(w->fd, buf, n, w->end) != 0)
		return fail(err, errn, "cannot write", w->path);
	w->end += n;
	w->bytes += n;
	return 0;
}

/* Runs the compressor over in with the given directive until it is done,
 * appending what it writes. */
static int compress_into(struct rec_writer *w, const void *in, size_t n, ZSTD_EndDirective mode, char *err,
			 size_t errn)
{
	ZSTD_inBuffer ib = {in, n, 0};
	size_t left;

	do {
		ZSTD_outBuffer ob = {w->out, w->out_cap, 0};
		left = ZSTD_compressStream2(w->cc, &ob, &ib, mode);
		if (ZSTD_isError(left)) {
			snprintf(err, errn, "%s: zstd: %s", w->path, ZSTD_getErrorName(left));
			return -1;
		}
		if (ob.pos && append(w, w->out, ob.pos, err, errn))
			return -1;
	} while (mode == ZSTD_e_continue ? ib.pos < ib.size : left != 0);
	return 0;
}

static int put_entry(struct rec_writer *w, char *err, size_t errn)
{
	uint8_t eb[REC_ENTRY_BYTES];
	rec_entry_encode(&w->entry, eb);
	if (write_at(w->fd, eb, sizeof eb, w->entry_off) != 0)
		return fail(err, errn, "cannot write", w->path);
	return 0;
}

static int open_frame(struct rec_writer *w, uint64_t taken_at_ns, char *err, size_t errn)
{
	uint8_t eb[REC_ENTRY_BYTES];

	w->entry = (struct rec_entry){false, taken_at_ns, taken_at_ns, 0, 0};
	w->entry_off = w->end;
	rec_entry_encode(&w->entry, eb);
	if (append(w, eb, sizeof eb, err, errn))
		return -1;
	w->data_off = w->end;
	w->frame_text = 0;
	w->frame_open = true;
	ZSTD_CCtx_reset(w->cc, ZSTD_reset_session_only);
	return 0;
}

/* The frame's end, then fdatasync, then its entry says closed: a closed entry
 * never points at bytes that may not be on the disk. */
static int close_frame(struct rec_writer *w, char *err, size_t errn)
{
	if (!w->frame_open)
		return 0;
	w->frame_open = false;
	if (compress_into(w, "", 0, ZSTD_e_end, err, errn))
		return -1;
	if (os_fdatasync(w->fd) != 0)
		return fail(err, errn, "cannot sync", w->path);
	w->entry.closed = true;
	w->entry.frame_len = w->end - w->data_off;
	if (put_entry(w, err, errn))
		return -1;
	w->frames = grow_array(w->frames, sizeof *w->frames, &w->cap_frames, w->n_frames + 1);
	w->frames[w->n_frames++] = w->entry_off;
	return 0;
}

static int sync_dir_of(const char *path)
{
	char *copy = xstrdup(path);
	int rc = os_sync_dir(dirname(copy));
	free(copy);
	return rc;
}

static int copy_range(int from, int to, uint64_t off, uint64_t n, uint64_t to_off)
{
	char buf[64 * 1024];
	while (n > 0) {
		size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
		ssize_t r = os_pread(from, buf, k, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || write_at(to, buf, (size_t)r, to_off) != 0)
			return -1;
		off += (uint64_t)r;
		to_off += (uint64_t)r;
		n -= (uint64_t)r;
	}
	return 0;
}

static void write_header(uint8_t *hb, uint64_t created_ns)
{
	struct rec_header h = {REC_FORMAT_VERSION, 0, created_ns};
	rec_header_encode(&h, hb);
}

/* Past max_bytes the oldest frames go, down to three quarters of it, so a
 * full file is rewritten once per quarter of its size, not every minute:
 * the kept frames are copied (never recompressed) to a new file, locked
 * before it is renamed over the old one, so no second recorder can take it. */
static int enforce_size(struct rec_writer *w, char *err, size_t errn)
{
	uint64_t keep = w->o.max_bytes / 4 * 3;
	size_t k = 0;
	char *tmp;
	int tfd;
	uint8_t hb[REC_HEADER_BYTES];

	if (w->end <= w->o.max_bytes || w->n_frames < 2)
		return 0;
	while (k + 1 < w->n_frames && w->end - w->frames[k] > keep)
		k++;
	if (k == 0)
		return 0;
	tmp = xmalloc(strlen(w->path) + 16);
	sprintf(tmp, "%s.compacting", w->path);
	unlink(tmp);
	tfd = os_open_rw(tmp, O_EXCL);
	write_header(hb, w->created_ns);
	if (tfd < 0 || os_lock_exclusive(tfd) != 0 || write_at(tfd, hb, sizeof hb, 0) != 0 ||
	    copy_range(w->fd, tfd, w->frames[k], w->end - w->frames[k], sizeof hb) != 0 || os_fdatasync(tfd) != 0 ||
	    os_rename_replace(tmp, w->path, &w->fd) != 0) {
		int e = errno;
		if (tfd >= 0)
			close(tfd);
		unlink(tmp);
		free(tmp);
		errno = e;
		return fail(err, errn, "cannot drop the oldest frames", w->path);
	}
	free(tmp);
	sync_dir_of(w->path);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = tfd;
	uint64_t base = w->frames[k];
	for (size_t i = k; i < w->n_frames; i++)
		w->frames[i - k] = w->frames[i] - base + sizeof hb;
	w->n_frames -= k;
	w->end = w->end - base + sizeof hb;
	return 0;
}

int rec_writer_add(struct rec_writer *w, const char *line, size_t len, uint64_t taken_at_ns, char *err,
		   size_t errn)
{
	if (w->frame_open && (taken_at_ns - w->entry.first_ns >= (uint64_t)(w->o.frame_seconds * 1e9) ||
			      taken_at_ns < w->entry.first_ns || w->frame_text + len + 1 > REC_FRAME_TEXT_LIMIT)) {
		if (close_frame(w, err, errn) || enforce_size(w, err, errn))
			return -1;
	}
	if (!w->frame_open && open_frame(w, taken_at_ns, err, errn))
		return -1;
	/* e_flush ends a block: what is on the file decodes up to this snapshot */
	if (compress_into(w, line, len, ZSTD_e_continue, err, errn) || compress_into(w, "\n", 1, ZSTD_e_flush, err, errn))
		return -1;
	w->entry.last_ns = taken_at_ns;
	w->entry.n_samples++;
	w->frame_text += len + 1;
	w->samples++;
	return 0;
}

/* A killed recorder's open frame: its complete snapshots are written again as
 * a closed frame where it stood; torn bytes after the last whole frame go. */
static int repair_tail(struct rec_writer *w, const struct rec_index *idx, char *note, size_t noten, char *err,
		       size_t errn)
{
	struct rec_src src = {.fd = w->fd, .size = idx->size};
	const struct rec_frame *last = idx->n_frames ? &idx->frames[idx->n_frames - 1] : NULL;
	struct rec_frame_text t = {0};

	if (last && !last->closed) {
		if (rec_frame_read(&src, last, &t, err, errn))
			return -1;
		w->end = last->entry_off;
		w->n_frames--;
	} else {
		w->end = idx->valid_end;
	}
	if (w->end < idx->size && ftruncate(w->fd, (off_t)w->end) != 0) {
		rec_frame_text_free(&t);
		return fail(err, errn, "cannot cut the torn end", w->path);
	}
	for (size_t i = 0; i < t.n; i++)
		if (rec_writer_add(w, t.text + t.samples[i].off, t.samples[i].len,
				   (uint64_t)t.samples[i].taken_at_s * 1000000000ull, err, errn)) {
			rec_frame_text_free(&t);
			return -1;
		}
	if (last && !last->closed)
		snprintf(note, noten, "%s: closed the frame a stopped recorder left open (%zu snapshots kept%s)", w->path,
			 t.n, t.partial_line ? ", a cut one dropped" : "");
	else if (idx->valid_end < idx->size)
		snprintf(note, noten, "%s: cut %llu torn bytes at the end", w->path,
			 (unsigned long long)(idx->size - idx->valid_end));
	rec_frame_text_free(&t);
	return close_frame(w, err, errn);
}

static int resume(struct rec_writer *w, uint64_t size, int *status, char *note, size_t noten, char *err,
		  size_t errn)
{
	struct rec_src src = {.fd = w->fd, .size = size};
	struct rec_index idx;
	char why[256];
	enum rec_status rs = rec_index_build(&src, &idx, why, sizeof why);
	int rc;

	if (rs != REC_OK) {
		*status = rs == REC_IO ? 1 : 2;
		if (rs == REC_NOT_RECORDING)
			snprintf(err, errn, "%s: exists and is not a gputaskman recording: not overwritten", w->path);
		else
			snprintf(err, errn, "%s: %s", w->path, why);
		return -1;
	}
	w->created_ns = idx.header.created_ns;
	for (size_t i = 0; i < idx.n_frames; i++) {
		w->frames = grow_array(w->frames, sizeof *w->frames, &w->cap_frames, w->n_frames + 1);
		w->frames[w->n_frames++] = idx.frames[i].entry_off;
	}
	rc = repair_tail(w, &idx, note, noten, err, errn);
	rec_index_free(&idx);
	return rc;
}

struct rec_writer *rec_writer_open(const char *path, const struct rec_writer_opts *o, int *status, char *err,
				   size_t errn, char *note, size_t noten)
{
	struct rec_writer *w;
	struct stat st;

	*status = 1;
	note[0] = '\0';
	if (!zstd_ep_load(err, errn)) {
		*status = 2;
		return NULL;
	}
	w = xcalloc(1, sizeof *w);
	w->path = xstrdup(path);
	w->o = *o;
	if (!w->o.max_bytes)
		w->o.max_bytes = REC_DEFAULT_MAX_BYTES;
	if (w->o.frame_seconds <= 0)
		w->o.frame_seconds = REC_DEFAULT_FRAME_SECONDS;
	w->fd = os_open_rw(path, 0);
	if (w->fd < 0) {
		fail(err, errn, "cannot open", path);
		goto out;
	}
	if (fstat(w->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*status = 2;
		snprintf(err, errn, "%s: not a regular file", path);
		goto out;
	}
	os_clear_nonblock(w->fd);
	if (os_lock_exclusive(w->fd) != 0) {
		*status = 2;
		snprintf(err, errn, "%s: another gputaskman is recording to this file (stop it, or record to another -o PATH)",
			 path);
		goto out;
	}
	w->cc = ZSTD_createCCtx();
	w->out_cap = ZSTD_CStreamOutSize();
	w->out = xmalloc(w->out_cap);
	ZSTD_CCtx_setParameter(w->cc, ZSTD_c_compressionLevel, w->o.level ? w->o.level : 3);
	ZSTD_CCtx_setParameter(w->cc, ZSTD_c_checksumFlag, 1);
	if (st.st_size == 0) {
		uint8_t hb[REC_HEADER_BYTES];
		w->created_ns = now_realtime_ns();
		write_header(hb, w->created_ns);
		if (append(w, hb, sizeof hb, err, errn))
			goto out;
	} else if (resume(w, (uint64_t)st.st_size, status, note, noten, err, errn)) {
		goto out;
	}
	w->bytes = w->samples = 0; /* this session's, not the repair's */
	*status = 0;
	return w;
out:
	if (w->fd >= 0)
		close(w->fd);
	ZSTD_freeCCtx(w->cc);
	free(w->out);
	free(w->frames);
	free(w->path);
	free(w);
	return NULL;
}

int rec_writer_close(struct rec_writer *w, char *err, size_t errn)
{
	int rc = 0;
	if (!w)
		return 0;
	rc = close_frame(w, err, errn);
	if (rc == 0)
		rc = enforce_size(w, err, errn);
	if (close(w->fd) != 0 && rc == 0)
		rc = fail(err, errn, "cannot close", w->path);
	ZSTD_freeCCtx(w->cc);
	free(w->out);
	free(w->frames);
	free(w->path);
	free(w);
	return rc;
}

uint64_t rec_writer_bytes(const struct rec_writer *w)
{
	return w->bytes;
}

uint64_t rec_writer_samples(const struct rec_writer *w)
{
	return w->samples;
}
