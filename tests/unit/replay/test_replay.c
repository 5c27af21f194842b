/* Replay's readers: a snapshot written by the real --json writer read back into
 * the core model (snap_model), values, N/A kept N/A, identification and
 * breakdown; hostile shapes; and the big-VRAM-change rule at its thresholds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/util.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "identify/runtimes.h"
#include "record/rec_seek.h"
#include "record/rec_time.h"
#include "record/rec_writer.h"
#include "snapread/snap_model.h"
#include "snapread/snap_rows.h"
#include "views/json.h"

#define GB (1024ull * 1024ull * 1024ull)

static struct gtm_process *add_proc(struct gtm_snapshot *s, uint32_t pid, const char *label, int dev, uint64_t vram)
{
	struct gtm_process *p = snapshot_add_process(s);
	p->pid = pid;
	p->start_time = 1000 + pid;
	str_copy(p->label, label, sizeof p->label);
	str_copy(p->name, "python3", sizeof p->name);
	p->owner = GTM_OWNER_LOCAL;
	if (dev >= 0) {
		struct gtm_gpu_use *u = process_add_use(p);
		u->dev_index = dev;
		u->vram = gtm_u64_of(vram, GTM_MEASURED);
	}
	return p;
}

static struct gtm_snapshot *two_gpus(uint64_t used0, uint64_t used1)
{
	struct gtm_snapshot *s = snapshot_new();
	for (int i = 0; i < 2; i++) {
		struct gtm_device *d = snapshot_add_device(s);
		snprintf(d->uuid, sizeof d->uuid, "GPU-%d", i);
		d->mem_total = gtm_u64_of(80 * GB, GTM_MEASURED);
		d->mem_used = gtm_u64_of(i ? used1 : used0, GTM_MEASURED);
		d->util_gpu_pct = GTM_F64_NA;
	}
	s->taken_at_ns = 1796094720ull * 1000000000ull;
	s->schema_version = GTM_SCHEMA_VERSION;
	return s;
}

static char *to_json(const struct gtm_snapshot *s, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	assert_non_null(f);
	assert_int_equal(json_write_snapshot(f, s, true, true), 0);
	fclose(f);
	return text;
}

static struct gtm_snapshot *round_trip(const struct gtm_snapshot *s)
{
	size_t len;
	char err[256], *text = to_json(s, &len);
	struct gtm_snapshot *r = snap_model_parse(text, len, err, sizeof err);
	if (!r)
		fail_msg("not read back: %s", err);
	free(text);
	return r;
}

static void test_devices_round_trip(void **state)
{
	(void)state;
	struct gtm_snapshot *s = two_gpus(20 * GB, 1 * GB), *r;
	struct gtm_device *d = &s->devices[0];
	str_copy(d->name, "NVIDIA H100", sizeof d->name);
	d->vendor = GTM_VENDOR_NVIDIA;
	d->temp_c = gtm_f64_of(61, GTM_MEASURED);
	d->power_w = gtm_f64_of(120.5, GTM_MEASURED);
	d->n_processes_seen = 3;
	d->n_engines = 1;
	str_copy(d->engines[0].name, "gfx", sizeof d->engines[0].name);
	d->engines[0].busy_pct = gtm_f64_of(12, GTM_MEASURED);
	s->devices[1].n_processes_seen = -1;
	str_copy(s->hostname, "box", sizeof s->hostname);

	r = round_trip(s);
	assert_int_equal(r->n_devices, 2);
	assert_int_equal(r->taken_at_ns, s->taken_at_ns);
	assert_string_equal(r->hostname, "box");
	assert_string_equal(r->devices[0].name, "NVIDIA H100");
	assert_int_equal(r->devices[0].vendor, GTM_VENDOR_NVIDIA);
	assert_true(gtm_u64_ok(r->devices[0].mem_used));
	assert_int_equal(r->devices[0].mem_used.v, 20 * GB);
	assert_true(r->devices[0].temp_c.v == 61);
	assert_true(r->devices[0].power_w.v == 120.5);
	/* N/A stays N/A: never a zero */
	assert_false(gtm_f64_ok(r->devices[0].util_gpu_pct));
	assert_false(gtm_f64_ok(r->devices[0].fan_pct));
	assert_false(gtm_u64_ok(r->devices[0].mem_reserved));
	assert_int_equal(r->devices[0].n_processes_seen, 3);
	assert_int_equal(r->devices[1].n_processes_seen, -1);
	assert_int_equal(r->devices[0].n_engines, 1);
	assert_string_equal(r->devices[0].engines[0].name, "gfx");
	assert_string_equal(r->devices[1].uuid, "GPU-1");
	snapshot_free(s);
	snapshot_free(r);
}

