/* The WDDM rules: Running Time deltas (N/A until two samples, PID reuse,
 * counters going backwards, vanished instances), Task Manager's aggregation
 * (sum per engine clamped, max per type, busiest engine), the memory rules
 * (Local = VRAM, Non Local = spill, paged estimated, fallback, CStatus) and
 * how they land in a snapshot use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/wddm/wddm_engine_agg.h"
#include "sources/wddm/wddm_item.h"
#include "sources/wddm/wddm_engine_track.h"
#include "sources/wddm/wddm_memory.h"
#include "sources/wddm/wddm_use.h"

#define SEC 10000000ull /* 100 ns ticks */

static bool track(struct wddm_engine_tracker *t, const char *inst, uint64_t start, uint64_t run, uint64_t stamp,
		  double *pct)
{
	return wddm_engine_tracker_update(t, inst, strlen(inst), start, run, stamp, pct);
}

static void test_deltas(void **state)
{
	(void)state;
	struct wddm_engine_tracker *t = wddm_engine_tracker_new();
	const char *a = "pid_9524_luid_0x00000000_0x000095CA_phys_0_eng_0_engtype_3D";
	double pct;

	wddm_engine_tracker_begin(t);
	assert_false(track(t, a, 111, 1000, 10 * SEC, &pct)); /* one sample: N/A, not 0 */
	wddm_engine_tracker_end(t);
	wddm_engine_tracker_begin(t);
	assert_true(track(t, a, 111, 1000 + SEC / 4, 11 * SEC, &pct));
	assert_float_equal(pct, 25.0, 1e-9);
	/* the same instance twice in one refresh gives the first answer */
	assert_true(track(t, a, 111, 1000 + SEC, 11 * SEC, &pct));
	assert_float_equal(pct, 25.0, 1e-9);
	wddm_engine_tracker_end(t);

	/* the PID reused by a new process: another start time starts over */
	wddm_engine_tracker_begin(t);
	assert_false(track(t, a, 222, 5, 12 * SEC, &pct));
	wddm_engine_tracker_end(t);
	assert_int_equal(wddm_engine_tracker_size(t), 1); /* the old process's entry is forgotten */
	wddm_engine_tracker_begin(t);
	assert_true(track(t, a, 222, 5 + SEC / 2, 13 * SEC, &pct));
	assert_float_equal(pct, 50.0, 1e-9);
	wddm_engine_tracker_end(t);

	/* a counter that goes backwards is a recreated instance: N/A, then on */
	wddm_engine_tracker_begin(t);
	assert_false(track(t, a, 222, 3, 14 * SEC, &pct));
	wddm_engine_tracker_end(t);
	wddm_engine_tracker_begin(t);
	assert_true(track(t, a, 222, 3 + SEC / 10, 15 * SEC, &pct));
	assert_float_equal(pct, 10.0, 1e-9);
	/* no time between samples: N/A */
	wddm_engine_tracker_end(t);
	wddm_engine_tracker_begin(t);
	assert_false(track(t, a, 222, 3 + SEC, 15 * SEC, &pct));
	wddm_engine_tracker_end(t);

	/* a vanished instance is forgotten; when it comes back it starts over */
	wddm_engine_tracker_begin(t);
	wddm_engine_tracker_end(t);
	assert_int_equal(wddm_engine_tracker_size(t), 0);
	wddm_engine_tracker_begin(t);
	assert_false(track(t, a, 222, 9 * SEC, 20 * SEC, &pct));
	wddm_engine_tracker_end(t);
	wddm_engine_tracker_free(t);
}

/* Many instances: the table grows and keeps every one apart. */
static void test_many_instances(void **state)
{
	(void)state;
	struct wddm_engine_tracker *t = wddm_engine_tracker_new();
	char name[128];
	double pct;

	for (int round = 0; round < 2; round++) {
		wddm_engine_tracker_begin(t);
		for (int i = 0; i < 3000; i++) {
			snprintf(name, sizeof name, "pid_%d_luid_0x00000000_0x0000A18D_phys_0_eng_%d_engtype_3D", i / 10, i % 10);
			bool ok = track(t, name, 7, (uint64_t)round * (uint64_t)(i % 100) * SEC / 100, (uint64_t)(round + 1) * SEC, &pct);
			assert_int_equal(ok, round == 1);
			if (ok)
				assert_float_equal(pct, (double)(i % 100), 1e-9);
		}
		wddm_engine_tracker_end(t);
	}
	assert_int_equal(wddm_engine_tracker_size(t), 3000);
	wddm_engine_tracker_free(t);
}

