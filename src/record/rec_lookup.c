#include "record/rec_lookup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "core/util.h"
#include "record/rec_time.h"

int rec_file_open(const char *path, struct rec_file *f, char *err, size_t errn)
{
	struct stat st;
	const char *why = NULL;
	char msg[256];

	memset(f, 0, sizeof *f);
	f->fd = file_open_regular(path, UINT64_MAX, &st, &why);
	if (f->fd < 0) {
		snprintf(err, errn, "%s", why ? why : strerror(errno));
		return 2;
	}
	/* one decompression context for every frame replay or diff reads here */
	f->src = (struct rec_src){.fd = f->fd, .size = (uint64_t)st.st_size, .dctx = rec_dctx_new()};
	enum rec_status rs = rec_index_build(&f->src, &f->idx, msg, sizeof msg);
	if (rs != REC_OK) {
		snprintf(err, errn, "%s", msg);
		close(f->fd);
		f->fd = -1;
		rec_dctx_free(f->src.dctx);
		f->src.dctx = NULL;
		return rs == REC_IO ? 1 : 2;
	}
	for (size_t i = 0; i < f->idx.n_frames; i++) {
		const struct rec_frame *fr = &f->idx.frames[i];
		if (!fr->n_samples)
			continue;
		if (!f->n_samples)
			f->first_s = (int64_t)(fr->first_ns / 1000000000ull);
		f->last_s = (int64_t)(fr->last_ns / 1000000000ull);
		f->n_samples += fr->n_samples;
	}
	if (!f->n_samples) {
		snprintf(err, errn, "the recording holds no snapshot yet");
		rec_file_close(f);
		return 2;
	}
	return 0;
}

void rec_file_close(struct rec_file *f)
{
	rec_index_free(&f->idx);
	rec_dctx_free(f->src.dctx);
	f->src.dctx = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

int rec_file_line_at(struct rec_file *f, const char *when, char **line, size_t *len, char *err, size_t errn)
{
	int64_t t = f->last_s;
	struct rec_frame_text text;
	char first[32];
	long fi, si;

	if (when && rec_time_resolve(when, f->last_s, &t, err, errn) != 0)
		return 2;
	rec_time_format(first, sizeof first, f->first_s);
	fi = rec_index_find(&f->idx, t);
	if (fi < 0) {
		char at[32];
		rec_time_format(at, sizeof at, t);
		snprintf(err, errn, "%s is before the recording starts (its first snapshot was taken at %s)", at, first);
		return 2;
	}
	if (rec_frame_read(&f->src, &f->idx.frames[fi], &text, err, errn) != 0)
		return 1;
	si = rec_frame_find(&text, t);
	if (text.text_limit)
		snprintf(f->note, sizeof f->note,
			 "the frame at byte %llu holds more than the %u MiB of text a frame may: its snapshots past that "
			 "were not read",
			 (unsigned long long)f->idx.frames[fi].data_off, REC_MAX_FRAME_TEXT >> 20);
	if (si < 0) {
		rec_frame_text_free(&text);
		snprintf(err, errn, "no complete snapshot %s at byte %llu",
			 when ? "at or before that time in the frame" : "in the recording's last frame, the frame",
			 (unsigned long long)f->idx.frames[fi].data_off);
		return 2;
	}
	*len = text.samples[si].len;
	*line = xstrndup(text.text + text.samples[si].off, *len);
	rec_frame_text_free(&text);
	return 0;
}

bool rec_path_is_recording(const char *path)
{
	uint8_t head[16];
	struct stat st;
	const char *why;
	int fd = file_open_regular(path, UINT64_MAX, &st, &why);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, head, sizeof head);
	close(fd);
	return n == (ssize_t)sizeof head && rec_is_recording(head, sizeof head);
}
