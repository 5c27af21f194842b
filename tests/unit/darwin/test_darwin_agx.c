/* The Apple GPU rules (src/platform/darwin/agx.c) over registry lists read
 * from ioreg's output: the header's memory and load, clients per PID, and
 * per-process GPU% between samples with closed clients, new clients, reused
 * PIDs and WindowServer. The 4-client capture's expected GPU times are its
 * test's own ({444: 0 s, 440: 39.814507416 s, 31299: 3.992585375 s}). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/darwin/agx.h"
#include "darwin_fixture.h"

static void creator(void **state)
{
	(void)state;
	uint32_t pid = 0;
	char name[AGX_NAME_LEN];
	assert_true(agx_creator_parse("pid 31299, voxel_game_examp", &pid, name, sizeof name));
	assert_int_equal(pid, 31299);
	assert_string_equal(name, "voxel_game_examp");
	assert_true(agx_creator_parse("pid 5", &pid, name, sizeof name));
	assert_int_equal(pid, 5);
	assert_string_equal(name, "");
	assert_false(agx_creator_parse("pid , x", &pid, name, sizeof name));
	assert_false(agx_creator_parse("pid 99999999999, x", &pid, name, sizeof name));
	assert_false(agx_creator_parse("task 5, x", &pid, name, sizeof name));
	assert_false(agx_creator_parse(NULL, &pid, name, sizeof name));
}

static void device_m1pro_llama(void **state)
{
	(void)state;
	size_t n;
	char *t = fixture("ioreg-r-d1-IOAccelerator-M1Pro-llama-server-17GB.txt", &n);
	if (!t)
		skip();
	struct ioreg_list l;
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_text(t, n, &l), 1);
	struct agx_device d[2];
	struct agx_client *c;
	size_t nc;
	assert_int_equal(agx_walk(&l, d, 2, &c, &nc), 1);
	assert_int_equal(nc, 0);
	/* Alloc is what the loaded model holds; In use falls near 0 when idle */
	assert_int_equal(d[0].alloc_mem.v, 21343043584ull);
	assert_int_equal(d[0].alloc_mem.prov, GTM_MEASURED);
	assert_int_equal(d[0].in_use_mem.v, 507330560ull);
	assert_true(d[0].device_pct.v == 22.0);
	assert_true(d[0].renderer_pct.v == 20.0);
	assert_true(d[0].tiler_pct.v == 22.0);
	assert_int_equal(d[0].cores, 14);
	assert_string_equal(d[0].model, "AGXAcceleratorG13X"); /* no "model" key in this dump */
	free(c);
	ioreg_list_free(&l);
	free(t);
}

static void device_m4_model_after(void **state)
{
	(void)state;
	size_t n;
	char *t = fixture("ioreg-r-d1-w0-IOAccelerator-M4-trimmed.txt", &n);
	if (!t)
		skip();
	struct ioreg_list l;
	ioreg_list_init(&l);
	ioreg_parse_text(t, n, &l);
	struct agx_device d[1];
	struct agx_client *c;
	size_t nc;
	assert_int_equal(agx_walk(&l, d, 1, &c, &nc), 1);
	assert_string_equal(d[0].model, "Apple M4");
	assert_int_equal(d[0].cores, -1);
	assert_int_equal(d[0].alloc_mem.v, 2679144448ull);
	free(c);
	ioreg_list_free(&l);
	free(t);
}

static void device_plist_m5(void **state)
{
	(void)state;
	size_t n;
	char *t = fixture("ioreg-IOAccelerator-M5Pro-trimmed.plist", &n);
	if (!t)
		skip();
	struct ioreg_list l;
	ioreg_list_init(&l);
	ioreg_parse_plist(t, n, &l);
	struct agx_device d[1];
	struct agx_client *c;
	size_t nc;
	assert_int_equal(agx_walk(&l, d, 1, &c, &nc), 1);
	assert_string_equal(d[0].model, "Apple M5 Pro");
	assert_int_equal(d[0].cores, 16);
	assert_true(d[0].device_pct.v == 12.0 && d[0].tiler_pct.v == 5.0);
	free(c);
	ioreg_list_free(&l);
	free(t);
}