static struct wddm_engine_sample sample(uint32_t pid, uint64_t luid, uint32_t eng, const char *type, bool ok, double pct)
{
	struct wddm_engine_sample s = {.pid = pid, .start_time = 1, .luid = luid, .eng = eng, .ok = ok, .pct = pct};
	snprintf(s.type, sizeof s.type, "%s", type);
	return s;
}

static const struct wddm_type_load *type_of(const struct wddm_load *l, const char *type)
{
	for (int i = 0; i < l->n_types; i++)
		if (!strcmp(l->types[i].type, type))
			return &l->types[i];
	return NULL;
}

static void test_aggregation(void **state)
{
	(void)state;
	/* source 7 of the fixture: pid 100 lists eng_0 twice (60 + 25) and
	 * eng_2 "Compute 0" at 30; a second process shares eng_0; two Copy
	 * engines; a second adapter. */
	struct wddm_engine_sample s[] = {
		sample(100, 0xF8BE, 0, "3D", true, 60), sample(100, 0xF8BE, 0, "3D", true, 25),
		sample(100, 0xF8BE, 2, "Compute 0", true, 30), sample(200, 0xF8BE, 0, "3D", true, 40),
		sample(200, 0xF8BE, 5, "Copy", true, 20), sample(300, 0xF8BE, 6, "Copy", true, 30),
		sample(300, 0xF8BE, 7, "VideoDecode", false, 0), sample(100, 0x1111, 0, "3D", true, 5),
	};
	struct wddm_engine_loads l = {0};

	wddm_engine_aggregate(s, sizeof s / sizeof s[0], &l);
	const struct wddm_load *a = wddm_engine_loads_adapter(&l, 0xF8BE);
	assert_non_null(a);
	/* eng_0: 60 + 25 + 40 clamped to 100; Copy: the busiest Copy engine, not their sum */
	assert_float_equal(type_of(a, "3D")->pct, 100, 1e-9);
	assert_float_equal(type_of(a, "Copy")->pct, 30, 1e-9);
	assert_float_equal(type_of(a, "Compute 0")->pct, 30, 1e-9);
	assert_false(type_of(a, "VideoDecode")->ok); /* listed, no sample: N/A, not 0 */
	assert_true(a->ok);
	assert_float_equal(a->busiest_pct, 100, 1e-9);
	assert_string_equal(a->busiest_type, "3D");

	const struct wddm_load *p = wddm_engine_loads_proc(&l, 100, 1, 0xF8BE);
	assert_non_null(p);
	assert_float_equal(p->busiest_pct, 85, 1e-9); /* its duplicate instances summed */
	assert_float_equal(type_of(p, "Compute 0")->pct, 30, 1e-9);
	const struct wddm_load *p2 = wddm_engine_loads_proc(&l, 100, 1, 0x1111);
	assert_float_equal(p2->busiest_pct, 5, 1e-9); /* per adapter */
	assert_null(wddm_engine_loads_proc(&l, 100, 2, 0xF8BE)); /* another start time: another process */
	const struct wddm_load *p3 = wddm_engine_loads_proc(&l, 300, 1, 0xF8BE);
	assert_float_equal(p3->busiest_pct, 30, 1e-9);
	assert_false(type_of(p3, "VideoDecode")->ok);

	/* a use: the types keep their names; the fixed fields take theirs */
	struct gtm_gpu_use u = {0};
	wddm_use_fill_engines(&u, p);
	assert_int_equal(u.n_engines, 2);
	assert_float_equal(u.busy_pct.v, 85, 1e-9);
	assert_float_equal(u.gfx_pct.v, 85, 1e-9);
	assert_float_equal(u.sm_pct.v, 30, 1e-9);
	assert_false(gtm_f64_ok(u.copy_pct));
	assert_non_null(u.engines);
	assert_string_equal(u.engines[0].name, p->types[0].type);
	gpu_use_release(&u);
	assert_null(u.engines);
	assert_int_equal(u.n_engines, 0);
	struct gtm_device d = {0};
	wddm_device_fill_engines(&d, a);
	assert_float_equal(d.util_gpu_pct.v, 100, 1e-9);
	assert_int_equal(d.n_engines, 4);
	assert_false(gtm_f64_ok(d.engines[3].busy_pct));
	wddm_engine_loads_free(&l);
}

