/* Recordings: entries and header, TIME parsing, writer + reader (frames,
 * seeking, retention, the lock, repair of a killed recorder's open frame),
 * a recording cut at every byte offset, and the --json layout given back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifndef _WIN32 /* the killed recorder is a fork()ed child: POSIX only */
#include <sys/wait.h>
#endif
#include <unistd.h>

#include "core/snapshot.h"
#include "record/rec_format.h"
#include "record/rec_lookup.h"
#include "record/rec_reader.h"
#include "record/rec_seek.h"
#include "record/rec_time.h"
#include "record/rec_writer.h"
#include "testutil.h"
#include "views/json.h"
#include "views/json_indent.h"

#define T0 1796094720ll /* 2026-12-01T03:12:00Z */

static void test_entry_roundtrip(void **state)
{
	(void)state;
	struct rec_entry e = {true, 123456789012345ull, 123456789999999ull, 60, 4242}, d;
	uint8_t b[REC_ENTRY_BYTES];

	rec_entry_encode(&e, b);
	assert_int_equal(rec_entry_decode(b, sizeof b, &d), 0);
	assert_true(d.closed);
	assert_int_equal(d.first_ns, e.first_ns);
	assert_int_equal(d.last_ns, e.last_ns);
	assert_int_equal(d.n_samples, 60);
	assert_int_equal(d.frame_len, 4242);
	b[30] ^= 1; /* a torn rewrite: the checksum tells */
	assert_int_equal(rec_entry_decode(b, sizeof b, &d), -2);
	assert_int_equal(rec_entry_decode(b, sizeof b - 1, &d), -1);
	b[0] ^= 1;
	assert_int_equal(rec_entry_decode(b, sizeof b, &d), -1);
}