/* A WDDM use's engines (behind a pointer the use owns) read back by name and
 * load; a use with none reads back with none, not an empty allocation. */
static void test_use_engines_round_trip(void **state)
{
	(void)state;
	struct gtm_snapshot *s = two_gpus(2 * GB, 1 * GB), *r;
	struct gtm_engine e[2] = {{"3D", {40, GTM_MEASURED}}, {"Copy", GTM_F64_NA}};
	gpu_use_set_engines(&add_proc(s, 10, "10", 0, GB)->uses[0], e, 2);
	add_proc(s, 11, "11", 1, GB);
	s->n_gpu_processes = 2;

	r = round_trip(s);
	assert_int_equal(r->n_processes, 2);
	const struct gtm_gpu_use *u = &r->processes[0].uses[0], *none = &r->processes[1].uses[0];
	assert_int_equal(u->n_engines, 2);
	assert_string_equal(u->engines[0].name, "3D");
	assert_true(u->engines[0].busy_pct.v == 40);
	assert_string_equal(u->engines[1].name, "Copy");
	assert_false(gtm_f64_ok(u->engines[1].busy_pct));
	assert_int_equal(none->n_engines, 0);
	assert_null(none->engines);
	snapshot_free(s);
	snapshot_free(r);
}

/* WSL2 rows read back with their provenance: a '*x'/'?x' row (its owner
 * exited, its context still listed) keeps its pairing's MATCHED/GUESSED, not
 * MEASURED, and the VM row says it is one: the replayed views never count the
 * VM's contexts twice. */
static void test_wsl_rows(void **state)
{
	(void)state;
	struct gtm_snapshot *s = two_gpus(4 * GB, 0), *r;
	s->mode = GTM_MODE_WSL;
	struct gtm_process *p = add_proc(s, 0, "W:4242", 0, 3 * GB);
	p->owner = GTM_OWNER_HOST;
	p->wsl_vm_row = p->windows_row = true;
	p = add_proc(s, 0, "*x100", 0, 2 * GB);
	p->owner = GTM_OWNER_EXITED;
	p->exited_pid = 100;
	p->exited_pairing = GTM_OWNER_MATCHED;
	p->vram_inferred_by = "wsl-context-match";
	p->uses[0].vram.prov = GTM_MATCHED;
	p = add_proc(s, 0, "?x101", 0, GB);
	p->owner = GTM_OWNER_EXITED;
	p->exited_pid = 101;
	p->exited_pairing = GTM_OWNER_GUESSED;
	p->vram_inferred_by = "wsl-context-match";
	p->uses[0].vram.prov = GTM_GUESSED;
	p = add_proc(s, 0, "x4000001", 0, GB / 2); /* a container's exited owner: the driver measured it */
	p->owner = GTM_OWNER_EXITED;
	p->exited_pid = 55;
	p->exited_pairing = GTM_OWNER_MATCHED;
	s->n_gpu_processes = 4;
	r = round_trip(s);
	assert_int_equal(r->n_processes, 4);
	assert_true(r->processes[0].wsl_vm_row);
	assert_int_equal(r->processes[0].uses[0].vram.prov, GTM_MEASURED);
	assert_int_equal(r->processes[1].uses[0].vram.prov, GTM_MATCHED);
	assert_string_equal(r->processes[1].vram_inferred_by, "wsl-context-match");
	assert_int_equal(r->processes[2].uses[0].vram.prov, GTM_GUESSED);
	assert_false(r->processes[3].wsl_vm_row);
	assert_int_equal(r->processes[3].uses[0].vram.prov, GTM_MEASURED);
	snapshot_free(r);
	snapshot_free(s);
}

