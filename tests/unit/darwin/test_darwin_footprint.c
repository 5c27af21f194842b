/* footprint(1)'s output (src/platform/darwin/footprint.c): the quoted text
 * and -f bytes captures of ../shared/fixtures/macos, one PID refused among
 * others, sizes and their units, and hostile lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/darwin/footprint.h"
#include "darwin_fixture.h"

#define KB 1024ull
#define MB (1024ull * KB)
#define GB (1024ull * MB)

static void sizes(void **state)
{
	(void)state;
	static const struct { const char *s; uint64_t v; bool exact; size_t used; } cases[] = {
		{"18 GB (16384", 18 * GB, false, 5}, {"9678 KB", 9678 * KB, false, 7},
		{"214434824 B", 214434824, true, 11}, {"0 B", 0, true, 3}, {"1.5 MB", 3 * MB / 2, false, 6},
		{"800 KB        0 B", 800 * KB, false, 6},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 1;
		bool ex = false;
		const char *s = cases[i].s;
		assert_int_equal(footprint_size(s, s + strlen(s), &v, &ex), cases[i].used);
		assert_int_equal(v, cases[i].v);
		assert_int_equal(ex, cases[i].exact);
	}
	static const char *const bad[] = {"", "GB", "12", "12 ", "12 XB", "12 Bytes", "-1 B", "99999999999999999999 B",
					  "99999999999 TB"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t v;
		bool ex;
		assert_int_equal(footprint_size(bad[i], bad[i] + strlen(bad[i]), &v, &ex), 0);
	}
}

/* llama-server's Metal buffers are untagged VM_ALLOCATE, not graphics. */
static void text_llama_server(void **state)
{
	(void)state;
	size_t n;
	char *t = fixture("footprint-text-llama-server-18GB.txt", &n);
	if (!t)
		skip();
	struct fp_result *r = malloc(sizeof *r);
	assert_int_equal(footprint_parse(t, n, r), 1);
	assert_int_equal(r->procs[0].pid, 61332);
	assert_string_equal(r->procs[0].name, "llama-server");
	assert_int_equal(r->procs[0].footprint, 18 * GB);
	assert_false(r->procs[0].exact);
	assert_int_equal(r->procs[0].untagged_vm_dirty, 9310 * MB);
	assert_int_equal(r->procs[0].graphics_dirty, 800 * KB);
	assert_int_equal(r->procs[0].n_categories, 6);
	assert_false(r->procs[0].has_phys);
	free(r);
	free(t);
}

/* wgpu's: two "(graphics)" categories, and no name before the PID. */
static void text_wgpu(void **state)
{
	(void)state;
	size_t n;
	char *t = fixture("footprint-text-wgpu-9354.txt", &n);
	if (!t)
		skip();
	struct fp_result *r = malloc(sizeof *r);
	assert_int_equal(footprint_parse(t, n, r), 1);
	assert_int_equal(r->procs[0].pid, 12761);
	assert_string_equal(r->procs[0].name, "");
	assert_int_equal(r->procs[0].footprint, 60 * MB);
	assert_int_equal(r->procs[0].graphics_dirty, 4464 * KB + 2624 * KB);
	assert_int_equal(r->procs[0].untagged_vm_dirty, 384 * KB);
	assert_int_equal(r->procs[0].n_categories, 17);
	free(r);
	free(t);
}

static void bytes_denied(void **state)
{
	(void)state;
	size_t n;
	char *t = fixture("footprint-bytes-two-pids-one-denied.txt", &n);
	if (!t)
		skip();
	struct fp_result *r = malloc(sizeof *r);
	assert_int_equal(footprint_parse(t, n, r), 2);
	assert_int_equal(r->n_denied, 1);
	assert_int_equal(r->denied[0], 418);
	assert_int_equal(r->procs[0].pid, 640);
	assert_string_equal(r->procs[0].name, "Finder");
	assert_int_equal(r->procs[0].footprint, 214434824);
	assert_true(r->procs[0].exact);
	assert_true(r->procs[0].has_phys && r->procs[0].has_peak);
	assert_int_equal(r->procs[0].phys_footprint, 214483976);
	assert_int_equal(r->procs[0].phys_footprint_peak, 250954712);
	assert_int_equal(r->procs[1].pid, 900);
	assert_string_equal(r->procs[1].name, "launchd_sim");
	assert_int_equal(r->procs[1].phys_footprint, 10485760);
	free(r);
	free(t);
}

static void bytes_categories(void **state)
{
	(void)state;
	size_t n;
	char *t = fixture("footprint-bytes-categories-total.txt", &n);
	if (!t)
		skip();
	struct fp_result *r = malloc(sizeof *r);
	assert_int_equal(footprint_parse(t, n, r), 1);
	assert_int_equal(r->procs[0].pid, 0);
	assert_int_equal(r->procs[0].footprint, 12345678);
	assert_int_equal(r->procs[0].n_categories, 1); /* TOTAL is no category */
	assert_int_equal(r->procs[0].graphics_dirty, 0);
	assert_int_equal(r->procs[0].phys_footprint_peak, 23456789);
	assert_int_equal(r->procs[0].phys_footprint, 12345678);
	free(r);
	free(t);
}

static void hostile(void **state)
{
	(void)state;
	struct fp_result *r = malloc(sizeof *r);
	assert_int_equal(footprint_parse("", 0, r), -1);
	assert_int_equal(footprint_parse("hello\nworld", 11, r), -1);
	static const char *const lines[] = {
		"x [abc]: 64-bit    Footprint: 5 B\n", "junk Footprint: 5 B\n", "[1]: Footprint: 5\n",
		"[99999999999]: Footprint: 5 B\n", "Footprint: 5 B\n5 B 5 B\n5 B 5 B 5 B\n5 B 5 B 5 B 7\n",
		"footprint: Unable to analyze process with pid \n", "Footprint: 5 B\n    phys_footprint: \n",
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		size_t l = strlen(lines[i]);
		char *cut = malloc(l);
		memcpy(cut, lines[i], l);
		for (size_t k = 0; k <= l; k++)
			(void)footprint_parse(cut, k, r);
		free(cut);
	}
	/* a name before [PID] that is not one: no process */
	assert_int_equal(footprint_parse(lines[0], strlen(lines[0]), r), -1);
	/* more processes than FP_MAX_PROCS: the first ones kept */
	char *many = malloc(FP_MAX_PROCS * 2 * 40);
	size_t k = 0;
	for (int i = 0; i < FP_MAX_PROCS * 2; i++)
		k += (size_t)sprintf(many + k, "p [%d]: 64-bit Footprint: %d B\n", i + 1, i);
	assert_int_equal(footprint_parse(many, k, r), FP_MAX_PROCS);
	assert_int_equal(r->procs[FP_MAX_PROCS - 1].pid, FP_MAX_PROCS);
	free(many);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),       cmocka_unit_test(text_llama_server), cmocka_unit_test(text_wgpu),
		cmocka_unit_test(bytes_denied), cmocka_unit_test(bytes_categories), cmocka_unit_test(hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
