/* The recorder's kept rows (views/json_rows.c): a snapshot written through the
 * cache is the same text, byte for byte, as written from scratch, while rows
 * stay, change in each field the kept text comes from, come and go, and
 * outnumber the cache's slots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/util.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "identify/runtimes.h"
#include "views/json.h"

static char *write_doc(const struct gtm_snapshot *s, struct json_row_cache *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(json_write_snapshot_rows(f, s, true, true, c), 0);
	fclose(f);
	return text;
}

/* Written through c, the document is what it is without. */
static void same_text(const struct gtm_snapshot *s, struct json_row_cache *c)
{
	char *want = write_doc(s, NULL), *got = write_doc(s, c);
	assert_string_equal(got, want);
	free(want);
	free(got);
}

static struct gtm_proc_detail *detail(const char *arg0, const char *cwd)
{
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	atomic_init(&d->refs, 1);
	d->argv = xcalloc(2, sizeof *d->argv);
	d->argv[d->argc++] = xstrdup(arg0);
	d->cwd = xstrdup(cwd);
	return d;
}

static struct gtm_snapshot *snap(int n)
{
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_device *d = snapshot_add_device(s);
	str_copy(d->uuid, "GPU-0", sizeof d->uuid);
	for (int i = 0; i < n; i++) {
		struct gtm_process *p = snapshot_add_process(s);
		struct gtm_gpu_use *u = process_add_use(p);
		p->pid = (uint32_t)(100 + i);
		p->start_time = 5000 + (uint64_t)i;
		snprintf(p->label, sizeof p->label, "%u", p->pid);
		str_copy(p->name, "sleep", sizeof p->name);
		str_copy(p->owner_reason, "PID is this process", sizeof p->owner_reason);
		str_copy(p->user, "root", sizeof p->user);
		p->detail = detail("sleep", "/tmp");
		p->ident = ident_new();
		p->ident->category = IDENT_CAT_COMPUTE;
		str_copy(p->ident->category_reason, "the driver lists it", sizeof p->ident->category_reason);
		u->vram = gtm_u64_of((uint64_t)i << 20, GTM_MEASURED);
	}
	s->n_gpu_processes = n;
	return s;
}

static void test_rows_change_field_by_field(void **state)
{
	(void)state;
	struct json_row_cache *c = json_row_cache_new();
	struct gtm_snapshot *s = snap(3);
	struct gtm_process *p = &s->processes[1];

	gtm_ident_free_hook = ident_free;
	gtm_explain_free_hook = explain_free;
	same_text(s, c); /* written and kept */
	same_text(s, c); /* copied */
	p->uses[0].vram.v += 1; /* a reading: never kept */
	p->rss = gtm_u64_of(77, GTM_MEASURED);
	same_text(s, c);
	str_copy(p->owner_reason, "another reason", sizeof p->owner_reason);
	same_text(s, c);
	str_copy(p->name, "python3", sizeof p->name);
	same_text(s, c);
	str_copy(p->user, "alice", sizeof p->user);
	same_text(s, c);
	p->uid = 1000, p->ppid = 1;
	same_text(s, c);
	p->owner = GTM_OWNER_EXITED, p->exited_pid = 9, p->exited_pairing = GTM_OWNER_MATCHED;
	same_text(s, c);
	p->exited_pairing = GTM_OWNER_GUESSED;
	same_text(s, c);
	/* a new detail: a new command line, the old one freed meanwhile */
	proc_detail_unref(p->detail);
	p->detail = detail("llama-server", "/srv");
	same_text(s, c);
	p->ident->category = IDENT_CAT_AI;
	same_text(s, c);
	str_copy(p->ident->category_reason, "AI runtime", sizeof p->ident->category_reason);
	same_text(s, c);
	p->ident->n_installed_omitted = 2;
	same_text(s, c);
	/* runtimes and an explanation: written every time */
	p->ident->runtimes = xcalloc(1, sizeof *p->ident->runtimes);
	assert_true(runtimes_lookup("llama.cpp", &p->ident->runtimes[0]));
	p->ident->n_runtimes = 1;
	same_text(s, c);
	p->explain = xcalloc(1, sizeof *p->explain);
	str_copy(p->explain->runtime, "llama.cpp", sizeof p->explain->runtime);
	same_text(s, c);
	ex_add_note(p->explain, "changed");
	same_text(s, c);
	ident_free(p->ident);
	p->ident = NULL; /* a row without identification */
	same_text(s, c);
	explain_free(p->explain);
	p->explain = NULL;
	same_text(s, c);
	same_text(s, c);
	/* the same PID, another start time: another process */
	p->start_time++;
	same_text(s, c);
	snapshot_free(s);
	json_row_cache_free(c);
}