static void test_times(void **state)
{
	(void)state;
	int64_t t;
	int secs;
	char err[256];
	const char *iso = "2026-12-01T03:12:00Z";

	assert_int_equal(rec_time_parse_iso(iso, strlen(iso), &t), 0);
	assert_int_equal(t, T0);
	iso = "2026-12-01T05:12:00+02:00";
	assert_int_equal(rec_time_parse_iso(iso, strlen(iso), &t), 0);
	assert_int_equal(t, T0);
	iso = "2026-11-30T22:42-0430";
	assert_int_equal(rec_time_parse_iso(iso, strlen(iso), &t), 0);
	assert_int_equal(t, T0 - 0 * 60 + 0);
	iso = "2026-12-01 03:12:00.750Z";
	assert_int_equal(rec_time_parse_iso(iso, strlen(iso), &t), 0);
	assert_int_equal(t, T0);
	iso = "2024-02-29T00:00:00Z";
	assert_int_equal(rec_time_parse_iso(iso, strlen(iso), &t), 0);
	assert_int_equal(t, 1709164800);
	static const char *bad[] = {"2026-12-01T03:12:00", "2026-02-30T00:00:00Z", "2026-13-01T00:00Z",
				    "2026-12-01T24:00Z", "2026-12-01", "x", "2026-12-01T03:12:00Zjunk", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(rec_time_parse_iso(bad[i], strlen(bad[i]), &t), -1);
	assert_int_equal(rec_time_parse_clock("03:12", &secs), 0);
	assert_int_equal(secs, 3 * 3600 + 12 * 60);
	assert_int_equal(rec_time_parse_clock("23:59:58", &secs), 0);
	assert_int_equal(secs, 86398);
	assert_int_equal(rec_time_parse_clock("24:00", &secs), -1);
	assert_int_equal(rec_time_parse_clock("3:12", &secs), -1);
	setenv("TZ", "UTC", 1);
	/* a time of day: its latest moment not after the recording's end */
	assert_int_equal(rec_time_resolve("03:12", T0 + 3600, &t, err, sizeof err), 0);
	assert_int_equal(t, T0);
	assert_int_equal(rec_time_resolve("04:30", T0 + 3600, &t, err, sizeof err), 0);
	assert_int_equal(t, T0 - 86400 + 78 * 60);
	assert_int_equal(rec_time_resolve("soon", T0, &t, err, sizeof err), -1);
	assert_non_null(strstr(err, "ISO 8601"));
}

static void test_line_taken_at(void **state)
{
	(void)state;
	const char *l = "{\"schema_version\":1,\"gputaskman_version\":\"0.1.0\",\"taken_at\":\"2026-12-01T03:12:00Z\"}";
	assert_int_equal(rec_line_taken_at(l, strlen(l)), T0);
	l = "{\"schema_version\":1,\"taken_at\":null}";
	assert_int_equal(rec_line_taken_at(l, strlen(l)), -1);
	l = "{\"taken_at\":\"2026-12-01T03:12:0";
	assert_int_equal(rec_line_taken_at(l, strlen(l)), -1);
}

/* A synthetic snapshot line, about 1 KiB, taken at t (seconds). */
static size_t sample_line(char *buf, size_t cap, int64_t t, int i)
{
	char when[32];
	rec_time_format(when, sizeof when, t);
	int n = snprintf(buf, cap, "{\"schema_version\":1,\"gputaskman_version\":\"0.1.0\",\"taken_at\":\"%s\",\"i\":%d,"
				   "\"gpus\":[],\"processes\":[", when, i);
	for (int p = 0; p < 8; p++)
		n += snprintf(buf + n, cap - (size_t)n, "%s{\"pid\":%d,\"label\":\"%d\",\"vram_total_bytes\":%d}", p ? "," : "",
			      1000 + p, 1000 + p, (i * 7919 + p * 104729) % 100000);
	n += snprintf(buf + n, cap - (size_t)n, "]}");
	return (size_t)n;
}

static char *temp_path(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* Writes n samples one second apart from T0, frames of frame_s seconds. */
static void write_recording(const char *path, int n, double frame_s, uint64_t max_bytes)
{
	struct rec_writer_opts o = {max_bytes, frame_s, 0};
	char err[256], note[256], line[2048];
	int status;
	struct rec_writer *w = rec_writer_open(path, &o, &status, err, sizeof err, note, sizeof note);

	assert_non_null(w);
	for (int i = 0; i < n; i++) {
		size_t len = sample_line(line, sizeof line, T0 + i, i);
		assert_int_equal(rec_writer_add(w, line, len, (uint64_t)(T0 + i) * 1000000000ull, err, sizeof err), 0);
	}
	assert_int_equal(rec_writer_close(w, err, sizeof err), 0);
}

/* All samples of a recording in memory, in order: their "i" fields into out. */
static size_t read_all(const uint8_t *buf, size_t len, int *out, size_t cap, struct rec_index *idx)
{
	struct rec_src src = {.fd = -1, .mem = buf, .size = len};
	char err[256];
	size_t n = 0;

	if (rec_index_build(&src, idx, err, sizeof err) != REC_OK)
		return 0;
	for (size_t f = 0; f < idx->n_frames; f++) {
		struct rec_frame_text t;
		assert_int_equal(rec_frame_read(&src, &idx->frames[f], &t, err, sizeof err), 0);
		for (size_t s = 0; s < t.n && n < cap; s++) {
			const char *p = strstr(t.text + t.samples[s].off, "\"i\":");
			assert_non_null(p);
			out[n++] = atoi(p + 4);
		}
		rec_frame_text_free(&t);
	}
	return n;
}

static void test_write_read_seek(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), *path = temp_path(dir, "r.rec"), err[256], *line;
	int got[400];
	size_t len, n;
	struct rec_index idx;
	struct rec_file f;
	char *buf;

	write_recording(path, 300, 10, 0);
	buf = tu_read_file(path, &len);
	n = read_all((uint8_t *)buf, len, got, 400, &idx);
	assert_int_equal(n, 300);
	for (int i = 0; i < 300; i++)
		assert_int_equal(got[i], i);
	assert_int_equal(idx.n_frames, 30);
	assert_false(idx.torn);
	assert_false(idx.open_tail);
	assert_int_equal(idx.valid_end, len);
	rec_index_free(&idx);
	free(buf);

	assert_int_equal(rec_file_open(path, &f, err, sizeof err), 0);
	assert_int_equal(f.first_s, T0);
	assert_int_equal(f.last_s, T0 + 299);
	assert_int_equal(f.n_samples, 300);
	assert_int_equal(rec_file_line_at(&f, "2026-12-01T03:14:05Z", &line, &len, err, sizeof err), 0);
	assert_non_null(strstr(line, "\"i\":125,"));
	free(line);
	assert_int_equal(rec_file_line_at(&f, "2026-12-01T05:14:05+02:00", &line, &len, err, sizeof err), 0);
	assert_non_null(strstr(line, "\"i\":125,"));
	free(line);
	assert_int_equal(rec_file_line_at(&f, "2027-01-01T00:00:00Z", &line, &len, err, sizeof err), 0);
	assert_non_null(strstr(line, "\"i\":299,"));
	free(line);
	assert_int_equal(rec_file_line_at(&f, NULL, &line, &len, err, sizeof err), 0);
	assert_non_null(strstr(line, "\"i\":299,"));
	free(line);
	assert_int_equal(rec_file_line_at(&f, "2026-12-01T03:11:59Z", &line, &len, err, sizeof err), 2);
	assert_non_null(strstr(err, "before the recording starts"));
	rec_file_close(&f);
	tu_rmrf(dir);
	free(dir);
	free(path);
}

/* Cut at every byte: every frame wholly before the cut is kept, the frame cut
 * gives a prefix of its snapshots, nothing is invented, nothing crashes. */
static void test_cut_everywhere(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), *path = temp_path(dir, "r.rec"), *buf;
	int got[64];
	size_t len;
	struct rec_index full, idx;

	/* five frames of four: every kind of cut, at a quarter of the cost of
	 * forty samples (each cut reads the whole prefix again) */
	write_recording(path, 20, 4, 0);
	buf = tu_read_file(path, &len);
	assert_int_equal(read_all((uint8_t *)buf, len, got, 64, &full), 20);
	assert_int_equal(full.n_frames, 5);
	for (size_t cut = 0; cut <= len; cut++) {
		size_t n = read_all((uint8_t *)buf, cut, got, 64, &idx), whole = 0;
		for (size_t f = 0; f < full.n_frames; f++)
			if (full.frames[f].data_off + full.frames[f].data_len <= cut)
				whole += full.frames[f].n_samples;
		if (cut < REC_HEADER_BYTES) {
			assert_int_equal(n, 0);
			continue;
		}
		assert_true(n >= whole);
		assert_true(n <= 20);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(got[i], (int)i);
		/* a cut inside a frame is said, one at its boundary is not */
		bool at_boundary = cut == REC_HEADER_BYTES || cut == len;
		for (size_t f = 0; f < full.n_frames; f++)
			at_boundary |= full.frames[f].data_off + full.frames[f].data_len == cut;
		if (at_boundary)
			assert_false(idx.open_tail);
		else
			assert_true(idx.open_tail || idx.torn);
		rec_index_free(&idx);
	}
	rec_index_free(&full);
	free(buf);
	tu_rmrf(dir);
	free(dir);
	free(path);
}

