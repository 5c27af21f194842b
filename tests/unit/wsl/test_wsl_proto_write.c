/* The helper's line writer against the Linux side's parser: every record
 * written reads back as written (numbers, '-' as N/A, names with the bytes
 * the protocol splits on, UTF-8 and control bytes, engines busiest first and
 * bounded), and a vmwp.exe instance without a valid sample makes a record the
 * reader refuses alone, as docs/wsl.md says. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/wsl_proto.h"
#include "sources/wsl_proto_write.h"

#define LUID_A 0x0000D1A5ull
#define LUID_B 0x00000001000095CAull
#define GIB (1ull << 30)

static struct wsl_host_sample *s;
static struct wsl_line l;
static char err[128];

static int parse_line(void)
{
	assert_true(l.len > 0 && l.buf[l.len - 1] == '\n');
	assert_int_equal(strlen(l.buf), l.len);
	return wsl_line_parse(l.buf, l.len - 1, s, err, sizeof err);
}

static gtm_u64 b(uint64_t v)
{
	return gtm_u64_of(v, GTM_MEASURED);
}

/* A line of every record kind, the game's name given. */
static void write_sample(const char *game)
{
	struct wsl_host_engine eng[] = {{"3D", 25.04}, {"High Priority 3D", 12.25}, {"Copy", 0}};

	wsl_line_header(&l, 7, 4242, 2, WSL_HELPER_PARTIAL, "counters missing: \\GPU Engine(*)\\Running Time; x=1 100%");
	wsl_line_adapter(&l, LUID_A, b(9 * GIB), b(0), GTM_U64_NA);
	wsl_line_vm(&l, LUID_A, b(0), b(0), b(0));
	wsl_line_vm(&l, LUID_A, b(2 * GIB), b(1 << 20), GTM_U64_NA);
	wsl_line_vm(&l, LUID_B, b(5), b(6), b(7));
	wsl_line_proc(&l, 9000, game, LUID_A, GTM_U64_NA, b(0), b(3 * GIB), eng, 3);
	wsl_line_proc(&l, 9100, "", LUID_B, b(1), b(2), b(3), NULL, 0);
	wsl_line_end(&l);
}

static void round_trip(void **state)
{
	(void)state;

	write_sample("My Game; v2=ok%,é:\t.exe");
	assert_int_equal(parse_line(), -1); /* a tab is a control byte: the reader refuses it */
	assert_string_equal(err, "P: bad name");

	write_sample("My Game; v2=ok%,é:.exe");
	assert_int_equal(parse_line(), 0);
	assert_int_equal(s->seq, 7);
	assert_int_equal(s->vmwp_pid, 4242);
	assert_int_equal(s->n_vms, 2);
	assert_int_equal(s->state, WSL_HELPER_PARTIAL);
	assert_string_equal(s->why, "counters missing: \\GPU Engine(*)\\Running Time; x=1 100%");
	assert_int_equal(s->n_adapters, 2);
	assert_string_equal(s->adapters[0].luid, "0x00000000_0x0000d1a5");
	assert_string_equal(s->adapters[1].luid, "0x00000001_0x000095ca");
	assert_int_equal(s->adapters[0].dedicated.v, 9 * GIB);
	assert_true(gtm_u64_ok(s->adapters[0].shared) && s->adapters[0].shared.v == 0); /* a measured 0 stays 0 */
	assert_false(gtm_u64_ok(s->adapters[0].committed));
	assert_int_equal(s->adapters[0].vm.n, 2); /* PDH order kept */
	assert_int_equal(s->adapters[0].vm.ctx[0].local, 0);
	assert_int_equal(s->adapters[0].vm.ctx[1].local, 2 * GIB);
	assert_int_equal(s->adapters[0].vm.ctx[1].nonlocal, 1 << 20);
	assert_int_equal(s->adapters[1].vm.n, 1);
	assert_int_equal(s->adapters[1].vm.ctx[0].committed, 7);
	assert_int_equal(s->n_procs, 2);
	assert_string_equal(s->procs[0].name, "My Game; v2=ok%,é:.exe");
	assert_false(gtm_u64_ok(s->procs[0].local)); /* '-': N/A, never 0 */
	assert_true(gtm_u64_ok(s->procs[0].nonlocal) && s->procs[0].nonlocal.v == 0);
	assert_int_equal(s->procs[0].committed.v, 3 * GIB);
	assert_int_equal(s->procs[0].adapter, 0);
	assert_int_equal(s->procs[0].n_eng, 3);
	assert_string_equal(s->procs[0].eng[1].type, "High Priority 3D");
	assert_true(fabs(s->procs[0].eng[0].pct - 25.0) < 1e-9);
	assert_true(fabs(s->procs[0].eng[1].pct - 12.3) < 1e-9);
	assert_true(s->procs[0].eng[2].pct == 0);
	assert_string_equal(s->procs[1].name, "?"); /* a process whose name is unknown */
	assert_int_equal(s->procs[1].adapter, 1);
	assert_int_equal(s->procs[1].n_eng, 0);
}

static void engines_bounded(void **state)
{
	(void)state;
	struct wsl_host_engine eng[12];
	for (int i = 0; i < 12; i++) {
		snprintf(eng[i].type, sizeof eng[i].type, "E_%d", i);
		eng[i].pct = i == 1 ? NAN : 100 - i;
	}
	wsl_line_header(&l, 1, 0, 0, WSL_HELPER_OK, NULL);
	wsl_line_proc(&l, 1, "a.exe", LUID_A, b(1), b(1), b(1), eng, 12);
	wsl_line_end(&l);
	assert_non_null(strstr(l.buf, "eng=E_0:100.0,E_2:98.0,"));
	assert_null(strstr(l.buf, "E_1:")); /* no sample: left out, never 0 */
	assert_null(strstr(l.buf, "E_9:")); /* eight at most */
	assert_null(strstr(l.buf, " why="));
	assert_int_equal(parse_line(), 0);
	assert_int_equal(s->procs[0].n_eng, 8);
	assert_string_equal(s->procs[0].eng[7].type, "E_8");
}

/* The record alone is refused: the line is read, its adapter marked. */
static void vm_without_sample_is_refused(void **state)
{
	(void)state;
	wsl_line_header(&l, 3, 4242, 1, WSL_HELPER_OK, NULL);
	wsl_line_vm(&l, LUID_A, GTM_U64_NA, b(0), b(0));
	wsl_line_end(&l);
	assert_non_null(strstr(l.buf, ";V luid=0x00000000_0x0000D1A5 local=- nonlocal=0 committed=0\n"));
	assert_int_equal(parse_line(), 0);
	assert_int_equal(s->n_refused, 1);
	assert_true(s->adapters[0].vm_incomplete);
	assert_int_equal(s->adapters[0].vm.n, 0);
}

static void error_state(void **state)
{
	(void)state;
	wsl_line_header(&l, 9, 0, 3, WSL_HELPER_ERROR, "no GPU counters");
	wsl_line_end(&l);
	assert_string_equal(l.buf, "GTMH1 seq=9 vmwp=0 vms=3 state=error why=no%20GPU%20counters\n");
	assert_int_equal(parse_line(), 0);
	assert_int_equal(s->state, WSL_HELPER_ERROR);
	assert_int_equal(s->n_vms, 3);
	assert_string_equal(s->why, "no GPU counters");
}

static int setup(void **state)
{
	(void)state;
	s = calloc(1, sizeof *s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(s);
	wsl_line_free(&l);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(engines_bounded),
		cmocka_unit_test(vm_without_sample_is_refused),
		cmocka_unit_test(error_state),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