static void test_process_ident_explain(void **state)
{
	(void)state;
	struct gtm_snapshot *s = two_gpus(20 * GB, 1 * GB), *r;
	struct gtm_process *p = add_proc(s, 4242, "4242", 0, 18 * GB);
	struct gtm_ident *id;
	struct gtm_explain *e;
	struct ex_segment *seg;

	add_proc(s, 7, "7", 1, 1 * GB)->rss = gtm_u64_of(5 * GB, GTM_MEASURED);
	s->n_gpu_processes = 2;
	p = &s->processes[0]; /* the array moved */
	p->detail = xcalloc(1, sizeof *p->detail);
	atomic_init(&p->detail->refs, 1);
	p->detail->argv = xcalloc(3, sizeof(char *));
	p->detail->argv[p->detail->argc++] = xstrdup("llama-server");
	p->detail->argv[p->detail->argc++] = xstrdup("-m");
	p->detail->exe = xstrdup("/usr/bin/llama-server");
	p->ports_read = true;
	p->ports[p->n_ports++] = 8080;
	id = p->ident = ident_new();
	id->category = IDENT_CAT_AI;
	str_copy(id->category_reason, "AI runtime llama.cpp", sizeof id->category_reason);
	id->runtimes = xcalloc(1, sizeof *id->runtimes);
	assert_true(runtimes_lookup("llama.cpp", &id->runtimes[0]));
	id->runtimes[0].evidence[id->runtimes[0].n_evidence++] = xstrdup("executable llama-server");
	id->n_runtimes = 1;
	assert_non_null(ident_add_model_evidence(id, "qwen3:14b", MODEL_EV_API));
	e = p->explain = xcalloc(1, sizeof *e);
	gtm_explain_free_hook = explain_free;
	str_copy(e->runtime, "llama.cpp", sizeof e->runtime);
	seg = ex_add_seg(e, EX_SEG_KV, EX_SRC_LOG, "CUDA0");
	seg->gpu = 0;
	seg->bytes = gtm_u64_of(2 * GB, GTM_REPORTED);
	seg->join = EX_JOIN_PCI;
	ex_add_note(e, "a note");
	e->n_devs = 1; /* the per-GPU entry of a split model */
	e->devs[0] = (struct ex_device){.gpu = 0, .uuid = "GPU-x", .runtime_dev = "CUDA1", .join = EX_JOIN_PCI,
					.layers = 12, .first_layer = 1, .last_layer = 12, .kv = 2 * GB, .reported = true,
					.measured = gtm_u64_of(18 * GB, GTM_MEASURED),
					.rest = gtm_u64_of(16 * GB, GTM_ESTIMATED)};

	r = round_trip(s);
	assert_int_equal(r->n_processes, 2);
	assert_int_equal(r->n_gpu_processes, 2);
	p = &r->processes[0];
	assert_int_equal(p->pid, 4242);
	assert_int_equal(p->start_time, 1000 + 4242);
	assert_string_equal(p->label, "4242");
	assert_int_equal(p->n_uses, 1);
	assert_int_equal(p->uses[0].vram.v, 18 * GB);
	assert_false(gtm_u64_ok(p->uses[0].spill));
	assert_false(gtm_u64_ok(p->rss));
	assert_int_equal(r->processes[1].rss.v, 5 * GB);
	assert_non_null(p->detail);
	assert_int_equal(p->detail->argc, 2);
	assert_string_equal(p->detail->argv[1], "-m");
	assert_null(p->detail->argv[2]);
	assert_string_equal(p->detail->exe, "/usr/bin/llama-server");
	assert_null(p->detail->cwd);
	assert_true(p->ports_read);
	assert_int_equal(p->n_ports, 1);
	assert_int_equal(p->ports[0], 8080);
	assert_false(r->processes[1].ports_read);
	assert_non_null(p->ident);
	assert_int_equal(p->ident->category, IDENT_CAT_AI);
	assert_string_equal(p->ident->category_reason, "AI runtime llama.cpp");
	assert_int_equal(p->ident->n_runtimes, 1);
	assert_string_equal(p->ident->runtimes[0].name, "llama.cpp");
	assert_string_equal(p->ident->runtimes[0].evidence[0], "executable llama-server");
	assert_int_equal(p->ident->n_models, 1);
	assert_string_equal(p->ident->models[0].name, "qwen3:14b");
	assert_int_equal(p->ident->models[0].evidence, 1u << MODEL_EV_API);
	assert_false(p->ident->models[0].have_info);
	assert_null(p->ident->flags);
	assert_non_null(p->explain);
	assert_int_equal(p->explain->n_segs, 1);
	assert_int_equal(p->explain->segs[0].seg, EX_SEG_KV);
	assert_int_equal(p->explain->segs[0].src, EX_SRC_LOG);
	assert_int_equal(p->explain->segs[0].bytes.prov, GTM_REPORTED);
	assert_int_equal(p->explain->segs[0].bytes.v, 2 * GB);
	assert_string_equal(p->explain->notes[0], "a note");
	assert_int_equal(p->explain->segs[0].join, EX_JOIN_PCI);
	assert_int_equal(p->explain->n_devs, 1);
	const struct ex_device *d = &p->explain->devs[0];
	assert_string_equal(d->runtime_dev, "CUDA1");
	assert_string_equal(d->uuid, "GPU-x");
	assert_int_equal(d->join, EX_JOIN_PCI);
	assert_int_equal(d->layers, 12);
	assert_int_equal(d->last_layer, 12);
	assert_true(d->reported);
	assert_false(d->api);
	assert_int_equal(d->kv, 2 * GB);
	assert_int_equal(d->rest.v, 16 * GB);
	assert_int_equal(d->rest.prov, GTM_ESTIMATED);
	assert_int_equal(d->measured.prov, GTM_MEASURED);
	assert_null(r->processes[1].ident);
	snapshot_free(s);
	snapshot_free(r);
}