static void test_retention(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), *path = temp_path(dir, "r.rec"), *buf;
	static int got[3000];
	size_t len, n;
	struct rec_index idx;
	const uint64_t max = 16 * 1024;

	write_recording(path, 3000, 10, max);
	buf = tu_read_file(path, &len);
	assert_true(len <= max);
	n = read_all((uint8_t *)buf, len, got, 3000, &idx);
	assert_true(n > 100);
	assert_true(n < 3000);
	for (size_t i = 0; i < n; i++) /* the newest, in order, to the last */
		assert_int_equal(got[i], (int)(3000 - n + i));
	assert_int_equal(n % 10, 0); /* whole frames dropped */
	rec_index_free(&idx);
	free(buf);
	tu_rmrf(dir);
	free(dir);
	free(path);
}

static void test_lock_and_refusals(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), *path = temp_path(dir, "r.rec"), *other = temp_path(dir, "x.json");
	struct rec_writer_opts o = {0};
	char err[256], note[256];
	int status;
	struct rec_writer *a = rec_writer_open(path, &o, &status, err, sizeof err, note, sizeof note), *b;
	uint8_t hb[REC_HEADER_BYTES];
	struct rec_header h = {REC_FORMAT_VERSION + 1, 0, 0};
	struct rec_file f;

	assert_non_null(a);
	b = rec_writer_open(path, &o, &status, err, sizeof err, note, sizeof note);
	assert_null(b);
	assert_int_equal(status, 2);
	assert_non_null(strstr(err, "another gputaskman is recording"));
	assert_int_equal(rec_writer_close(a, err, sizeof err), 0);

	tu_write_file(other, "{\"a\":1}\n", 8);
	assert_null(rec_writer_open(other, &o, &status, err, sizeof err, note, sizeof note));
	assert_int_equal(status, 2);
	assert_non_null(strstr(err, "not a gputaskman recording"));
	char *kept = tu_read_file(other, NULL);
	assert_string_equal(kept, "{\"a\":1}\n");
	free(kept);

	rec_header_encode(&h, hb);
	tu_write_file(path, hb, sizeof hb);
	assert_null(rec_writer_open(path, &o, &status, err, sizeof err, note, sizeof note));
	assert_int_equal(status, 2);
	assert_non_null(strstr(err, "newer than this gputaskman reads"));
	assert_int_equal(rec_file_open(path, &f, err, sizeof err), 2);
	assert_non_null(strstr(err, "format version 2"));
	tu_rmrf(dir);
	free(dir);
	free(path);
	free(other);
}

