/* diff input: what is refused and how it is said, and that the reader reads
 * what the real `--json` writer (views/json.c) writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/snapshot.h"
#include "testutil.h"
#include "views/diff.h"
#include "snapread/snap_parse.h"
#include "views/json.h"

/* The keys every snapshot has; the tests add gpus and processes. */
#define HEAD "{\"schema_version\":1,\"taken_at\":\"2026-11-30T06:40:00Z\","

static void expect_refused(const char *text, const char *needle)
{
	char err[512] = "";
	json_t *doc = snap_json_parse(text, strlen(text), err, sizeof err);
	if (doc)
		fail_msg("accepted: %s", text);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
	assert_null(strchr(err, '\n'));
}

static void test_refuses_what_is_not_a_snapshot(void **state)
{
	(void)state;
	expect_refused("", "empty file");
	expect_refused("  \n", "empty file");
	expect_refused("{\"schema_version\": 1, \"gpus\": [", "truncated JSON");
	expect_refused("{\"schema_version\": 1, \"gpus\": [1, 2", "truncated JSON");
	expect_refused("hello", "not valid JSON");
	expect_refused("[1, 2]", "not a gputaskman snapshot");
	expect_refused("{\"name\": \"x\"}", "no schema_version");
	expect_refused("{\"schema_version\": \"1\"}", "not a positive integer");
	expect_refused("{\"schema_version\": 0}", "not a positive integer");
	expect_refused("{\"schema_version\": 2, \"gpus\": []}", "schema_version 2 is newer");
	expect_refused("{\"diff_schema_version\": 1}", "is a gputaskman diff");
	expect_refused("{\"schema_version\": 1, \"schema_version\": 1}", "not valid JSON");
}

/* A file with a schema_version but not the keys every snapshot has is refused,
 * naming the key: otherwise it would be compared as "GPU -1 (unnamed)" and "?" rows. */
static void test_refuses_what_lacks_snapshot_keys(void **state)
{
	(void)state;
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{"{\"schema_version\":1}", "\"taken_at\" is missing (a snapshot has a string there)"},
		{"{\"schema_version\":1,\"taken_at\":null,\"gpus\":[],\"processes\":[]}", "\"taken_at\" is missing"},
		{"{\"schema_version\":1,\"taken_at\":5,\"gpus\":[],\"processes\":[]}", "\"taken_at\" is an integer, not a string"},
		{HEAD "\"processes\":[]}", "\"gpus\" is missing (a snapshot has an array there)"},
		{HEAD "\"gpus\":[]}", "\"processes\" is missing"},
		{HEAD "\"gpus\":{},\"processes\":[]}", "\"gpus\" is an object, not an array"},
		{HEAD "\"gpus\":[],\"processes\":{}}", "\"processes\" is an object, not an array"},
		{HEAD "\"gpus\":[{}],\"processes\":[]}", "\"gpus[0].index\" is missing (a snapshot has an integer there)"},
		{HEAD "\"gpus\":[{\"index\":0},{\"index\":\"1\"}],\"processes\":[]}", "\"gpus[1].index\" is a string"},
		{HEAD "\"gpus\":[],\"processes\":[{}]}", "\"processes[0].label\" is missing (a snapshot has a string there)"},
		{HEAD "\"gpus\":[],\"processes\":[{\"label\":\"7\",\"gpus\":[{\"index\":0},{\"vram_bytes\":1}]}]}",
		 "\"processes[0].gpus[1].index\" is missing"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		expect_refused(cases[i].text, "not a gputaskman snapshot");
		expect_refused(cases[i].text, cases[i].needle);
	}
	/* the smallest snapshot: no GPU, no process */
	char err[256];
	const char *empty = HEAD "\"gpus\":[],\"processes\":[]}";
	json_t *doc = snap_json_parse(empty, strlen(empty), err, sizeof err);
	assert_non_null(doc);
	json_decref(doc);
	/* a name with a line break cannot split a line of the report */
	const char *evil = HEAD "\"gpus\":[],\"processes\":[{\"label\":\"1\",\"name\":\"a\\nfake line\\r\"}]}";
	doc = snap_json_parse(evil, strlen(evil), err, sizeof err);
	assert_non_null(doc);
	const char *name = json_string_value(json_object_get(json_array_get(json_object_get(doc, "processes"), 0), "name"));
	assert_string_equal(name, "a\\x0afake line\\x0d");
	json_decref(doc);
}

/* The typed reader needs a GPU index too, for callers that build the document
 * themselves rather than through snap_json_parse. */
static void test_reader_needs_gpu_index(void **state)
{
	(void)state;
	char err[256] = "";
	struct snap_rows s;
	json_t *doc = json_pack("{s:i, s:s, s:[{s:s}], s:[]}", "schema_version", 1, "taken_at", "t", "gpus", "name", "x",
				"processes");

	assert_non_null(doc);
	assert_int_equal(snap_rows_read(doc, &s, err, sizeof err), -1);
	assert_string_equal(err, "gpus[0].index: missing, expected an integer");
	snap_rows_free(&s);
	json_decref(doc);
}