static void put(struct wddm_items *c, struct wddm_item *v, int n, const char *const *names, const uint64_t *vals,
		const uint32_t *st)
{
	c->added = true;
	c->v = v;
	c->n = c->cap = (size_t)n;
	for (int i = 0; i < n; i++) {
		memset(&v[i], 0, sizeof v[i]);
		assert_int_equal(wddm_instance_parse(names[i], strlen(names[i]), &v[i].id), 0);
		v[i].value = vals[i];
		v[i].cstatus = st ? st[i] : 0;
	}
}

#define GIB (1024ull * 1024 * 1024)

static void test_memory(void **state)
{
	(void)state;
	static const char *const names[] = {"pid_20_luid_0x00000000_0x0000A18D_phys_0",
					    "pid_10_luid_0x00000000_0x0000A18D_phys_0",
					    "pid_30_luid_0x00000000_0x0000A18D_phys_0"};
	static const char *const names_rev[] = {names[2], names[1], names[0]};
	struct wddm_item v[WDDM_PM_N][3];
	struct wddm_items c[WDDM_PM_N] = {0};
	struct wddm_mem_rows rows = {0};
	struct wddm_mem_use m;

	put(&c[WDDM_PM_LOCAL], v[0], 3, names, (const uint64_t[]){2 * GIB, 1 * GIB, 5}, NULL);
	put(&c[WDDM_PM_NONLOCAL], v[1], 3, names_rev, (const uint64_t[]){7, 100, 200}, NULL);
	put(&c[WDDM_PM_COMMITTED], v[2], 3, names, (const uint64_t[]){3 * GIB, 1 * GIB, 9},
	    (const uint32_t[]){0, 1, 0xC0000BBA});
	put(&c[WDDM_PM_DEDICATED], v[3], 3, names, (const uint64_t[]){8 * GIB, 8 * GIB, 8 * GIB}, NULL);
	wddm_mem_rows_join(c, &rows);
	assert_int_equal(rows.n, 3);
	assert_int_equal(rows.v[0].pid, 20); /* PDH order of Local Usage */
	assert_int_equal(rows.v[2].pid, 30);

	wddm_mem_use_of(&rows.v[0], &m);
	assert_true(m.vram.v == 2 * GIB && m.vram.prov == GTM_MEASURED); /* Local, not Dedicated */
	assert_true(m.spill.v == 200);
	assert_true(m.paged.v == GIB - 200 && m.paged.prov == GTM_ESTIMATED);
	assert_false(m.vram_fallback);
	wddm_mem_use_of(&rows.v[1], &m);
	assert_true(m.paged.v == 0 && m.paged.prov == GTM_ESTIMATED); /* clamped, NEW_DATA is a sample */
	wddm_mem_use_of(&rows.v[2], &m);
	assert_false(gtm_u64_ok(m.paged)); /* Total Committed invalid: N/A, never 0 */
	assert_true(m.vram.v == 5);

	/* a bad CStatus on Local Usage: VRAM N/A, not Dedicated's number */
	v[0][0].cstatus = 0x800007D8;
	wddm_mem_rows_join(c, &rows);
	wddm_mem_use_of(&rows.v[0], &m);
	assert_false(gtm_u64_ok(m.vram));
	assert_false(m.vram_fallback);

	/* Local/Non Local missing: Dedicated/Shared stand in, paged N/A, said so */
	c[WDDM_PM_LOCAL].added = false;
	c[WDDM_PM_NONLOCAL].added = false;
	wddm_mem_rows_join(c, &rows);
	assert_int_equal(rows.n, 3);
	assert_int_equal(rows.v[0].pid, 20); /* the next counter's order */
	wddm_mem_use_of(&rows.v[0], &m);
	assert_true(m.vram.v == 8 * GIB && m.vram_fallback);
	assert_false(gtm_u64_ok(m.spill)); /* Shared Usage not listed either */
	assert_false(gtm_u64_ok(m.paged));
	struct gtm_gpu_use u = {0};
	wddm_use_fill_memory(&u, &m);
	assert_non_null(strstr(u.mem_note, "Dedicated"));

	/* several phys of one adapter add up; an N/A part makes the sum N/A */
	struct wddm_mem_use acc = {gtm_u64_of(1, GTM_MEASURED), gtm_u64_of(2, GTM_MEASURED), GTM_U64_NA, false, false};
	struct wddm_mem_use x = {gtm_u64_of(10, GTM_MEASURED), GTM_U64_NA, GTM_U64_NA, false, false};
	wddm_mem_use_add(&acc, &x);
	assert_true(acc.vram.v == 11);
	assert_false(gtm_u64_ok(acc.spill));
	wddm_mem_rows_free(&rows);
}