/* A recorder that dies without closing: its open frame is read, and a new
 * recorder on the file closes it again with every snapshot and goes on. */
#ifndef _WIN32
static void test_killed_recorder(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), *path = temp_path(dir, "r.rec"), *buf, err[256], note[256], line[2048];
	int got[200], status;
	size_t len;
	struct rec_index idx;
	pid_t pid = fork();

	if (pid == 0) {
		struct rec_writer_opts o = {0, 30, 0};
		struct rec_writer *w = rec_writer_open(path, &o, &status, err, sizeof err, note, sizeof note);
		for (int i = 0; w && i < 75; i++) {
			size_t n = sample_line(line, sizeof line, T0 + i, i);
			rec_writer_add(w, line, n, (uint64_t)(T0 + i) * 1000000000ull, err, sizeof err);
		}
		_exit(w ? 0 : 1); /* as SIGKILL: no close */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	buf = tu_read_file(path, &len);
	assert_int_equal(read_all((uint8_t *)buf, len, got, 200, &idx), 75);
	assert_true(idx.open_tail);
	assert_int_equal(idx.n_frames, 3);
	rec_index_free(&idx);
	free(buf);

	struct rec_writer_opts o = {0, 30, 0};
	struct rec_writer *w = rec_writer_open(path, &o, &status, err, sizeof err, note, sizeof note);
	assert_non_null(w);
	assert_non_null(strstr(note, "15 snapshots kept"));
	size_t n = sample_line(line, sizeof line, T0 + 100, 75);
	assert_int_equal(rec_writer_add(w, line, n, (uint64_t)(T0 + 100) * 1000000000ull, err, sizeof err), 0);
	assert_int_equal(rec_writer_close(w, err, sizeof err), 0);
	buf = tu_read_file(path, &len);
	assert_int_equal(read_all((uint8_t *)buf, len, got, 200, &idx), 76);
	for (int i = 0; i < 76; i++)
		assert_int_equal(got[i], i);
	assert_false(idx.open_tail);
	assert_false(idx.torn);
	rec_index_free(&idx);
	free(buf);
	tu_rmrf(dir);
	free(dir);
	free(path);
}

/* json_indent over the compact line gives json_print_snapshot's text. */
#endif