/* One entry per device and process: a repeat is refused, not summed twice. */
static void test_reader_refuses_repeated_device(void **state)
{
	(void)state;
	char err[256] = "";
	struct snap_rows s;
	json_t *doc = json_pack("{s:i, s:s, s:[{s:i}], s:[{s:s, s:[{s:i, s:I}, {s:i, s:I}]}]}", "schema_version", 1,
				"taken_at", "t", "gpus", "index", 0, "processes", "label", "1", "gpus", "index", 0,
				"vram_bytes", (json_int_t)1, "index", 0, "vram_bytes", (json_int_t)2);

	assert_non_null(doc);
	assert_int_equal(snap_rows_read(doc, &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "listed twice"));
	snap_rows_free(&s);
	json_decref(doc);
}

static void test_bounds_nesting_and_size(void **state)
{
	(void)state;
	char err[256];
	size_t n = 100000;
	char *deep = malloc(n + 1);
	assert_non_null(deep);
	for (size_t i = 0; i < n; i++)
		deep[i] = i < n / 2 ? '[' : ']';
	deep[n] = '\0';
	expect_refused(deep, "nested deeper than 64");
	free(deep);
	/* brackets inside strings do not count. On the stack: cmocka's assert_non_null
	 * does not tell gcc that a failed malloc stops here, and at -O2 its
	 * -Warray-bounds then sees memset/memcpy at fixed offsets into a maybe-NULL. */
	static const char start[] = HEAD "\"gpus\":[],\"processes\":[],\"x\":\"";
	char in_string[sizeof start + 1000 + 2];
	memcpy(in_string, start, sizeof start - 1);
	memset(in_string + sizeof start - 1, '[', 1000);
	memcpy(in_string + sizeof start - 1 + 1000, "\"}", 3);
	json_t *ok = snap_json_parse(in_string, strlen(in_string), err, sizeof err);
	assert_non_null(ok);
	json_decref(ok);
	/* millions of tiny values: refused before jansson allocates each */
	n = 2 * (size_t)SNAP_MAX_VALUES + 2;
	char *flat = malloc(n + 1);
	assert_non_null(flat);
	for (size_t i = 0; i < n; i++)
		flat[i] = i % 2 ? ',' : '1';
	flat[0] = '[';
	flat[n - 1] = ']';
	flat[n] = '\0';
	expect_refused(flat, "more than 4000000 JSON values");
	free(flat);
	/* the length check comes before any byte is read */
	assert_null(snap_json_parse("", (size_t)SNAP_MAX_INPUT_BYTES + 1, err, sizeof err));
	assert_non_null(strstr(err, "larger than 64 MiB"));
}

static void expect_bad_field(const char *text, const char *needle)
{
	char err[512] = "";
	struct snap_rows s;
	json_t *doc = snap_json_parse(text, strlen(text), err, sizeof err);
	assert_non_null(doc);
	assert_int_equal(snap_rows_read(doc, &s, err, sizeof err), -1);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
	snap_rows_free(&s);
	json_decref(doc);
}

static void test_wrong_types_name_their_path(void **state)
{
	(void)state;
	expect_bad_field(HEAD "\"gpus\":[],\"processes\":[{\"label\":\"1\",\"pid\":1,\"gpus\":[{\"index\":0,\"vram_bytes\":\"12\"}]}]}",
			 "processes[0].gpus[0].vram_bytes: expected a byte count");
	expect_bad_field(HEAD "\"gpus\":[],\"processes\":[1]}", "processes[0]: expected an object");
	expect_bad_field(HEAD "\"gpus\":[1],\"processes\":[]}", "gpus[0]: expected an object");
	/* an integer, but below zero: said as such, not as the wrong type */
	expect_bad_field(HEAD "\"gpus\":[{\"index\":0,\"memory\":{\"used_bytes\":-5}}],\"processes\":[]}",
			 "gpus[0].memory.used_bytes: expected a byte count (an integer >= 0) or null, found a negative integer");
	expect_bad_field(HEAD "\"gpus\":[{\"index\":0,\"memory\":{\"used_bytes\":1.5}}],\"processes\":[]}",
			 "used_bytes: expected a byte count (an integer >= 0) or null, found a real number");
	expect_bad_field(HEAD "\"gpus\":[{\"index\":-1}],\"processes\":[]}", "gpus[0].index: expected an integer in 0..");
	expect_bad_field(HEAD "\"gpus\":[],\"processes\":[{\"label\":\"1\",\"pid\":-3}]}",
			 "processes[0].pid: expected an integer in 1..4294967295 or null, found a negative integer");
	expect_bad_field(HEAD "\"gpus\":[],\"processes\":[{\"label\":\"1\",\"listening_ports\":[70000]}]}",
			 "listening_ports[0]");
	expect_bad_field(HEAD "\"gpus\":[],\"processes\":[],\"hostname\":5}", "hostname: expected a string");
}