static struct gtm_snapshot *parse(const char *text, char *err, size_t errn)
{
	return snap_model_parse(text, strlen(text), err, errn);
}

static void test_hostile_shapes(void **state)
{
	(void)state;
	char err[256];
	struct gtm_snapshot *r;
	/* wrong types read as N/A; an unknown runtime and segment kind are left out */
	r = parse("{\"schema_version\":1,\"taken_at\":\"2026-12-01T03:12:00Z\",\"gpus\":[{\"index\":0,\"memory\":"
		  "{\"used_bytes\":\"lots\",\"total_bytes\":-5},\"temperature_c\":\"hot\",\"engines\":7}],\"processes\":"
		  "[{\"label\":\"1\",\"pid\":-3,\"gpus\":[{\"index\":0,\"vram_bytes\":1.5}],\"category\":\"ai\",\"runtimes\":"
		  "[{\"id\":\"from-the-future\"},5],\"models\":[7],\"explain\":{\"breakdown\":[{\"segment\":\"new\","
		  "\"source\":\"log\",\"bytes\":1},{\"segment\":\"kv_cache\",\"source\":\"log\",\"provenance\":\"reported\","
		  "\"bytes\":3}]}}]}",
		  err, sizeof err);
	if (!r)
		fail_msg("%s", err);
	assert_false(gtm_u64_ok(r->devices[0].mem_used));
	assert_false(gtm_u64_ok(r->devices[0].mem_total));
	assert_false(gtm_f64_ok(r->devices[0].temp_c));
	assert_int_equal(r->devices[0].n_engines, 0);
	assert_int_equal(r->processes[0].pid, 0);
	assert_false(gtm_u64_ok(r->processes[0].uses[0].vram));
	assert_int_equal(r->processes[0].ident->n_runtimes, 0);
	assert_int_equal(r->processes[0].ident->n_models, 1);
	assert_null(r->processes[0].ident->models[0].name);
	assert_int_equal(r->processes[0].explain->n_segs, 1);
	assert_int_equal(r->processes[0].explain->segs[0].bytes.v, 3);
	snapshot_free(r);
	/* not a snapshot, or one past the bounds: refused */
	assert_null(parse("[1,2]", err, sizeof err));
	assert_null(parse("{\"schema_version\":1,\"taken_at\":\"x\",\"gpus\":{},\"processes\":[]}", err, sizeof err));
	{
		size_t cap = 64 * (SNAP_MAX_DEVICES + 2) + 256, n = 0;
		char *big = xmalloc(cap);
		n += (size_t)snprintf(big + n, cap - n, "{\"schema_version\":1,\"taken_at\":\"2026-12-01T03:12:00Z\",\"gpus\":[");
		for (int i = 0; i <= SNAP_MAX_DEVICES; i++)
			n += (size_t)snprintf(big + n, cap - n, "%s{\"index\":%d}", i ? "," : "", i);
		snprintf(big + n, cap - n, "],\"processes\":[]}");
		assert_null(parse(big, err, sizeof err));
		assert_non_null(strstr(err, "more than a snapshot may hold"));
		free(big);
	}
}