/* A device with no statistics, and statistics out of range: N/A, not 0. */
static void device_missing(void **state)
{
	(void)state;
	static const char s[] = "+-o A  <class AGXAcceleratorG13X, id 0x1>\n"
				"    \"PerformanceStatistics\" = {\"Device Utilization %\"=250,\"Alloc system memory\"=-5}\n"
				"+-o B  <class IOAccelerator, id 0x2>\n    \"IOClass\" = \"B\"\n";
	struct ioreg_list l;
	ioreg_list_init(&l);
	ioreg_parse_text(s, sizeof s - 1, &l);
	struct agx_device d[2];
	struct agx_client *c;
	size_t nc;
	assert_int_equal(agx_walk(&l, d, 2, &c, &nc), 1);
	assert_false(gtm_f64_ok(d[0].device_pct));
	assert_false(gtm_u64_ok(d[0].alloc_mem));
	assert_false(gtm_u64_ok(d[0].in_use_mem));
	assert_false(gtm_f64_ok(d[0].renderer_pct));
	free(c);
	ioreg_list_free(&l);
}

/* The 4-client capture under an accelerator, one sample: GPU time per PID
 * as its own test expects; the first sample has no rate. */
static void clients_capture(void **state)
{
	(void)state;
	size_t n;
	char *t = fixture("ioreg-AGXDeviceUserClient-text-4-clients.txt", &n);
	if (!t)
		skip();
	/* ioreg -c AGXDeviceUserClient prints the clients at depth 0: put them
	 * one level under an accelerator, as the IOKit walk finds them */
	static const char acc[] = "+-o AGX  <class AGXAcceleratorG13X, id 0x9>\n"
				  "    \"PerformanceStatistics\" = {\"Device Utilization %\"=1}\n";
	size_t an = sizeof acc - 1;
	char *all = malloc(an + n * 2 + 1);
	memcpy(all, acc, an);
	size_t k = an;
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '+' && (i == 0 || t[i - 1] == '\n'))
			all[k++] = ' ', all[k++] = ' ';
		all[k++] = t[i];
	}
	struct ioreg_list l;
	ioreg_list_init(&l);
	assert_int_equal(ioreg_parse_text(all, k, &l), 5);
	struct agx_device d[1];
	struct agx_client *c;
	size_t nc;
	assert_int_equal(agx_walk(&l, d, 1, &c, &nc), 1);
	assert_int_equal(nc, 4);
	uint64_t per[3] = {0, 0, 0};
	for (size_t i = 0; i < nc; i++)
		per[c[i].pid == 444 ? 0 : c[i].pid == 440 ? 1 : 2] += c[i].gpu_ns;
	assert_int_equal(per[0], 0);
	assert_int_equal(per[1], 39814507416ull);
	assert_int_equal(per[2], 3992585375ull);
	assert_false(c[0].has_usage);
	assert_string_equal(c[3].name, "voxel_game_examp");

	struct agx_tracker tr;
	memset(&tr, 0, sizeof tr);
	struct agx_proc out[8];
	size_t nr = agx_tracker_update(&tr, c, nc, 1000, NULL, NULL, out, 8);
	/* runningboardd never submitted work: left out; no rates yet */
	assert_int_equal(nr, 2);
	assert_int_equal(out[0].pid, 440);
	assert_int_equal(out[0].n_clients, 2);
	assert_int_equal(out[0].total_ns, 39814507416ull);
	assert_false(gtm_f64_ok(out[0].gpu_pct));
	assert_int_equal(out[1].pid, 31299);
	agx_tracker_free(&tr);
	free(c);
	ioreg_list_free(&l);
	free(all);
	free(t);
}

#define SEC 1000000000ull

static struct agx_client cl(uint64_t id, uint32_t pid, const char *name, uint64_t ns)
{
	struct agx_client c;
	memset(&c, 0, sizeof c);
	c.id = id;
	c.pid = pid;
	snprintf(c.name, sizeof c.name, "%s", name);
	c.gpu_ns = ns;
	c.has_usage = ns > 0;
	return c;
}

struct starts {
	uint32_t pid[4];
	uint64_t st[4];
};

static uint64_t start_of(void *ctx, uint32_t pid)
{
	struct starts *s = ctx;
	for (int i = 0; i < 4; i++)
		if (s->pid[i] == pid)
			return s->st[i];
	return 0;
}

static const struct agx_proc *row(const struct agx_proc *out, size_t n, uint32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].pid == pid)
			return &out[i];
	return NULL;
}

/* Two clients of one PID summed; a closed client of that PID takes its own
 * time away without hiding the other's growth (a per-PID total would have
 * fallen and read as idle); a client opened since is counted whole; idle
 * processes are left out but WindowServer. */
