/* --trace-opens' pure parts: fanotify's records (fanotify_parse.c), the
 * model filter, the bounded table, one read's handling with an io table of
 * test doubles (opens_events.c), and the `opened` evidence on a model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanotify_parse.h"
#include "identify/ident.h"
#include "identify/ident_internal.h"
#include "open_table.h"
#include "opens_events.h"
#include "opens_mute.h"

/* One event as the kernel lays it out: metadata, then a DFID_NAME record
 * (fsid, file handle of hb bytes, name, padding) when name is given. */
static size_t put_event(uint8_t *b, uint64_t mask, int32_t pid, const char *name, uint32_t hb)
{
	size_t info = 0;
	uint8_t rec[512] = {0};
	if (name) {
		size_t body = 8 + 8 + hb + strlen(name) + 1;
		size_t len = (4 + body + 3) & ~(size_t)3;
		rec[0] = 2;
		uint16_t l16 = (uint16_t)len;
		memcpy(rec + 2, &l16, 2);
		rec[4] = 0x11; /* fsid */
		memcpy(rec + 12, &hb, 4);
		int32_t ht = 1;
		memcpy(rec + 16, &ht, 4);
		for (uint32_t i = 0; i < hb; i++)
			rec[20 + i] = (uint8_t)i;
		memcpy(rec + 20 + hb, name, strlen(name) + 1);
		info = len;
	}
	uint32_t n = (uint32_t)(24 + info);
	uint16_t ml = 24;
	int32_t fd = -1;
	memcpy(b, &n, 4);
	b[4] = 3;
	b[5] = 0;
	memcpy(b + 6, &ml, 2);
	memcpy(b + 8, &mask, 8);
	memcpy(b + 16, &fd, 4);
	memcpy(b + 20, &pid, 4);
	memcpy(b + 24, rec, info);
	return n;
}

static void test_parse_event(void **state)
{
	(void)state;
	uint8_t b[1024];
	size_t n = put_event(b, 0x20, 4242, "model.gguf", 8);
	n += put_event(b + n, 0x4000, -1, NULL, 0);
	size_t off = 0;
	struct fan_event ev;
	assert_int_equal(fan_event_next(b, n, &off, &ev), 1);
	assert_int_equal(ev.pid, 4242);
	assert_int_equal(ev.mask, 0x20);
	assert_true(ev.has_dfid_name);
	assert_int_equal(ev.handle_bytes, 8);
	assert_int_equal(ev.name_len, strlen("model.gguf"));
	assert_memory_equal(ev.name, "model.gguf", ev.name_len);
	assert_int_equal(ev.fsid[0], 0x11);
	assert_int_equal(fan_event_next(b, n, &off, &ev), 1);
	assert_int_equal(ev.mask, 0x4000);
	assert_false(ev.has_dfid_name);
	assert_int_equal(fan_event_next(b, n, &off, &ev), 0);
}

static void test_parse_rejects(void **state)
{
	(void)state;
	uint8_t b[1024];
	size_t n = put_event(b, 0x20, 1, "m.gguf", 8), off = 0;
	struct fan_event ev;
	/* cut anywhere inside the event: malformed, never read past */
	for (size_t cut = 1; cut < n; cut++) {
		off = 0;
		assert_int_equal(fan_event_next(b, cut, &off, &ev), -1);
	}
	b[4] = 2; /* another metadata version */
	off = 0;
	assert_int_equal(fan_event_next(b, n, &off, &ev), -1);
	b[4] = 3;
	uint32_t huge = 100; /* a handle longer than its record: the name is not trusted */
	memcpy(b + 24 + 12, &huge, 4);
	uint8_t *exact = malloc(n); /* exactly the event: a read past it is ASan's */
	memcpy(exact, b, n);
	memset(exact + 24 + 20, 'x', n - 24 - 20); /* no NUL after the handle either */
	off = 0;
	assert_int_equal(fan_event_next(exact, n, &off, &ev), 1);
	assert_false(ev.has_dfid_name);
	free(exact);
}