static void test_rise_threshold(void **state)
{
	(void)state;
	struct rec_change c;
	/* 10 % of 80 GiB is 8 GiB: exactly that is a big change, a byte less is not */
	struct gtm_snapshot *a = two_gpus(10 * GB, 1 * GB), *b = two_gpus(18 * GB, 1 * GB), *n = two_gpus(18 * GB - 1, 1 * GB);
	char text[160];

	assert_true(rec_vram_change(a, b, &c));
	assert_int_equal(c.kind, REC_CHANGE_RISE);
	assert_int_equal(c.dev_index, 0);
	assert_int_equal(c.bytes, 8 * GB);
	rec_change_text(&c, text, sizeof text);
	assert_string_equal(text, "+8.00 GiB on GPU 0 (18.00 GiB of 80.00 GiB)");
	assert_false(rec_vram_change(a, n, &c));
	assert_int_equal(c.kind, REC_CHANGE_NONE);
	/* a fall is no rise; a second GPU's rise is found */
	assert_false(rec_vram_change(b, a, &c));
	snapshot_free(n);
	n = two_gpus(10 * GB, 40 * GB);
	assert_true(rec_vram_change(a, n, &c));
	assert_int_equal(c.dev_index, 1);
	/* N/A used VRAM: nothing to compare */
	n->devices[1].mem_used = GTM_U64_NA;
	assert_false(rec_vram_change(a, n, &c));
	/* a small card: at least REC_RISE_MIN_BYTES */
	a->devices[0].mem_total = b->devices[0].mem_total = gtm_u64_of(1 * GB, GTM_MEASURED);
	a->devices[0].mem_used = gtm_u64_of(0, GTM_MEASURED);
	b->devices[0].mem_used = gtm_u64_of(REC_RISE_MIN_BYTES - 1, GTM_MEASURED);
	assert_false(rec_vram_change(a, b, &c));
	b->devices[0].mem_used = gtm_u64_of(REC_RISE_MIN_BYTES, GTM_MEASURED);
	assert_true(rec_vram_change(a, b, &c));
	snapshot_free(a);
	snapshot_free(b);
	snapshot_free(n);
}

static void test_vanish_while_full(void **state)
{
	(void)state;
	struct rec_change c;
	char text[200];
	/* 72 of 80 GiB is 90 %: nearly full; 71 is not */
	struct gtm_snapshot *full = two_gpus(72 * GB, 1 * GB), *after = two_gpus(72 * GB, 1 * GB);
	struct gtm_snapshot *roomy = two_gpus(71 * GB, 1 * GB);

	add_proc(full, 11, "11", 0, 64ull << 20);
	add_proc(roomy, 11, "11", 0, 64ull << 20);
	add_proc(full, 12, "12", 0, 10 * GB);
	add_proc(after, 12, "12", 0, 10 * GB);
	assert_true(rec_vram_change(full, after, &c));
	assert_int_equal(c.kind, REC_CHANGE_VANISH);
	assert_string_equal(c.label, "11");
	rec_change_text(&c, text, sizeof text);
	assert_string_equal(text, "11 python3 vanished from GPU 0 (held 64.00 MiB; 72.00 GiB of 80.00 GiB used)");
	assert_false(rec_vram_change(roomy, after, &c));
	/* the same PID with another start time is another process: the first one vanished */
	after->processes[0].start_time++;
	assert_true(rec_vram_change(full, after, &c));
	assert_int_equal(c.kind, REC_CHANGE_VANISH);
	/* under REC_VANISH_MIN_BYTES: not a big change */
	after->processes[0].start_time--;
	full->processes[0].uses[0].vram = gtm_u64_of((64ull << 20) - 1, GTM_MEASURED);
	assert_false(rec_vram_change(full, after, &c));
	snapshot_free(full);
	snapshot_free(after);
	snapshot_free(roomy);
}