static void test_indent_is_json_layout(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_device *d = snapshot_add_device(s);
	struct gtm_process *p = snapshot_add_process(s);
	char *a = NULL, *b = NULL, *c;
	size_t an = 0, bn = 0, cn;
	FILE *fa = tu_memstream(&a, &an), *fb = tu_memstream(&b, &bn);

	s->taken_at_ns = (uint64_t)T0 * 1000000000ull;
	strcpy(s->hostname, "box");
	strcpy(d->name, "GPU \"quoted\" {name} [x], y: z");
	d->mem_total = gtm_u64_of(1ull << 34, GTM_MEASURED);
	d->util_gpu_pct = gtm_f64_of(68.125, GTM_MEASURED);
	p->pid = 42;
	strcpy(p->label, "42");
	strcpy(p->name, "py\\thon");
	struct gtm_gpu_use *u = process_add_use(p);
	u->vram = gtm_u64_of(123456789, GTM_MEASURED);
	s->n_gpu_processes = 1;
	snapshot_add_note(s, "a note, with: punctuation {}");
	assert_int_equal(json_write_snapshot(fa, s, true, true), 0);
	assert_int_equal(json_print_snapshot(fb, s, true), 0);
	tu_memclose(fa);
	tu_memclose(fb);
	assert_null(memchr(a, '\n', an - 1));
	c = json_indent(a, an - 1, &cn);
	assert_non_null(c);
	assert_int_equal(cn, bn);
	assert_string_equal(c, b);
	free(a);
	free(b);
	free(c);
	snapshot_free(s);
}

/* Hostile text: a NUL byte is copied (the fuzzer found a loop that never
 * advanced on one), nesting past the bound is refused. */
static void test_indent_hostile(void **state)
{
	(void)state;
	static const char nul[] = {'[', '1', '\0', '2', ']'};
	char deep[200];
	size_t n;
	char *t = json_indent(nul, sizeof nul, &n);

	assert_non_null(t);
	assert_int_equal(n, 10);
	assert_memory_equal(t, "[\n  1\0002\n]\n", 10);
	free(t);
	memset(deep, '[', sizeof deep);
	assert_null(json_indent(deep, JSON_INDENT_MAX_DEPTH + 1, &n));
	t = json_indent(deep, JSON_INDENT_MAX_DEPTH, &n);
	assert_non_null(t);
	free(t);
}

/* The bytes of a recording of n samples (frames of frame_s seconds); *len. */
static uint8_t *recording_bytes(int n, double frame_s, size_t *len)
{
	char *dir = tu_tempdir(), *path = temp_path(dir, "r.rec");
	char *buf;

	write_recording(path, n, frame_s, 0);
	buf = tu_read_file(path, len);
	tu_rmrf(dir);
	free(dir);
	free(path);
	return (uint8_t *)buf;
}

/* Index entries without a frame (closed, length 0) between the header and
 * the first frame: each is hopped over, none swallows the next entry, and
 * the reader reads each byte a bounded number of times (not the rest of the
 * file per entry). */
static void test_empty_entries(void **state)
{
	(void)state;
	enum { K = 2001 };
	size_t len, head, n;
	uint8_t *rec = recording_bytes(20, 5, &len), eb[REC_ENTRY_BYTES];
	struct rec_entry e = {true, 0, 0, 0, 0};
	struct rec_index idx;
	uint64_t bytes = 0;
	char err[256];
	int got[32];

	head = REC_SKIP_HEAD + (rec[4] | rec[5] << 8);
	uint8_t *buf = malloc(len + (size_t)K * REC_ENTRY_BYTES);
	memcpy(buf, rec, head);
	rec_entry_encode(&e, eb);
	for (size_t i = 0; i < K; i++)
		memcpy(buf + head + i * REC_ENTRY_BYTES, eb, REC_ENTRY_BYTES);
	memcpy(buf + head + (size_t)K * REC_ENTRY_BYTES, rec + head, len - head);
	len += (size_t)K * REC_ENTRY_BYTES;

	n = read_all(buf, len, got, 32, &idx);
	assert_int_equal(n, 20);
	for (int i = 0; i < 20; i++)
		assert_int_equal(got[i], i);
	assert_int_equal(idx.n_frames, 4);
	assert_true(idx.torn);
	assert_non_null(strstr(idx.note, "without its frame"));
	rec_index_free(&idx);

	struct rec_src src = {.fd = -1, .mem = buf, .size = len, .bytes_read = &bytes};
	assert_int_equal(rec_index_build(&src, &idx, err, sizeof err), REC_OK);
	assert_true(bytes < 4 * (uint64_t)len);
	rec_index_free(&idx);
	free(buf);
	free(rec);
}