static void test_model_filter(void **state)
{
	(void)state;
	assert_int_equal(fan_model_kind_of_name("a.gguf", 6), FAN_MODEL_GGUF);
	assert_int_equal(fan_model_kind_of_name("A.SafeTensors", 13), FAN_MODEL_SAFETENSORS);
	assert_int_equal(fan_model_kind_of_name("pytorch_model.bin", 17), FAN_MODEL_BIN);
	assert_int_equal(fan_model_kind_of_name(".bin", 4), FAN_MODEL_NONE);
	assert_int_equal(fan_model_kind_of_name("notes.txt", 9), FAN_MODEL_NONE);
	assert_int_equal(fan_model_kind_of_name("libfoo.so", 9), FAN_MODEL_NONE);
	const uint8_t gguf[] = "GGUF\3\0\0\0", zip[] = "PK\3\4xx", pickle[] = {0x80, 2, 'c'}, elf[] = "\177ELF";
	const uint8_t ggjt[] = "tjgg\1\0\0\0";
	uint8_t st[16] = {0x10, 0, 0, 0, 0, 0, 0, 0, '{', '"'};
	assert_true(fan_model_magic_ok(FAN_MODEL_BIN, gguf, 8));
	assert_true(fan_model_magic_ok(FAN_MODEL_BIN, zip, 6));
	assert_true(fan_model_magic_ok(FAN_MODEL_BIN, pickle, 3));
	assert_true(fan_model_magic_ok(FAN_MODEL_BIN, ggjt, 8));
	assert_false(fan_model_magic_ok(FAN_MODEL_BIN, elf, 4));     /* a .bin that is a program */
	assert_false(fan_model_magic_ok(FAN_MODEL_BIN, gguf, 0));    /* empty */
	assert_true(fan_model_magic_ok(FAN_MODEL_PT, zip, 6));
	assert_false(fan_model_magic_ok(FAN_MODEL_PT, gguf, 8));
	assert_true(fan_model_magic_ok(FAN_MODEL_GGUF, gguf, 8));
	assert_false(fan_model_magic_ok(FAN_MODEL_GGUF, zip, 6));
	assert_true(fan_model_magic_ok(FAN_MODEL_SAFETENSORS, st, sizeof st));
	st[8] = 'x';
	assert_false(fan_model_magic_ok(FAN_MODEL_SAFETENSORS, st, sizeof st));
	assert_true(fan_model_magic_ok(FAN_MODEL_ONNX, elf, 4)); /* no magic: the suffix decides */
}

static void test_table(void **state)
{
	(void)state;
	static struct open_table t;
	struct platform_open o = {.pid = 10, .start_time = 100, .first_unix_ns = 1, .path = "/m/a.gguf"};
	open_table_put(&t, &o);
	o.first_unix_ns = 2;
	open_table_put(&t, &o);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.v[0].count, 2);
	assert_int_equal(t.v[0].first_unix_ns, 1);
	assert_int_equal(t.v[0].last_unix_ns, 2);
	o.start_time = 200; /* the PID reused: a process of its own */
	open_table_put(&t, &o);
	assert_int_equal(t.n, 2);
	for (int i = 0; i < OPEN_TABLE_CAP + 10; i++) {
		struct platform_open x = {.pid = 1000 + (uint32_t)i, .first_unix_ns = 10 + i};
		snprintf(x.path, sizeof x.path, "/m/%d.gguf", i);
		open_table_put(&t, &x);
	}
	assert_int_equal(t.n, OPEN_TABLE_CAP);
	for (size_t i = 0; i < t.n; i++)
		assert_true(t.v[i].first_unix_ns >= 10); /* the oldest went first */
}

/* The io doubles: every folder is /models; heads are GGUF but for "elf.bin";
 * PID 99 is gone. */