/* What one write of a document hands the stream (a stream that keeps the largest). */
static ssize_t note_write(void *cookie, const char *buf, size_t n)
{
	size_t *most = cookie;
	(void)buf;
	if (n > *most)
		*most = n;
	return (ssize_t)n;
}

/* A document no row cache keeps text from (--once --json) is written in
 * chunks of JW_BUF_STREAM, fewer pages of buffer touched; the text is the
 * same as through the cache's 64 KiB buffer. */
static void test_stream_written_in_small_chunks(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snap(300);
	struct json_row_cache *c = json_row_cache_new();
	size_t most = 0;
	FILE *f = fopencookie(&most, "w", (cookie_io_functions_t){.write = note_write});
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(json_write_snapshot(f, s, true, false), 0);
	fclose(f);
	assert_true(most > 0);
	assert_true(most <= JW_BUF_STREAM);
	same_text(s, c);
	json_row_cache_free(c);
	snapshot_free(s);
}

static void test_more_rows_than_slots(void **state)
{
	(void)state;
	struct json_row_cache *c = json_row_cache_new();
	struct gtm_snapshot *s = snap(2500), *t = snap(40);

	same_text(s, c);
	same_text(s, c);
	same_text(t, c); /* other rows with the first rows' PIDs */
	same_text(s, c);
	snapshot_free(s);
	snapshot_free(t);
	json_row_cache_free(c);
}

/* A tail with runtimes is kept by its identification's stamp: a clone with
 * the same stamp gets the kept text; evidence added after it clears the
 * stamp and the tail is written again. */
static void test_tail_kept_by_stamp(void **state)
{
	(void)state;
	struct json_row_cache *c = json_row_cache_new();
	struct gtm_snapshot *s = snap(2);
	struct gtm_process *p = &s->processes[0];

	gtm_ident_free_hook = ident_free;
	p->ident->runtimes = xcalloc(1, sizeof *p->ident->runtimes);
	assert_true(runtimes_lookup("llama.cpp", &p->ident->runtimes[0]));
	p->ident->n_runtimes = 1;
	p->ident->stamp = 7;
	same_text(s, c);
	char *before = write_doc(s, NULL);
	/* the next refresh's clone of the same identification */
	struct gtm_ident *next = ident_clone(p->ident);
	ident_free(p->ident);
	p->ident = next;
	same_text(s, c);
	/* proof the text was kept, not written: a change the stamp does not
	 * show (which ident.h forbids) stays unseen */
	p->ident->runtimes[0].name = "renamed";
	char *kept = write_doc(s, c);
	assert_string_equal(kept, before);
	assert_null(strstr(kept, "renamed"));
	free(kept);
	/* evidence clears the stamp: written again, with the model */
	assert_non_null(ident_add_model_evidence(p->ident, "llama3-8b", MODEL_EV_API));
	assert_int_equal(p->ident->stamp, 0);
	same_text(s, c);
	char *now = write_doc(s, c);
	assert_non_null(strstr(now, "llama3-8b"));
	assert_non_null(strstr(now, "renamed"));
	free(now);
	free(before);
	snapshot_free(s);
	json_row_cache_free(c);
}

/* A plain identification is kept by its fields, whatever its stamp: on a
 * platform that identifies afresh every refresh each clone has a new one. */
static void test_plain_tail_kept_across_stamps(void **state)
{
	(void)state;
	struct json_row_cache *c = json_row_cache_new();
	struct gtm_snapshot *s = snap(1);
	struct gtm_process *p = &s->processes[0];

	gtm_ident_free_hook = ident_free;
	p->ident->stamp = 11;
	same_text(s, c); /* written and kept */
	uint64_t copies = json_row_cache_copies(c);
	p->ident->stamp = 12;
	same_text(s, c);
	assert_int_equal(json_row_cache_copies(c), copies + 2); /* head and tail */
	/* the same row given a runtime: written again, not copied */
	p->ident->runtimes = xcalloc(1, sizeof *p->ident->runtimes);
	assert_true(runtimes_lookup("llama.cpp", &p->ident->runtimes[0]));
	p->ident->n_runtimes = 1;
	copies = json_row_cache_copies(c);
	same_text(s, c);
	assert_int_equal(json_row_cache_copies(c), copies + 1); /* the head only */
	snapshot_free(s);
	json_row_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_change_field_by_field),
		cmocka_unit_test(test_more_rows_than_slots),
		cmocka_unit_test(test_stream_written_in_small_chunks),
		cmocka_unit_test(test_tail_kept_by_stamp),
		cmocka_unit_test(test_plain_tail_kept_across_stamps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