static void rates(void **state)
{
	(void)state;
	struct agx_tracker tr;
	memset(&tr, 0, sizeof tr);
	struct starts s = {{100, 200, 440, 0}, {11, 22, 33, 0}};
	struct agx_proc out[8];
	struct agx_client a[] = {cl(1, 100, "llama-server", 50 * SEC), cl(2, 100, "llama-server", 10 * SEC),
				 cl(3, 200, "idle", 5 * SEC), cl(4, 440, "WindowServer", 7 * SEC)};
	agx_tracker_update(&tr, a, 4, 10 * SEC, start_of, &s, out, 8);
	/* 2 s later: client 1 closed (its 50 s gone), client 2 did 0.5 s */
	struct agx_client b[] = {cl(2, 100, "llama-server", 10 * SEC + SEC / 2), cl(3, 200, "idle", 5 * SEC),
				 cl(4, 440, "WindowServer", 7 * SEC), cl(5, 200, "idle", SEC / 4)};
	size_t n = agx_tracker_update(&tr, b, 4, 12 * SEC, start_of, &s, out, 8);
	const struct agx_proc *r = row(out, n, 100);
	assert_non_null(r);
	assert_true(gtm_f64_ok(r->gpu_pct));
	assert_true(r->gpu_pct.v > 24.99 && r->gpu_pct.v < 25.01);
	assert_int_equal(r->n_clients, 1);
	/* PID 200: client 3 idle, client 5 new with 0.25 s: 12.5 % */
	r = row(out, n, 200);
	assert_non_null(r);
	assert_true(r->gpu_pct.v > 12.49 && r->gpu_pct.v < 12.51);
	assert_int_equal(r->n_clients, 2);
	r = row(out, n, 440);
	assert_non_null(r);
	assert_true(r->gpu_pct.v == 0.0 && r->gpu_pct.prov == GTM_MEASURED);
	/* nothing moved: only WindowServer is shown */
	n = agx_tracker_update(&tr, b, 4, 14 * SEC, start_of, &s, out, 8);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].pid, 440);
	agx_tracker_free(&tr);
}

/* A client whose PID now has another start time belongs to the process
 * that exited: it is not the new one's, even when its time grows. */
static void pid_reuse(void **state)
{
	(void)state;
	struct agx_tracker tr;
	memset(&tr, 0, sizeof tr);
	struct starts s = {{300, 0, 0, 0}, {1000, 0, 0, 0}};
	struct agx_proc out[4];
	struct agx_client a[] = {cl(9, 300, "old", 4 * SEC)};
	agx_tracker_update(&tr, a, 1, 10 * SEC, start_of, &s, out, 4);
	s.st[0] = 2000; /* PID 300 reused */
	struct agx_client b[] = {cl(9, 300, "old", 5 * SEC), cl(10, 300, "new", SEC / 10)};
	size_t n = agx_tracker_update(&tr, b, 2, 11 * SEC, start_of, &s, out, 4);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].name, "new");
	assert_int_equal(out[0].n_clients, 1);
	assert_true(out[0].gpu_pct.v > 9.99 && out[0].gpu_pct.v < 10.01);
	assert_int_equal(out[0].start_time, 2000);
	/* the stale client stays stale while it lingers */
	b[0].gpu_ns = 6 * SEC;
	n = agx_tracker_update(&tr, b, 2, 12 * SEC, start_of, &s, out, 4);
	assert_int_equal(n, 0);
	agx_tracker_free(&tr);
}

/* A counter that went backwards (a new client under a recycled id) or grew
 * more than the wall time: never negative, never over 100 %. */
static void bounds(void **state)
{
	(void)state;
	struct agx_tracker tr;
	memset(&tr, 0, sizeof tr);
	struct agx_proc out[4];
	struct agx_client a[] = {cl(1, 5, "x", 10 * SEC)};
	agx_tracker_update(&tr, a, 1, SEC, NULL, NULL, out, 4);
	a[0].gpu_ns = 2 * SEC;
	assert_int_equal(agx_tracker_update(&tr, a, 1, 2 * SEC, NULL, NULL, out, 4), 0);
	a[0].gpu_ns = 100 * SEC;
	assert_int_equal(agx_tracker_update(&tr, a, 1, 3 * SEC, NULL, NULL, out, 4), 1);
	assert_true(out[0].gpu_pct.v == 100.0);
	/* the same time again: no rate (dt 0) rather than a division by zero */
	assert_int_equal(agx_tracker_update(&tr, a, 1, 3 * SEC, NULL, NULL, out, 4), 1);
	assert_false(gtm_f64_ok(out[0].gpu_pct));
	agx_tracker_free(&tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(creator),        cmocka_unit_test(device_m1pro_llama),
		cmocka_unit_test(device_m4_model_after), cmocka_unit_test(device_plist_m5),
		cmocka_unit_test(device_missing), cmocka_unit_test(clients_capture),
		cmocka_unit_test(rates),          cmocka_unit_test(pid_reuse),
		cmocka_unit_test(bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