/* A recording of 50 snapshots, 3 a second, in frames of 2 s: every ordinal
 * reads its own line across frame boundaries, in any order (two frames are
 * kept decoded), and a time finds the last snapshot at or before it. */
static void test_cursor_over_frames(void **state)
{
	(void)state;
	char dir[] = "/tmp/gtm-replay-XXXXXX", path[64], err[256], note[256], line[256];
	struct rec_writer_opts o = {0, 2, 0};
	const int64_t t0 = 1796094720;
	struct rec_file f;
	struct rec_cursor c;
	int status;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/r.rec", dir);
	struct rec_writer *w = rec_writer_open(path, &o, &status, err, sizeof err, note, sizeof note);
	assert_non_null(w);
	for (int i = 0; i < 50; i++) {
		char when[32];
		rec_time_format(when, sizeof when, t0 + i / 3);
		size_t n = (size_t)snprintf(line, sizeof line, "{\"taken_at\":\"%s\",\"i\":%d}", when, i);
		assert_int_equal(rec_writer_add(w, line, n, (uint64_t)(t0 + i / 3) * 1000000000ull, err, sizeof err), 0);
	}
	assert_int_equal(rec_writer_close(w, err, sizeof err), 0);
	assert_int_equal(rec_file_open(path, &f, err, sizeof err), 0);
	assert_true(f.idx.n_frames > 3);
	rec_cursor_init(&c, &f);
	assert_int_equal(c.n, 50);
	/* forwards, backwards, and jumping between the first and last frames */
	static const int order[] = {0, 1, 2, 3, 49, 0, 48, 25, 24, 26, 5, 44, 12, 13, 11, 47};
	for (size_t k = 0; k < ARRAY_LEN(order) + 50; k++) {
		int ord = k < ARRAY_LEN(order) ? order[k] : 49 - (int)(k - ARRAY_LEN(order));
		const char *l;
		size_t len;
		int64_t t;
		char want[16];
		assert_int_equal(rec_cursor_line(&c, (uint64_t)ord, &l, &len, &t, err, sizeof err), 0);
		snprintf(want, sizeof want, "\"i\":%d}", ord);
		assert_true(len > strlen(want) && !memcmp(l + len - strlen(want), want, strlen(want)));
		assert_int_equal(t, t0 + ord / 3);
	}
	{
		const char *l;
		size_t len;
		int64_t t;
		assert_int_equal(rec_cursor_line(&c, 50, &l, &len, &t, err, sizeof err), -1);
	}
	assert_int_equal(rec_cursor_find(&c, t0 - 5), 0);         /* before: the first */
	assert_int_equal(rec_cursor_find(&c, t0), 2);             /* the last of its second */
	assert_int_equal(rec_cursor_find(&c, t0 + 7), 23);
	assert_int_equal(rec_cursor_find(&c, t0 + 1000), 49);     /* after: the last */
	rec_cursor_free(&c);
	rec_file_close(&f);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_round_trip),
		cmocka_unit_test(test_use_engines_round_trip),
		cmocka_unit_test(test_process_ident_explain),
		cmocka_unit_test(test_wsl_rows),
		cmocka_unit_test(test_hostile_shapes),
		cmocka_unit_test(test_rise_threshold),
		cmocka_unit_test(test_vanish_while_full),
		cmocka_unit_test(test_cursor_over_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
