/* The host stream's line parser and line splitter: a recorded-style line,
 * N/A values, names, engines, versions, and hostile lines (garbage,
 * truncated, over-long, overflowing numbers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sources/wsl_proto.h"

#define LUID "0x00000000_0x0000D1A5"
#define GOOD "GTMH1 seq=12 vmwp=4242 vms=1 state=ok;A luid=" LUID " ded=8589934592 shared=0 committed=9663676416" \
	     ";V luid=" LUID " local=0 nonlocal=0 committed=0;V luid=" LUID " local=1048576 nonlocal=2048 committed=2000000" \
	     ";P pid=9000 name=chrome.exe luid=" LUID " local=104857600 nonlocal=0 committed=125829120 eng=3D:12.5,Copy:0" \
	     ";P pid=9100 name=My%20App.exe local=- nonlocal=- committed=- eng=High%20Priority%203D:1"

static struct wsl_host_sample *s;
static char err[128];

static int parse(const char *line)
{
	return wsl_line_parse(line, strlen(line), s, err, sizeof err);
}

static void good_line(void **state)
{
	(void)state;
	assert_int_equal(parse(GOOD), 0);
	assert_int_equal(s->seq, 12);
	assert_int_equal(s->vmwp_pid, 4242);
	assert_int_equal(s->n_vms, 1);
	assert_int_equal(s->state, WSL_HELPER_OK);
	assert_int_equal(s->n_adapters, 1);
	assert_string_equal(s->adapters[0].luid, "0x00000000_0x0000d1a5"); /* compared lower case */
	assert_int_equal(s->adapters[0].dedicated.v, 8589934592ull);
	assert_int_equal(s->adapters[0].vm.n, 2);
	assert_int_equal(s->adapters[0].vm.ctx[1].local, 1048576);
	assert_int_equal(s->adapters[0].vm.ctx[1].nonlocal, 2048);
	assert_int_equal(s->n_procs, 2);
	assert_string_equal(s->procs[0].name, "chrome.exe");
	assert_int_equal(s->procs[0].adapter, 0);
	assert_int_equal(s->procs[0].n_eng, 2);
	assert_string_equal(s->procs[0].eng[0].type, "3D");
	assert_true(s->procs[0].eng[0].pct > 12.49 && s->procs[0].eng[0].pct < 12.51);
	assert_string_equal(s->procs[1].name, "My App.exe");
	assert_false(gtm_u64_ok(s->procs[1].local)); /* '-' is N/A, never 0 */
	assert_int_equal(s->procs[1].adapter, -1);
	assert_string_equal(s->procs[1].eng[0].type, "High Priority 3D");
}

static void helper_states(void **state)
{
	(void)state;
	assert_int_equal(parse("GTMH1 seq=1 vmwp=0 state=error why=PDH%20counters%20absent"), 0);
	assert_int_equal(s->state, WSL_HELPER_ERROR);
	assert_string_equal(s->why, "PDH counters absent");
	assert_int_equal(s->vmwp_pid, 0);
	assert_int_equal(s->n_vms, 0);
	assert_int_equal(parse("GTMH1 seq=2 vmwp=7 vms=3 state=partial\r"), 0); /* CRLF from Windows */
	assert_int_equal(s->n_vms, 3);
	assert_int_equal(parse("GTMH1 seq=3 vmwp=7;Z future=1;A luid=" LUID " ded=1 extra=2"), 0); /* unknown: skipped */
}

static void refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",
		"garbage",
		"GTMH2 seq=1 vmwp=1",                                   /* another version */
		"GTMH1 vmwp=1",                                          /* no seq */
		"GTMH1 seq=18446744073709551616 vmwp=1",                 /* overflow */
		"GTMH1 seq=1 vmwp=4294967296",
		"GTMH1 seq=1 vmwp=1 state=sleepy",
		"GTMH1 seq=1 vmwp=1;V luid=0x0_0x1 local=0 nonlocal=0",  /* short LUID */
		"GTMH1 seq=1 vmwp=1;V luid=" LUID " local=x nonlocal=0", /* not a number */
		"GTMH1 seq=1 vmwp=1;P pid=0 name=x",
		"GTMH1 seq=1 vmwp=1;P pid=5 name=%4",
		"GTMH1 seq=1 vmwp=1;P pid=5 name=a%01b",
		"GTMH1 seq=1 vmwp=1;P pid=5 name=x eng=3D:1.",
		"GTMH1 seq=1 vmwp=1;P pid=5 name=x eng=3D",
		"GTMH1 seq=1 vmwp=1;A luid=" LUID " ded",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		if (parse(bad[i]) == 0)
			fail_msg("accepted: %s", bad[i]);
		assert_true(err[0] != '\0');
	}
}

/* A V record without one of its sizes is refused alone: the header, the
 * adapter, the other contexts and the Windows processes stay; the adapter's
 * list is marked incomplete and the reason kept. */