static int n_resolve, n_close;
static int dbl_resolve(void *ctx, const struct fan_event *ev, char *out, size_t cap, char *why, size_t wcap)
{
	(void)ctx;
	n_resolve++;
	if (ev->handle_bytes == 3) {
		snprintf(why, wcap, "stale handle");
		return -1;
	}
	snprintf(out, cap, "/models");
	return 7;
}
static long dbl_head(void *ctx, int dirfd, const char *name, uint8_t *b, size_t n)
{
	(void)ctx, (void)dirfd;
	const char *h = strstr(name, "elf") ? "\177ELF" : "GGUF";
	memcpy(b, h, n < 4 ? n : 4);
	return 4;
}
static int dbl_start(void *ctx, uint32_t pid, uint64_t *out)
{
	(void)ctx;
	*out = 5000 + pid;
	return pid == 99 ? -1 : 0;
}
static void dbl_close(void *ctx, int fd)
{
	(void)ctx;
	assert_int_equal(fd, 7);
	n_close++;
}

static void test_handle_buffer(void **state)
{
	(void)state;
	uint8_t b[4096];
	size_t n = 0;
	n += put_event(b + n, 0x20, 42, "notes.txt", 8);   /* not a model: never resolved */
	n += put_event(b + n, 0x20, 1, "own.gguf", 8);     /* gputaskman's own open */
	n += put_event(b + n, 0x20, 42, "qwen.gguf", 8);   /* recorded */
	n += put_event(b + n, 0x20, 42, "elf.bin", 8);     /* a .bin without a model's magic */
	n += put_event(b + n, 0x20, 99, "gone.gguf", 8);   /* its process exited */
	n += put_event(b + n, 0x20, 43, "stale.gguf", 3);  /* the folder cannot be resolved */
	n += put_event(b + n, 0x4000, -1, NULL, 0);        /* the queue overflowed */
	static struct open_table t;
	struct opens_counts c = {0};
	const struct opens_io io = {NULL, dbl_resolve, dbl_head, dbl_start, dbl_close, NULL};
	n_resolve = n_close = 0;
	opens_handle_buffer(b, n, 1, 123, 456, &io, &t, &c);
	assert_int_equal(c.events, 7);
	assert_int_equal(n_resolve, 4);
	assert_int_equal(n_close, 3);
	assert_int_equal(c.model_opens, 1);
	assert_int_equal(c.unresolved, 1);
	assert_int_equal(c.overflows, 1);
	assert_non_null(strstr(c.problem, "overflowed"));
	assert_int_equal(t.n, 1);
	assert_string_equal(t.v[0].path, "/models/qwen.gguf");
	assert_int_equal(t.v[0].pid, 42);
	assert_int_equal(t.v[0].start_time, 5042);
	assert_int_equal(t.v[0].first_unix_ns, 123);
	assert_int_equal(t.v[0].first_mono_ns, 456);
}