/* An entry claiming 2^32 - 1 snapshots for a frame of a few hundred bytes is
 * bounded by what the frame can hold; the cursor steps by the lines there. */
static void test_claimed_count(void **state)
{
	(void)state;
	size_t len, head;
	uint8_t *rec = recording_bytes(5, 60, &len);
	struct rec_entry e;
	char err[256], *dir = tu_tempdir(), *path = temp_path(dir, "r.rec");
	struct rec_file f;
	struct rec_cursor c;

	head = REC_SKIP_HEAD + (rec[4] | rec[5] << 8);
	assert_int_equal(rec_entry_decode(rec + head, REC_ENTRY_BYTES, &e), 0);
	assert_int_equal(e.n_samples, 5);
	e.n_samples = UINT32_MAX;
	rec_entry_encode(&e, rec + head);
	FILE *out = fopen(path, "wb");
	assert_int_equal(fwrite(rec, 1, len, out), len);
	fclose(out);

	assert_int_equal(rec_file_open(path, &f, err, sizeof err), 0);
	assert_true(f.n_samples <= e.frame_len * 32768 / 30);
	assert_true(f.idx.torn);
	assert_non_null(strstr(f.idx.note, "more snapshots than its frame can hold"));
	rec_cursor_init(&c, &f);
	uint64_t k = 0, steps = 0;
	while (k < c.n && steps < 100) {
		k = rec_cursor_next(&c, k);
		steps++;
	}
	assert_int_equal(steps, 5); /* lines 1..4, then the end */
	rec_cursor_free(&c);
	rec_file_close(&f);
	tu_rmrf(dir);
	free(dir);
	free(path);
	free(rec);
}

/* Version 0 is no version gputaskman wrote: refused as damaged. */
static void test_version_zero(void **state)
{
	(void)state;
	size_t len;
	uint8_t *rec = recording_bytes(3, 60, &len);
	struct rec_src src = {.fd = -1, .mem = rec, .size = len};
	struct rec_index idx;
	char err[256];

	memset(rec + 16, 0, 4);
	assert_int_equal(rec_index_build(&src, &idx, err, sizeof err), REC_DAMAGED);
	assert_non_null(strstr(err, "version 0"));
	free(rec);
}

/* A frame whose text passes the text limit says so; the lines before it are kept. */
static void test_text_limit(void **state)
{
	(void)state;
	size_t len;
	uint8_t *rec = recording_bytes(300, 1000, &len);
	struct rec_src src = {.fd = -1, .mem = rec, .size = len};
	struct rec_index idx;
	struct rec_frame_text t;
	char err[256];

	assert_int_equal(rec_index_build(&src, &idx, err, sizeof err), REC_OK);
	assert_int_equal(idx.n_frames, 1);
	assert_int_equal(rec_frame_read(&src, &idx.frames[0], &t, err, sizeof err), 0);
	assert_true(t.len > 64 * 1024);
	assert_false(t.text_limit);
	rec_frame_text_free(&t);
	assert_int_equal(rec_frame_read_bounded(&src, &idx.frames[0], 64 * 1024, &t, err, sizeof err), 0);
	assert_true(t.text_limit);
	assert_true(t.n > 0 && t.n < 300);
	rec_frame_text_free(&t);
	rec_index_free(&idx);
	free(rec);
}

/* One decompression context kept for every frame (rec_src.dctx) reads what
 * a fresh one per frame reads, also after a read that stopped halfway
 * through a frame (the text limit): the kept context starts each frame anew. */