/* vmwp.exe's instances share one name: the m-th of each counter's array is
 * one instance (docs/wsl.md), in PDH order, a later repeat never folded
 * into the first. */
static void test_memory_repeated_names(void **state)
{
	(void)state;
	static const char *const names[] = {"pid_77_luid_0x00000000_0x0000A18D_phys_0",
					    "pid_9_luid_0x00000000_0x0000A18D_phys_0", "pid_77_luid_0x00000000_0x0000A18D_phys_0",
					    "pid_77_luid_0x00000000_0x0000A18D_phys_0"};
	struct wddm_item v[WDDM_PM_N][4];
	struct wddm_items c[WDDM_PM_N] = {0};
	struct wddm_mem_rows rows = {0};

	put(&c[WDDM_PM_LOCAL], v[0], 4, names, (const uint64_t[]){0, 50, 1 * GIB, 2 * GIB}, NULL);
	put(&c[WDDM_PM_NONLOCAL], v[1], 4, names, (const uint64_t[]){1, 51, 2, 3}, (const uint32_t[]){0, 0, 0xC0000BBA, 0});
	put(&c[WDDM_PM_COMMITTED], v[2], 4, names, (const uint64_t[]){10, 52, 20, 30}, NULL);
	wddm_mem_rows_join(c, &rows);
	assert_int_equal(rows.n, 4);
	static const uint64_t local[] = {0, 50, GIB, 2 * GIB}, committed[] = {10, 52, 20, 30};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rows.v[i].pid, i == 1 ? 9 : 77);
		assert_int_equal(rows.v[i].v[WDDM_PM_LOCAL].v, local[i]);
		assert_true(rows.v[i].v[WDDM_PM_NONLOCAL].listed);
		assert_int_equal(rows.v[i].v[WDDM_PM_COMMITTED].v, committed[i]);
	}
	assert_int_equal(rows.v[3].v[WDDM_PM_NONLOCAL].v, 3);
	assert_false(gtm_u64_ok(wddm_value_bytes(&rows.v[2].v[WDDM_PM_NONLOCAL]))); /* its own bad CStatus */
	assert_true(gtm_u64_ok(wddm_value_bytes(&rows.v[0].v[WDDM_PM_NONLOCAL])));
	wddm_mem_rows_free(&rows);
}

static void test_adapter_sums(void **state)
{
	(void)state;
	static const char *const names[] = {"luid_0x00000000_0x00005678_phys_0_part_0",
					    "luid_0x00000000_0x00005678_phys_0_part_1",
					    "luid_0x00000000_0x0000AAAA_phys_0_part_0"};
	struct wddm_item v[3];
	struct wddm_items c = {0};
	uint64_t luids[4];

	put(&c, v, 3, names, (const uint64_t[]){100, 23, 5}, NULL);
	assert_true(wddm_items_sum_luid(&c, 0x5678).v == 123);
	assert_false(gtm_u64_ok(wddm_items_sum_luid(&c, 0x9999))); /* not listed: N/A */
	v[2].cstatus = 0xC0000BBA;
	assert_false(gtm_u64_ok(wddm_items_sum_luid(&c, 0xAAAA)));
	assert_int_equal(wddm_items_luids(&c, luids, 0, 4), 2);
	assert_true(luids[0] == 0x5678 && luids[1] == 0xAAAA);
	c.added = false;
	assert_int_equal(wddm_items_luids(&c, luids, 0, 4), 0);
}

/* An engine instance listed twice in one collect (one process's two handles
 * on the engine): Task Manager sums the raw Running Times before the delta.
 * Two collects one second apart, the repeated instance's two counters moving
 * by 0.2 s and 0.1 s: 30 %, not twice the first one's 20 %. */