static void one_record_refused(void **state)
{
	(void)state;
	assert_int_equal(parse("GTMH1 seq=4 vmwp=7;A luid=" LUID " ded=100 shared=0 committed=200;V luid=" LUID
			       " local=5 nonlocal=0;V luid=" LUID " local=9;V luid=" LUID
			       " local=6 nonlocal=1;P pid=9 name=a.exe luid=" LUID " local=3"),
			 0);
	assert_int_equal(s->seq, 4);
	assert_int_equal(s->n_adapters, 1);
	assert_int_equal(s->adapters[0].dedicated.v, 100);
	assert_int_equal(s->adapters[0].vm.n, 2);
	assert_true(s->adapters[0].vm_incomplete);
	assert_int_equal(s->n_procs, 1);
	assert_int_equal(s->n_refused, 1);
	assert_string_equal(s->refused_why, "V record without Non Local Usage");
	assert_int_equal(parse("GTMH1 seq=5 vmwp=7;V luid=" LUID " local=- nonlocal=0"), 0);
	assert_string_equal(s->refused_why, "V record without Local Usage");
	assert_int_equal(s->adapters[0].vm.n, 0);
	assert_int_equal(parse("GTMH1 seq=6 vmwp=7;V luid=" LUID " local=5 nonlocal=0"), 0);
	assert_int_equal(s->n_refused, 0); /* nothing carried over from the line before */
	assert_false(s->adapters[0].vm_incomplete);
	assert_string_equal(s->refused_why, "");
}

/* A context's Total Committed '-' stays unavailable (not a 0). */
static void committed_dash(void **state)
{
	(void)state;
	assert_int_equal(parse("GTMH1 seq=1 vmwp=7;V luid=" LUID " local=5 nonlocal=0 committed=-;V luid=" LUID
			       " local=5 nonlocal=0 committed=0"),
			 0);
	assert_true(s->adapters[0].vm.ctx[0].committed_na);
	assert_false(s->adapters[0].vm.ctx[1].committed_na); /* a measured 0 */
	assert_int_equal(s->adapters[0].vm.ctx[1].committed, 0);
}

/* Byte counts past 2^50 are no GPU's: the line is refused, so no sum wraps. */
static void bytes_capped(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"GTMH1 seq=1 vmwp=7;V luid=" LUID " local=18446744073709551615 nonlocal=0",
		"GTMH1 seq=1 vmwp=7;V luid=" LUID " local=0 nonlocal=1125899906842625",
		"GTMH1 seq=1 vmwp=7;A luid=" LUID " ded=1125899906842625",
		"GTMH1 seq=1 vmwp=7;P pid=5 name=x local=18446744073709551615",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (parse(bad[i]) == 0)
			fail_msg("accepted: %s", bad[i]);
	assert_int_equal(parse("GTMH1 seq=1 vmwp=7;V luid=" LUID " local=1125899906842624 nonlocal=0"), 0); /* 2^50 */
	assert_int_equal(s->adapters[0].vm.ctx[0].local, 1125899906842624ull);
}

static void too_many_contexts(void **state)
{
	(void)state;
	char *line = calloc(1, 200000);
	strcpy(line, "GTMH1 seq=1 vmwp=1");
	for (int i = 0; i < WSL_MAX_CTX + 1; i++)
		strcat(line, ";V luid=" LUID " local=1 nonlocal=0 committed=1");
	assert_int_equal(parse(line), -1);
	free(line);
}

struct got {
	int n;
	size_t last;
};

static void on_line(void *arg, const char *line, size_t len)
{
	struct got *g = arg;
	(void)line;
	g->n++;
	g->last = len;
}

static void splitter(void **state)
{
	(void)state;
	struct wsl_linebuf *lb = calloc(1, sizeof *lb);
	struct got g = {0};
	wsl_linebuf_feed(lb, "GTMH1 seq=1", 11, on_line, &g);
	assert_int_equal(g.n, 0); /* a truncated line waits for its end */
	wsl_linebuf_feed(lb, " vmwp=1\nGTMH1", 13, on_line, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.last, 18);
	char *big = malloc(WSL_LINE_MAX + 10);
	memset(big, 'x', WSL_LINE_MAX + 10);
	wsl_linebuf_feed(lb, big, WSL_LINE_MAX + 10, on_line, &g);
	wsl_linebuf_feed(lb, "\nok\n", 4, on_line, &g);
	assert_int_equal(lb->too_long, 1); /* counted, dropped whole */
	assert_int_equal(g.n, 2);
	assert_int_equal(g.last, 2);
	free(big);
	free(lb);
}

int main(void)
{
	s = calloc(1, sizeof *s);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_line), cmocka_unit_test(helper_states), cmocka_unit_test(refused), cmocka_unit_test(one_record_refused),
		cmocka_unit_test(too_many_contexts), cmocka_unit_test(splitter), cmocka_unit_test(committed_dash),
		cmocka_unit_test(bytes_capped),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(s);
	return rc;
}