/* Busy folders: the tally per folder handle over one read, and the rule. */
static void test_mute_rule(void **state)
{
	(void)state;
	static uint8_t b[1000 * 80];
	size_t n = 0;
	for (int i = 0; i < 300; i++)
		n += put_event(b + n, 0x20, 50, "cache.txt", 8);   /* folder A: busy, nothing like a model */
	for (int i = 0; i < 300; i++)
		n += put_event(b + n, 0x20, 51, "part.txt", 9);    /* folder B: busy, */
	n += put_event(b + n, 0x20, 51, "model.gguf", 9);          /* but a model candidate too */
	for (int i = 0; i < 10; i++)
		n += put_event(b + n, 0x20, 52, "quiet.txt", 10);  /* folder C: quiet */
	for (int i = 0; i < 300; i++)
		n += put_event(b + n, 0x20, 1, "mine.txt", 11);    /* gputaskman's own: not counted */
	static struct open_table t;
	static struct mute_tally tally;
	struct opens_counts c = {0};
	const struct opens_io io = {NULL, dbl_resolve, dbl_head, dbl_start, dbl_close, &tally};
	opens_handle_buffer(b, n, 1, 123, 456, &io, &t, &c);
	assert_int_equal(c.malformed, 0);
	assert_int_equal(tally.n, 3);
	assert_int_equal(tally.v[0].key.handle_bytes, 8);
	assert_int_equal(tally.v[0].non_model, 300);
	assert_false(tally.v[0].model);
	assert_int_equal(tally.v[1].non_model, 300);
	assert_true(tally.v[1].model);
	assert_int_equal(tally.v[2].non_model, 10);
	assert_false(mute_key_same(&tally.v[0].key, &tally.v[1].key));
	assert_true(mute_rule(tally.v[0].non_model, tally.v[0].model, false, 0));
	assert_false(mute_rule(tally.v[1].non_model, tally.v[1].model, false, 0));
	assert_false(mute_rule(tally.v[2].non_model, tally.v[2].model, false, 0));
	assert_false(mute_rule(MUTE_MIN_EVENTS - 1, false, false, 0));
	assert_true(mute_rule(MUTE_MIN_EVENTS, false, false, MUTE_MAX - 1));
	assert_false(mute_rule(MUTE_MIN_EVENTS, false, false, MUTE_MAX));  /* bounded */
	assert_false(mute_rule(100000, false, true, 0));                   /* a known model folder */
	const char *known[] = {"/home/u/.cache/huggingface/hub", "/srv/ollama/models/"};
	assert_true(mute_path_known("/home/u/.cache/huggingface/hub", known, 2));
	assert_true(mute_path_known("/home/u/.cache/huggingface/hub/models--x/blobs", known, 2));
	assert_true(mute_path_known("/srv/ollama/models/blobs", known, 2));
	assert_false(mute_path_known("/home/u/.cache/huggingface/hubx", known, 2));
	assert_false(mute_path_known("/home/u/.cache", known, 2));
	assert_int_equal(mute_seconds(NULL), MUTE_DEFAULT_S);
	assert_int_equal(mute_seconds("2"), 2);
	assert_int_equal(mute_seconds("0"), MUTE_DEFAULT_S);
	assert_int_equal(mute_seconds("5x"), MUTE_DEFAULT_S);
}

static void test_opened_evidence(void **state)
{
	(void)state;
	struct gtm_ident id = {0};
	struct ident_model *m = ident_add_model_evidence(&id, "/nonexistent/q.gguf", MODEL_EV_MAPPED);
	assert_non_null(m);
	/* 2026-12-02T00:12:03Z; 512 MiB before, 4.5 GiB after */
	m = ident_add_model_opened(&id, "/nonexistent/q.gguf", 1796170323000000000LL, 1,
				   gtm_u64_of(512ull << 20, GTM_MEASURED), gtm_u64_of(4608ull << 20, GTM_MEASURED));
	assert_int_equal(id.n_models, 1);
	assert_int_equal(m->evidence, (1u << MODEL_EV_MAPPED) | (1u << MODEL_EV_OPENED));
	assert_int_equal(ident_model_strongest(m), MODEL_EV_MAPPED); /* mapped stays the stronger */
	assert_true(ident_model_confirmed(m));
	assert_string_equal(model_evidence_name(MODEL_EV_OPENED), "opened");
	const char *d = m->evidence_detail[MODEL_EV_OPENED];
	assert_non_null(d);
	assert_non_null(strstr(d, "2026-12-02T00:12:03Z"));
	assert_non_null(strstr(d, "VRAM 512.00 MiB before, 4.50 GiB after (+4.00 GiB)"));
	/* a read-and-closed file alone: held (not "unproven"), but not confirmed */
	struct ident_model *o = ident_add_model_opened(&id, "/nonexistent/w.onnx", 1796170323000000000LL, 3,
						       GTM_U64_NA, GTM_U64_NA);
	assert_false(ident_model_unproven(o));
	assert_false(ident_model_confirmed(o));
	assert_non_null(strstr(o->evidence_detail[MODEL_EV_OPENED], "3 opens; VRAM N/A before, N/A after"));
	for (int i = 0; i < id.n_models; i++)
		ident_model_clear(&id.models[i]);
	free(id.models);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_event),   cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_model_filter),  cmocka_unit_test(test_table),
		cmocka_unit_test(test_handle_buffer), cmocka_unit_test(test_opened_evidence),
		cmocka_unit_test(test_mute_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