static void test_repeated_engine_instance(void **state)
{
	(void)state;
	static const char *const names[] = {"pid_40_luid_0x00000000_0x0000A18D_phys_0_eng_0_engtype_3D",
					    "pid_41_luid_0x00000000_0x0000A18D_phys_0_eng_0_engtype_3D",
					    "pid_40_luid_0x00000000_0x0000A18D_phys_0_eng_0_engtype_3D"};
	struct wddm_item v[3];
	struct wddm_items c = {0}, folded = {0};
	struct wddm_engine_tracker *t = wddm_engine_tracker_new();
	struct wddm_engine_sample smp[3];
	struct wddm_engine_loads loads = {0};
	void *scratch = NULL;
	size_t scratch_cap = 0, n = 0;
	const uint64_t run[2][3] = {{1000000, 500000, 300000}, {3000000, 1000000, 1300000}};

	for (int k = 0; k < 2; k++) {
		put(&c, v, 3, names, run[k], (const uint32_t[]){0, 0, 0});
		for (int i = 0; i < 3; i++) {
			v[i].name_len = (uint16_t)strlen(names[i]);
			memcpy(v[i].name, names[i], v[i].name_len + 1);
			v[i].stamp = 10000000ull * (uint64_t)(k + 1);
		}
		assert_int_equal(wddm_items_fold_repeats(&c, &folded, &scratch, &scratch_cap), 1);
		assert_int_equal(folded.n, 2);
		assert_true(folded.v[0].id.pid == 40 && folded.v[1].id.pid == 41); /* PDH order kept */
		assert_true(folded.v[0].value == run[k][0] + run[k][2]);
		wddm_engine_tracker_begin(t);
		n = 0;
		for (size_t i = 0; i < folded.n; i++) {
			const struct wddm_item *it = &folded.v[i];
			smp[n] = (struct wddm_engine_sample){.pid = it->id.pid, .luid = it->id.luid, .phys = it->id.phys,
							     .eng = it->id.eng};
			snprintf(smp[n].type, sizeof smp[n].type, "%s", it->id.engtype);
			smp[n].ok = wddm_engine_tracker_update(t, it->name, it->name_len, 0, it->value, it->stamp, &smp[n].pct);
			n++;
		}
		wddm_engine_tracker_end(t);
	}
	wddm_engine_aggregate(smp, n, &loads);
	const struct wddm_load *p40 = wddm_engine_loads_proc(&loads, 40, 0, 0xA18D);
	assert_non_null(p40);
	assert_true(p40->ok);
	assert_float_equal(p40->busiest_pct, 30.0, 1e-9);
	assert_float_equal(wddm_engine_loads_proc(&loads, 41, 0, 0xA18D)->busiest_pct, 5.0, 1e-9);
	/* a repeat without a sample makes the folded one N/A, never a partial sum */
	put(&c, v, 3, names, run[1], (const uint32_t[]){0, 0, 0xC0000BBA});
	for (int i = 0; i < 3; i++) {
		v[i].name_len = (uint16_t)strlen(names[i]);
		memcpy(v[i].name, names[i], v[i].name_len + 1);
	}
	wddm_items_fold_repeats(&c, &folded, &scratch, &scratch_cap);
	assert_false(wddm_cstatus_valid(folded.v[0].cstatus));
	wddm_engine_loads_free(&loads);
	wddm_engine_tracker_free(t);
	wddm_items_free(&folded);
	free(scratch);
}

/* Past the bound, one counter's instances keep the largest, in PDH order. */
static void test_instances_cut(void **state)
{
	(void)state;
	enum { N = WDDM_MAX_INSTANCES + 3 };
	struct wddm_items c = {.added = true};
	void *scratch = NULL;
	size_t scratch_cap = 0;

	c.v = calloc(N, sizeof *c.v);
	c.n = c.cap = N;
	for (size_t i = 0; i < N; i++) {
		c.v[i].id.pid = (uint32_t)i;
		c.v[i].name_len = 1;
		c.v[i].value = 1000 + i % 7; /* three of the 1000s go */
	}
	c.v[5].value = c.v[9].value = 1; /* and these two, the smallest */
	assert_int_equal(wddm_items_keep_biggest(&c, WDDM_MAX_INSTANCES, &scratch, &scratch_cap), 3);
	assert_int_equal(c.n, WDDM_MAX_INSTANCES);
	for (size_t i = 0; i < c.n; i++) {
		assert_true(c.v[i].value > 1);
		assert_true(i == 0 || c.v[i].id.pid > c.v[i - 1].id.pid); /* PDH order */
	}
	size_t left_1000 = 0;
	for (size_t i = 0; i < c.n; i++)
		left_1000 += c.v[i].value == 1000;
	assert_int_equal(left_1000, (N + 6) / 7 - 1); /* the last 1000 went: equal values keep the earlier */
	assert_true(c.v[0].id.pid == 0 && c.v[5].id.pid == 6 && c.v[8].id.pid == 10);
	assert_int_equal(wddm_items_keep_biggest(&c, WDDM_MAX_INSTANCES, &scratch, &scratch_cap), 0);
	free(c.v);
	free(scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deltas),
		cmocka_unit_test(test_many_instances),
		cmocka_unit_test(test_aggregation),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_memory_repeated_names),
		cmocka_unit_test(test_adapter_sums),
		cmocka_unit_test(test_repeated_engine_instance),
		cmocka_unit_test(test_instances_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