static void test_load_files(void **state)
{
	(void)state;
	char err[512], path[600];
	char *dir = tu_tempdir();

	snprintf(path, sizeof path, "%s/none.json", dir);
	assert_null(snap_json_load(path, err, sizeof err));
	assert_string_equal(err, "no such file");
	assert_null(snap_json_load(dir, err, sizeof err));
	assert_string_equal(err, "is a directory");
	/* refused from fstat, before reading (issue 11): a FIFO blocked forever, a device
	 * was read up to the limit, a 1 GiB file cost 133 MB. Windows (the suite
	 * under Wine) has neither FIFOs nor /dev/zero: only the size limit there. */
#ifndef _WIN32
	alarm(20);
	snprintf(path, sizeof path, "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_null(snap_json_load(path, err, sizeof err));
	assert_string_equal(err, "is a FIFO, not a file");
	assert_null(snap_json_load("/dev/zero", err, sizeof err));
	assert_string_equal(err, "is a device, not a file");
	alarm(0);
#endif
	snprintf(path, sizeof path, "%s/huge.json", dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1ll << 30), 0);
	close(fd);
	assert_null(snap_json_load(path, err, sizeof err));
	assert_string_equal(err, "larger than 64 MiB, not a gputaskman snapshot");
	snprintf(path, sizeof path, "%s/cut.json", dir);
	tu_write_file(path, "{\"schema_version\": 1, \"proc", 27);
	assert_null(snap_json_load(path, err, sizeof err));
	assert_non_null(strstr(err, "truncated JSON"));
	tu_rmrf(dir);
	free(dir);
}

/* A snapshot as the real writer makes it reads back, and compared with itself
 * nothing moved: every row pairs by PID and start time and is hidden in text. */
static void test_reads_the_real_writer(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_device *d = snapshot_add_device(s);
	char err[256];
	struct snap_rows sb, sa;

	s->schema_version = GTM_SCHEMA_VERSION;
	snprintf(s->hostname, sizeof s->hostname, "box");
	snprintf(d->uuid, sizeof d->uuid, "GPU-1234");
	d->mem_used = gtm_u64_of(3 * 1073741824ull, GTM_MEASURED);
	d->mem_total = gtm_u64_of(8 * 1073741824ull, GTM_MEASURED);
	for (int i = 0; i < 3; i++) {
		struct gtm_process *p = snapshot_add_process(s);
		p->pid = (uint32_t)(100 + i);
		p->start_time = 5000u + (unsigned)i;
		snprintf(p->label, sizeof p->label, "%u", p->pid);
		snprintf(p->name, sizeof p->name, "proc%d", i);
		struct gtm_gpu_use *u = process_add_use(p);
		u->vram = i == 2 ? GTM_U64_NA : gtm_u64_of((uint64_t)(i + 1) * 1073741824ull, GTM_MEASURED);
	}
	s->n_gpu_processes = 3;
	/* what the writer writes has every key the loader requires */
	char *text = NULL;
	size_t text_len = 0;
	FILE *mem = tu_memstream(&text, &text_len);
	assert_int_equal(json_print_snapshot(mem, s, true), 0);
	tu_memclose(mem);
	json_t *j1 = snap_json_parse(text, strlen(text), err, sizeof err);
	if (!j1)
		fail_msg("the writer's own snapshot is refused: %s", err);
	json_t *j2 = json_loads(text, 0, NULL);
	free(text);
	assert_int_equal(snap_rows_read(j1, &sb, err, sizeof err), 0);
	assert_int_equal(snap_rows_read(j2, &sa, err, sizeof err), 0);
	struct diff_result *r = diff_compare(&sb, &sa, NULL);
	assert_int_equal(r->n_procs, 3);
	assert_int_equal(r->devs[0].used.delta, 0);
	for (int i = 0; i < r->n_procs; i++) {
		assert_int_equal(r->procs[i].rule, DIFF_RULE_PID_START);
		/* the N/A row stays N/A on both sides: no delta, and nothing to size */
		if (r->procs[i].b->pid == 102)
			assert_false(r->procs[i].vram_total.known);
		else
			assert_int_equal(r->procs[i].vram_total.delta, 0);
	}
	diff_result_free(r);
	snap_rows_free(&sb);
	snap_rows_free(&sa);
	json_decref(j1);
	json_decref(j2);
	snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuses_what_is_not_a_snapshot),
		cmocka_unit_test(test_refuses_what_lacks_snapshot_keys),
		cmocka_unit_test(test_reader_needs_gpu_index),
		cmocka_unit_test(test_reader_refuses_repeated_device),
		cmocka_unit_test(test_bounds_nesting_and_size),
		cmocka_unit_test(test_wrong_types_name_their_path),
		cmocka_unit_test(test_load_files),
		cmocka_unit_test(test_reads_the_real_writer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