static void test_kept_context(void **state)
{
	(void)state;
	size_t len;
	uint8_t *rec = recording_bytes(600, 200, &len); /* frames of about 100 KiB of text */
	struct rec_src fresh = {.fd = -1, .mem = rec, .size = len};
	struct rec_src kept = {.fd = -1, .mem = rec, .size = len, .dctx = rec_dctx_new()};
	struct rec_index idx;
	struct rec_frame_text a, b;
	char err[256];
	size_t n_cut = 0;

	assert_non_null(kept.dctx);
	assert_int_equal(rec_index_build(&kept, &idx, err, sizeof err), REC_OK);
	assert_true(idx.n_frames >= 3);
	for (size_t f = 0; f < idx.n_frames; f++) {
		assert_int_equal(rec_frame_read_bounded(&kept, &idx.frames[f], 64 * 1024, &b, err, sizeof err), 0);
		bool cut = b.text_limit;
		rec_frame_text_free(&b);
		assert_int_equal(rec_frame_read(&fresh, &idx.frames[f], &a, err, sizeof err), 0);
		assert_int_equal(rec_frame_read(&kept, &idx.frames[f], &b, err, sizeof err), 0);
		assert_true(a.complete && b.complete);
		assert_true(cut == (a.len > 64 * 1024));
		n_cut += cut;
		assert_int_equal(a.len, b.len);
		assert_int_equal(a.n, b.n);
		assert_memory_equal(a.text, b.text, a.len);
		rec_frame_text_free(&a);
		rec_frame_text_free(&b);
	}
	assert_true(n_cut >= 2);
	rec_index_free(&idx);
	rec_dctx_free(kept.dctx);
	free(rec);
}

/* Without a time (replay --json, no --at) an unreadable last frame is said as
 * such, not as "at or before that time". */
static void test_last_frame_unreadable(void **state)
{
	(void)state;
	char *dir = tu_tempdir(), *path = temp_path(dir, "r.rec"), err[256], note[256], *line;
	struct rec_writer_opts o = {0, 5, 0};
	int status;
	size_t len;
	struct rec_file f;
	struct rec_writer *w = rec_writer_open(path, &o, &status, err, sizeof err, note, sizeof note);
	char buf[2048];

	assert_non_null(w);
	for (int i = 0; i < 10; i++) {
		size_t n = i < 5 ? sample_line(buf, sizeof buf, T0 + i, i)
				 : (size_t)snprintf(buf, sizeof buf, "{\"schema_version\":1,\"i\":%d}", i);
		assert_int_equal(rec_writer_add(w, buf, n, (uint64_t)(T0 + i) * 1000000000ull, err, sizeof err), 0);
	}
	assert_int_equal(rec_writer_close(w, err, sizeof err), 0);
	assert_int_equal(rec_file_open(path, &f, err, sizeof err), 0);
	assert_int_equal(rec_file_line_at(&f, NULL, &line, &len, err, sizeof err), 2);
	assert_null(strstr(err, "that time"));
	assert_non_null(strstr(err, "last frame"));
	assert_int_equal(rec_file_line_at(&f, "2026-12-01T03:12:09Z", &line, &len, err, sizeof err), 2);
	assert_non_null(strstr(err, "at or before that time"));
	rec_file_close(&f);
	tu_rmrf(dir);
	free(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_roundtrip),   cmocka_unit_test(test_times),
		cmocka_unit_test(test_line_taken_at),     cmocka_unit_test(test_write_read_seek),
		cmocka_unit_test(test_cut_everywhere),    cmocka_unit_test(test_retention),
		cmocka_unit_test(test_lock_and_refusals),
#ifndef _WIN32
		cmocka_unit_test(test_killed_recorder),
#endif
		cmocka_unit_test(test_indent_is_json_layout), cmocka_unit_test(test_indent_hostile),
		cmocka_unit_test(test_empty_entries),     cmocka_unit_test(test_claimed_count),
		cmocka_unit_test(test_version_zero),      cmocka_unit_test(test_text_limit),
		cmocka_unit_test(test_last_frame_unreadable),
		cmocka_unit_test(test_kept_context),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
