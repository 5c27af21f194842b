/* diff: pairing rules, null and not-listed counters, hidden rows, devices,
 * reported/estimated segments and the KV check, on hand-built snapshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_build.h"

#define P(...) b_proc((struct pspec){__VA_ARGS__})
#define ARR(...) json_pack("[" __VA_ARGS__ "]")

static json_t *gpus1(long long used)
{
	json_t *a = json_array();
	json_array_append_new(a, b_gpu(0, "GPU-aaaa", used));
	return a;
}

static json_t *procs(int n, ...)
{
	json_t *a = json_array();
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		json_array_append_new(a, va_arg(ap, json_t *));
	va_end(ap);
	return a;
}

static void test_pid_and_start_time(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", NULL, gpus1(1024 * MiB),
			   procs(2, P(.pid = 100, .start = 50, .name = "llama-server", .vram = 1000 * MiB),
				 P(.pid = 200, .name = "python", .vram = 20 * MiB)));
	json_t *a = b_snap("box", NULL, gpus1(2048 * MiB),
			   procs(2, P(.pid = 100, .start = 50, .name = "llama-server", .vram = 2000 * MiB),
				 P(.pid = 200, .start = 77, .name = "python", .vram = 20 * MiB)));
	struct diff_result *r = b_diff(b, a, &sb, &sa);
	const struct diff_proc_row *row = b_row_b(r, 100);

	assert_non_null(row);
	assert_int_equal(row->rule, DIFF_RULE_PID_START);
	assert_string_equal(diff_rule_name(row->rule), "pid+start_time");
	assert_true(row->vram_total.known);
	assert_int_equal(row->vram_total.delta, 1000 * MiB);
	/* start time missing on one side: PID alone pairs, and the rule says so */
	row = b_row_b(r, 200);
	assert_int_equal(row->rule, DIFF_RULE_PID);
	assert_int_equal(r->devs[0].used.delta, 1024 * MiB);
	assert_string_equal(r->devs[0].paired_by, "uuid");
	assert_int_equal(r->n_warnings, 0);
	b_free(r, &sb, &sa);
}

/* Names come from files anyone may write: the text report escapes control
 * characters, so no escape sequence reaches the terminal. */
static void test_text_escapes_controls(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", NULL, gpus1(1024 * MiB),
			   procs(1, P(.pid = 100, .start = 50, .name = "evil\x1b]0;pwn\x07", .vram = 100 * MiB)));
	json_t *a = b_snap("box", NULL, gpus1(1024 * MiB),
			   procs(1, P(.pid = 100, .start = 50, .name = "evil\x1b]0;pwn\x07", .vram = 900 * MiB)));
	struct diff_result *r = b_diff(b, a, &sb, &sa);
	char *text = b_text(r, true);
	assert_non_null(strstr(text, "evil\\x1b]0;pwn\\x07"));
	assert_null(strchr(text, 0x1b));
	assert_null(strchr(text, 0x07));
	free(text);
	b_free(r, &sb, &sa);
}

/* A reused PID (start times differ) is a different process. */
static void test_reused_pid(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", NULL, gpus1(0), procs(1, P(.pid = 100, .start = 50, .name = "python", .vram = 900 * MiB)));
	json_t *a = b_snap("box", NULL, gpus1(0), procs(1, P(.pid = 100, .start = 9000, .name = "bash", .vram = 30 * MiB)));
	struct diff_result *r = b_diff(b, a, &sb, &sa);

	assert_int_equal(r->n_procs, 2);
	assert_null(b_row_b(r, 100)->a);
	assert_null(b_row_a(r, 100)->b);
	assert_int_equal(b_row_a(r, 100)->rule, DIFF_RULE_NONE);
	b_free(r, &sb, &sa);
}

/* A server restarted under a new PID: same name and ports, or the only one of its name. */
static void test_restart_by_name_and_ports(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", NULL, gpus1(0),
			   procs(3, P(.pid = 100, .start = 5, .name = "llama-server", .vram = 1000 * MiB, .ports = {8080}, .n_ports = 1),
				 P(.pid = 101, .start = 6, .name = "llama-server", .vram = 500 * MiB, .ports = {8081}, .n_ports = 1),
				 P(.pid = 300, .start = 7, .name = "ollama", .vram = 10 * MiB)));
	json_t *a = b_snap("box", NULL, gpus1(0),
			   procs(3, P(.pid = 400, .start = 90, .name = "llama-server", .vram = 600 * MiB, .ports = {8081}, .n_ports = 1),
				 P(.pid = 401, .start = 91, .name = "llama-server", .vram = 1001 * MiB, .ports = {8080}, .n_ports = 1),
				 P(.pid = 500, .start = 92, .name = "ollama", .vram = 11 * MiB)));
	struct diff_result *r = b_diff(b, a, &sb, &sa);
	const struct diff_proc_row *row = b_row_b(r, 100);

	assert_int_equal(r->n_procs, 3);
	assert_non_null(row->a);
	assert_int_equal(row->a->pid, 401);
	assert_int_equal(row->rule, DIFF_RULE_NAME_PORTS);
	assert_true(diff_rule_is_restart(row->rule));
	assert_int_equal(b_row_b(r, 101)->a->pid, 400);
	row = b_row_b(r, 300);
	assert_int_equal(row->a->pid, 500);
	assert_int_equal(row->rule, DIFF_RULE_UNIQUE_NAME);
	/* moved 1 MiB, but a restart is never hidden */
	assert_false(row->hidden);
	assert_false(b_row_b(r, 100)->hidden);
	char *text = b_text(r, false);
	assert_non_null(strstr(text, "llama-server 100 -> 401"));
	assert_non_null(strstr(text, "restarted (same name and ports)"));
	free(text);
	b_free(r, &sb, &sa);
}

/* A name shared by two processes on one side decides nothing. */
static void test_name_not_unique(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", NULL, gpus1(0),
			   procs(2, P(.pid = 10, .start = 1, .name = "python", .vram = 100 * MiB),
				 P(.pid = 11, .start = 2, .name = "python", .vram = 200 * MiB)));
	json_t *a = b_snap("box", NULL, gpus1(0), procs(1, P(.pid = 12, .start = 3, .name = "python", .vram = 300 * MiB)));
	struct diff_result *r = b_diff(b, a, &sb, &sa);

	assert_int_equal(r->n_procs, 3);
	for (int i = 0; i < r->n_procs; i++)
		assert_int_equal(r->procs[i].rule, DIFF_RULE_NONE);
	b_free(r, &sb, &sa);
}

/* H: rows pair by host PID; unattributed rows by their device. */
static void test_host_and_unattributed_rows(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", NULL, gpus1(0),
			   procs(2, P(.host_pid = 4242, .owner = "host", .vram = 100 * MiB),
				 P(.owner = "unattributed", .vram = 64 * MiB)));
	/* after: 4242 is now paired with local PID 17 ('*17'): still the driver's 4242 */
	json_t *a = b_snap("box", NULL, gpus1(0),
			   procs(3, P(.host_pid = 4243, .owner = "host", .vram = 100 * MiB),
				 P(.pid = 17, .host_pid = 4242, .owner = "matched", .name = "python", .vram = 300 * MiB),
				 P(.owner = "unattributed", .vram = 96 * MiB)));
	struct diff_result *r = b_diff(b, a, &sb, &sa);
	int host = 0, unattr = 0, single = 0;

	for (int i = 0; i < r->n_procs; i++) {
		const struct diff_proc_row *row = &r->procs[i];
		if (row->rule == DIFF_RULE_HOST_PID) {
			host++;
			assert_int_equal(row->a->host_pid, 4242);
			assert_int_equal(row->vram_total.delta, 200 * MiB);
		} else if (row->rule == DIFF_RULE_UNATTRIBUTED) {
			unattr++;
			assert_int_equal(row->vram_total.delta, 32 * MiB);
		} else {
			single++;
			assert_null(row->b);
			assert_int_equal(row->a->host_pid, 4243);
		}
	}
	assert_int_equal(host, 1);
	assert_int_equal(unattr, 1);
	assert_int_equal(single, 1);
	b_free(r, &sb, &sa);
}

/* null on either side: N/A, never a number; a missing row: not listed, never zero. */
static void test_null_and_not_listed(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", NULL, gpus1(NUL),
			   procs(2, P(.pid = 100, .start = 1, .name = "a", .vram = NUL, .rss = 100 * MiB),
				 P(.pid = 101, .start = 2, .name = "b", .vram = 4000 * MiB)));
	json_t *a = b_snap("box", NULL, gpus1(3000 * MiB),
			   procs(2, P(.pid = 100, .start = 1, .name = "a", .vram = 2000 * MiB, .rss = 100 * MiB),
				 P(.pid = 102, .start = 3, .name = "c", .vram = 3 * MiB)));
	struct diff_result *r = b_diff(b, a, &sb, &sa);
	const struct diff_proc_row *row = b_row_b(r, 100);
	json_t *j;
	char *text;

	assert_false(row->vram_total.known);
	assert_false(row->vram_total.b.known);
	assert_true(row->vram_total.a.known);
	/* the move cannot be sized, so the row is never hidden as small */
	assert_false(row->movement_known);
	assert_false(row->hidden);
	assert_false(r->devs[0].used.known);
	row = b_row_b(r, 101);
	assert_null(row->a);
	assert_false(row->vram_total.a_listed);
	assert_false(row->vram_total.known);
	/* appeared with 3 MiB: small, hidden in text */
	assert_true(b_row_a(r, 102)->hidden);

	j = diff_to_json(r, "b.json", "a.json");
	json_t *procs_j = json_object_get(j, "processes");
	size_t i;
	json_t *p;
	int seen = 0;
	json_array_foreach(procs_j, i, p) {
		json_t *before = json_object_get(p, "before"), *vt;
		vt = json_object_get(json_object_get(p, "measured"), "vram_total_bytes");
		if (json_is_object(before) && json_integer_value(json_object_get(before, "pid")) == 100) {
			assert_true(json_is_null(json_object_get(vt, "before")));
			assert_int_equal(json_integer_value(json_object_get(vt, "after")), 2000 * MiB);
			assert_true(json_is_null(json_object_get(vt, "delta")));
			assert_string_equal(json_string_value(json_object_get(p, "paired_by")), "pid+start_time");
			seen++;
		}
		if (json_is_object(before) && json_integer_value(json_object_get(before, "pid")) == 101) {
			assert_true(json_is_null(json_object_get(p, "after")));
			assert_true(json_is_null(json_object_get(p, "paired_by")));
			assert_true(json_is_null(json_object_get(vt, "delta")));
			seen++;
		}
	}
	assert_int_equal(seen, 2);
	/* --json lists the hidden row too */
	assert_int_equal(json_array_size(procs_j), 3);
	json_decref(j);

	text = b_text(r, false);
	assert_non_null(strstr(text, "not listed"));
	assert_null(strstr(text, " c 102"));
	assert_non_null(strstr(text, "1 process moved by less than 16 MiB and is hidden"));
	free(text);
	b_free(r, &sb, &sa);
}

static void test_hidden_rows(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *pb = json_array(), *pa = json_array();
	for (int i = 0; i < 5; i++) {
		json_array_append_new(pb, P(.pid = 10 + i, .start = 1, .name = "small", .vram = 100 * MiB, .rss = 50 * MiB));
		json_array_append_new(pa, P(.pid = 10 + i, .start = 1, .name = "small", .vram = 100 * MiB + i * MiB,
					    .rss = 50 * MiB));
	}
	json_array_append_new(pb, P(.pid = 99, .start = 1, .name = "big", .vram = 100 * MiB, .rss = 50 * MiB));
	json_array_append_new(pa, P(.pid = 99, .start = 1, .name = "big", .vram = 116 * MiB, .rss = 50 * MiB));
	/* VRAM unchanged but RAM grew by 1 GiB: a CPU runtime loading a model is not small */
	json_array_append_new(pb, P(.pid = 98, .start = 1, .name = "cpu", .vram = 0, .rss = 50 * MiB));
	json_array_append_new(pa, P(.pid = 98, .start = 1, .name = "cpu", .vram = 0, .rss = 1074 * MiB));
	struct diff_result *r = b_diff(b_snap("box", NULL, gpus1(0), pb), b_snap("box", NULL, gpus1(0), pa), &sb, &sa);
	char *text = b_text(r, false), *all = b_text(r, true);

	assert_int_equal(r->n_hidden, 5);
	assert_false(b_row_b(r, 99)->hidden); /* exactly 16 MiB is shown */
	assert_false(b_row_b(r, 98)->hidden);
	/* largest movement first */
	assert_int_equal(r->procs[0].b->pid, 98);
	assert_int_equal(r->procs[1].b->pid, 99);
	assert_non_null(strstr(text, "5 processes moved by less than 16 MiB and are hidden"));
	assert_null(strstr(text, "small"));
	assert_non_null(strstr(all, "small 14"));
	assert_null(strstr(all, "hidden"));
	free(text);
	free(all);
	b_free(r, &sb, &sa);
}

/* GPUs compare by UUID: a different GPU is a warning, and the rest goes on. */
static void test_devices_by_uuid(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *gb = json_array(), *ga = json_array();
	json_array_append_new(gb, b_gpu(0, "GPU-aaaa", 100 * MiB));
	json_array_append_new(gb, b_gpu(1, "GPU-bbbb", 200 * MiB));
	json_array_append_new(ga, b_gpu(0, "GPU-bbbb", 300 * MiB));
	json_array_append_new(ga, b_gpu(1, "GPU-cccc", 400 * MiB));
	struct diff_result *r = b_diff(b_snap("box", NULL, gb, json_array()), b_snap("box", NULL, ga, json_array()), &sb, &sa);
	int paired = 0;

	assert_int_equal(r->n_devs, 3);
	for (int i = 0; i < r->n_devs; i++)
		if (r->devs[i].b && r->devs[i].a) {
			paired++;
			assert_string_equal(r->devs[i].b->uuid, "GPU-bbbb");
			assert_int_equal(r->devs[i].used.delta, 100 * MiB);
		} else {
			assert_false(r->devs[i].used.known);
		}
	assert_int_equal(paired, 1);
	assert_int_equal(r->n_warnings, 2);
	assert_non_null(strstr(r->warnings[0], "GPU-aaaa"));
	assert_non_null(strstr(r->warnings[1], "GPU-cccc"));
	b_free(r, &sb, &sa);
}

/* Per-process per-device rows follow the device pairing, not the index. */
static void test_process_uses_follow_uuid(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *gb = json_array(), *ga = json_array();
	json_array_append_new(gb, b_gpu(0, "GPU-aaaa", 0));
	json_array_append_new(gb, b_gpu(1, "GPU-bbbb", 0));
	json_array_append_new(ga, b_gpu(0, "GPU-bbbb", 0));
	json_array_append_new(ga, b_gpu(1, "GPU-aaaa", 0));
	struct diff_result *r = b_diff(b_snap("box", NULL, gb, procs(1, P(.pid = 7, .start = 1, .name = "x", .gpu = 1, .vram = 10 * MiB))),
				       b_snap("box", NULL, ga, procs(1, P(.pid = 7, .start = 1, .name = "x", .gpu = 0, .vram = 50 * MiB))),
				       &sb, &sa);
	const struct diff_proc_row *row = b_row_b(r, 7);

	assert_int_equal(row->n_uses, 1);
	assert_int_equal(row->uses[0].index_b, 1);
	assert_int_equal(row->uses[0].index_a, 0);
	assert_int_equal(row->uses[0].vram.delta, 40 * MiB);
	b_free(r, &sb, &sa);
}

/* Reported and estimated figures are listed, never added to the measured totals;
 * the KV estimate is shown beside the measured growth with the ratio. The shape
 * is views/explain_json.c's: process.explain.breakdown[] and log.kv_caches[]. */
static json_t *seg(const char *segment, const char *device, bool host, long long bytes, const char *source)
{
	return json_pack("{s:s, s:s, s:b, s:I, s:s, s:s}", "segment", segment, "device", device, "host_memory", host,
			 "bytes", (json_int_t)bytes, "source", source, "provenance",
			 strcmp(source, "estimate") ? "reported" : "estimated");
}

static json_t *with_breakdown(json_t *p, long long kv_est, long long kv_log, const char *model_path, const char *ev)
{
	json_t *bd = json_array(), *models = json_array(), *explain = json_object();
	json_array_append_new(bd, seg("kv_cache", "CUDA0", false, kv_est, "estimate"));
	json_array_append_new(bd, seg("kv_cache", "CUDA0", false, kv_log, "log"));
	/* a KV estimate in host memory grows too, but is not compared with VRAM */
	json_array_append_new(bd, seg("kv_cache", "Host", true, kv_est / 2, "estimate"));
	json_object_set_new(explain, "breakdown", bd);
	/* llama.cpp's memory-breakdown table is in whole MiB; earlier loads (history) are not the process now */
	json_object_set_new(explain, "log", json_pack("{s:s, s:[{s:s, s:I, s:s}], s:{s:[{s:s, s:I}]}, s:[{s:I}]}",
						      "state", "current", "kv_caches", "kind", "kv", "bytes",
						      (json_int_t)kv_log, "source", "log", "memory_breakdown", "rows",
						      "device", "CUDA0", "context_mib", (json_int_t)(kv_log / MiB),
						      "history", "reported_total_mib", (json_int_t)7));
	json_object_set_new(p, "explain", explain);
	if (model_path)
		json_array_append_new(models, json_pack("{s:s, s:s, s:[s], s:s, s:I}", "name", "qwen3-0.6b", "path", model_path,
							"evidence", ev, "status", "single source", "file_size_bytes",
							(json_int_t)(639 * MiB)));
	json_object_set_new(p, "models", models);
	return p;
}

static void test_estimates_beside_measured(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", NULL, gpus1(0),
			   procs(1, with_breakdown(P(.pid = 5, .start = 1, .name = "llama-server", .vram = 1500 * MiB), 448 * MiB,
						   448 * MiB, NULL, NULL)));
	json_t *a = b_snap("box", NULL, gpus1(0),
			   procs(1, with_breakdown(P(.pid = 5, .start = 1, .name = "llama-server", .vram = 1724 * MiB), 896 * MiB,
						   896 * MiB, "/models/qwen3.gguf", "mapped")));
	json_object_set_new(json_array_get(json_object_get(b, "processes"), 0), "llama_flags",
			    json_pack("{s:i, s:n, s:s}", "ctx_size", 4096, "n_gpu_layers", "cache_type_k", "F16"));
	json_object_set_new(json_array_get(json_object_get(a, "processes"), 0), "llama_flags",
			    json_pack("{s:i, s:i, s:s}", "ctx_size", 8192, "n_gpu_layers", 99, "cache_type_k", "F16"));
	struct diff_result *r = b_diff(b, a, &sb, &sa);
	const struct diff_proc_row *row = b_row_b(r, 5);
	int reported = 0, estimated = 0;

	/* the flags that changed, in table order; unchanged -ctk is not listed */
	assert_int_equal(row->n_flags, 2);
	assert_string_equal(snap_flags[row->flags[0].which].flag, "-c");
	assert_int_equal(json_integer_value(row->flags[0].b), 4096);
	assert_int_equal(json_integer_value(row->flags[0].a), 8192);
	assert_null(row->flags[1].b);

	/* measured: the process's own counter, untouched by the segments */
	assert_int_equal(row->vram_total.delta, 224 * MiB);
	assert_int_equal(row->n_segs, 5);
	for (int i = 0; i < row->n_segs; i++) {
		const struct diff_seg_row *s = &row->segs[i];
		reported += s->a->kind == SNAP_SEG_REPORTED;
		estimated += s->a->kind == SNAP_SEG_ESTIMATED;
		if (!strcmp(s->a->label, "breakdown kv_cache Host"))
			assert_int_equal(s->bytes.delta, 224 * MiB);
		else
			assert_int_equal(s->bytes.delta, 448 * MiB);
	}
	assert_string_equal(row->segs[0].a->label, "breakdown kv_cache CUDA0");
	assert_string_equal(row->segs[3].a->label, "log kv_caches kv");
	assert_string_equal(row->segs[4].a->label, "log memory_breakdown rows CUDA0 context");
	assert_int_equal(row->segs[4].a->bytes.v, 896 * MiB);
	assert_int_equal(reported, 3);
	assert_int_equal(estimated, 2);
	assert_true(row->kv.present);
	assert_int_equal(row->kv.estimate_delta, 448 * MiB);
	assert_int_equal(row->kv.measured_delta, 224 * MiB);
	assert_float_equal(row->kv.ratio, 0.5, 1e-9);
	assert_int_equal(row->n_models, 1);
	assert_int_equal(row->models[0].change, DIFF_MODEL_ADDED);
	assert_string_equal(row->models[0].a->evidence, "mapped");

	char *text = b_text(r, false);
	assert_non_null(strstr(text, "KV cache estimate changed by +448.00 MiB; measured VRAM changed by +224.00 MiB (0.50x"));
	assert_non_null(strstr(text, "sliding-window attention"));
	assert_non_null(strstr(text, "answered one request"));
	assert_non_null(strstr(text, "+ qwen3-0.6b  [mapped, single source]  (new in after)"));
	assert_non_null(strstr(text, "never added to the totals"));
	assert_non_null(strstr(text, "llama.cpp flags: -c 4096 -> 8192, -ngl default -> 99"));
	/* the model file's size is not GPU growth: no 639 MiB anywhere */
	assert_null(strstr(text, "639"));
	free(text);

	json_t *j = diff_to_json(r, "b", "a"), *p = json_array_get(json_object_get(j, "processes"), 0);
	assert_int_equal(json_array_size(json_object_get(p, "reported")), 3);
	assert_int_equal(json_array_size(json_object_get(p, "estimated")), 2);
	assert_float_equal(json_real_value(json_object_get(json_object_get(p, "kv_check"), "ratio")), 0.5, 1e-9);
	json_t *fc = json_array_get(json_object_get(p, "llama_flags_changed"), 1);
	assert_string_equal(json_string_value(json_object_get(fc, "flag")), "-ngl");
	assert_true(json_is_null(json_object_get(fc, "before")));
	assert_int_equal(json_integer_value(json_object_get(fc, "after")), 99);
	json_decref(j);
	b_free(r, &sb, &sa);
}

/* A per-model KV estimate beside explain's per-device one is listed, not counted twice. */
static json_t *kv_twice(long long pid, long long vram, long long kv)
{
	json_t *p = with_breakdown(P(.pid = pid, .start = 1, .name = "llama-server", .vram = vram), kv, kv, "/m.gguf", "mapped");
	json_object_set_new(json_array_get(json_object_get(p, "models"), 0), "estimate",
			    json_pack("{s:I}", "kv_bytes", (json_int_t)kv));
	return p;
}

static void test_kv_not_counted_twice(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	struct diff_result *r = b_diff(b_snap("box", NULL, gpus1(0), procs(1, kv_twice(5, 1000 * MiB, 100 * MiB))),
				       b_snap("box", NULL, gpus1(0), procs(1, kv_twice(5, 1100 * MiB, 300 * MiB))), &sb, &sa);
	const struct diff_proc_row *row = b_row_b(r, 5);
	bool model_kv = false;

	for (int i = 0; i < row->n_segs; i++)
		model_kv |= !strcmp(row->segs[i].a->label, "models qwen3-0.6b estimate kv") && row->segs[i].a->is_kv;
	assert_true(model_kv);
	assert_true(row->kv.present);
	assert_int_equal(row->kv.estimate_delta, 200 * MiB);
	assert_float_equal(row->kv.ratio, 0.5, 1e-9);
	b_free(r, &sb, &sa);
}

/* The KV line by direction: a ratio only when both moved the same way, and the
 * note that explains a measured change below or above the estimate, not both. */
struct kv_case {
	long long est_b, est_a, vram_b, vram_a;
	bool has_ratio;
	double ratio;
	enum diff_kv_direction dir;
	const char *in_text, *not_in_text, *json_dir;
};

static void check_kv_case(const struct kv_case *c)
{
	struct snap_rows sb, sa;
	json_t *pb = with_breakdown(P(.pid = 5, .start = 1, .name = "llama-server", .vram = c->vram_b), c->est_b, c->est_b,
				    NULL, NULL);
	json_t *pa = with_breakdown(P(.pid = 5, .start = 1, .name = "llama-server", .vram = c->vram_a), c->est_a, c->est_a,
				    NULL, NULL);
	struct diff_result *r = b_diff(b_snap("box", NULL, gpus1(0), procs(1, pb)), b_snap("box", NULL, gpus1(0), procs(1, pa)),
				       &sb, &sa);
	const struct diff_kv_check *kv = &b_row_b(r, 5)->kv;

	assert_true(kv->present);
	assert_int_equal(kv->estimate_delta, c->est_a - c->est_b);
	assert_int_equal(kv->measured_delta, c->vram_a - c->vram_b);
	assert_int_equal(kv->has_ratio, c->has_ratio);
	if (c->has_ratio)
		assert_float_equal(kv->ratio, c->ratio, 1e-9);
	assert_int_equal(kv->direction, c->dir);
	char *text = b_text(r, true);
	if (!strstr(text, c->in_text) || (c->not_in_text && strstr(text, c->not_in_text)))
		fail_msg("want '%s' and not '%s' in:\n%s", c->in_text, c->not_in_text, text);
	assert_true(strstr(text, "x the estimate") ? c->has_ratio : !c->has_ratio);
	assert_non_null(strstr(text, "answered one request"));
	free(text);
	json_t *j = diff_to_json(r, "b", "a");
	json_t *k = json_object_get(json_array_get(json_object_get(j, "processes"), 0), "kv_check");
	assert_true(c->has_ratio ? json_is_real(json_object_get(k, "ratio")) : json_is_null(json_object_get(k, "ratio")));
	assert_string_equal(json_string_value(json_object_get(k, "direction")), c->json_dir);
	if (c->not_in_text)
		assert_null(strstr(json_string_value(json_object_get(k, "note")), c->not_in_text));
	json_decref(j);
	b_free(r, &sb, &sa);
}

static void test_kv_ratio_and_note_by_direction(void **state)
{
	(void)state;
	static const char *lazy = "Lazy allocation", *other = "Other allocations in the process";
	const struct kv_case cases[] = {
		/* the reviewer's case: the estimate fell a little, the process grew by 1 GiB */
		{100 * MiB, 98 * MiB, 1000 * MiB, 2024 * MiB, false, 0, DIFF_KV_MEASURED_LARGER,
		 "KV cache estimate changed by -2.00 MiB; measured VRAM changed by +1.00 GiB.\n", lazy, "measured_larger"},
		/* grew more than estimated: other allocations, not lazy allocation */
		{100 * MiB, 200 * MiB, 1000 * MiB, 1300 * MiB, true, 3.0, DIFF_KV_MEASURED_LARGER, "(3.00x the estimate)", lazy,
		 "measured_larger"},
		/* grew less than estimated: lazy allocation */
		{100 * MiB, 500 * MiB, 1000 * MiB, 1100 * MiB, true, 0.25, DIFF_KV_MEASURED_SMALLER, lazy, other,
		 "measured_smaller"},
		/* the estimate grew, the measurement fell: no ratio */
		{100 * MiB, 500 * MiB, 1000 * MiB, 950 * MiB, false, 0, DIFF_KV_MEASURED_SMALLER, lazy, other,
		 "measured_smaller"},
		/* both fell, the measurement by less: the allocator holding freed memory */
		{500 * MiB, 100 * MiB, 2000 * MiB, 1800 * MiB, true, 0.5, DIFF_KV_MEASURED_LARGER,
		 "holding freed memory", lazy, "measured_larger"},
		/* as estimated: neither note */
		{100 * MiB, 200 * MiB, 1000 * MiB, 1100 * MiB, true, 1.0, DIFF_KV_AS_ESTIMATED, "(1.00x the estimate)", "can make",
		 "as_estimated"},
		/* the measurement did not move: a ratio of 0, measured smaller */
		{100 * MiB, 200 * MiB, 1000 * MiB, 1000 * MiB, true, 0.0, DIFF_KV_MEASURED_SMALLER, "(0.00x the estimate)",
		 other, "measured_smaller"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_kv_case(&cases[i]);
	assert_null(diff_kv_note(DIFF_KV_AS_ESTIMATED));
}

/* Older or limited snapshots: absent keys read as null, not as errors or zeros. */
static void test_absent_keys(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = json_pack("{s:i, s:[], s:[{s:i}]}", "schema_version", 1, "gpus", "processes", "pid", 9);
	json_t *a = json_pack("{s:i, s:[], s:[{s:i, s:I}]}", "schema_version", 1, "gpus", "processes", "pid", 9,
			      "vram_total_bytes", (json_int_t)(64 * MiB));
	struct diff_result *r = b_diff(b, a, &sb, &sa);
	const struct diff_proc_row *row = b_row_b(r, 9);

	assert_int_equal(row->rule, DIFF_RULE_PID);
	assert_false(row->vram_total.known);
	assert_false(row->hidden);
	char *text = b_text(r, false);
	assert_non_null(strstr(text, "N/A"));
	free(text);
	b_free(r, &sb, &sa);
}

/* Swapped files, other modes and other machines are said, and the comparison goes on. */
static void test_warnings(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *b = b_snap("box", "2026-11-30T07:00:00Z", gpus1(0), json_array());
	json_t *a = b_snap("other", "2026-11-30T06:00:00Z", gpus1(0), json_array());
	json_object_set_new(a, "mode", json_string("container"));
	struct diff_result *r = b_diff(b, a, &sb, &sa);

	assert_int_equal(r->n_warnings, 3);
	assert_non_null(strstr(r->warnings[0], "are the files swapped?"));
	assert_non_null(strstr(r->warnings[1], "different modes (native, container)"));
	assert_non_null(strstr(r->warnings[2], "different machines (box, other)"));
	char *text = b_text(r, false);
	assert_non_null(strstr(text, "warning: the after snapshot (2026-11-30T06:00:00Z) was taken before"));
	free(text);
	b_free(r, &sb, &sa);
}

/* Thousands of rows pair in sorted passes (a quadratic pass would still pass, but slowly; correctness here). */
static void test_many_rows(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	json_t *pb = json_array(), *pa = json_array();
	for (int i = 0; i < 20000; i++) {
		json_array_append_new(pb, P(.pid = 1 + i, .start = 1, .name = "w", .vram = MiB));
		json_array_append_new(pa, P(.pid = 20000 - i, .start = 1, .name = "w", .vram = MiB));
	}
	struct diff_result *r = b_diff(b_snap("box", NULL, gpus1(0), pb), b_snap("box", NULL, gpus1(0), pa), &sb, &sa);
	assert_int_equal(r->n_procs, 20000);
	assert_int_equal(r->n_hidden, 20000);
	for (int i = 0; i < r->n_procs; i++)
		assert_int_equal(r->procs[i].b->pid, r->procs[i].a->pid);
	char *text = b_text(r, false);
	assert_non_null(strstr(text, "no process moved by 16 MiB or more\n20000 processes moved by less than 16 MiB"));
	free(text);
	b_free(r, &sb, &sa);
}

/* The widest a snapshot may be: 64 GPUs, 1000 processes using each of them. The
 * per-device rows pair through the GPUs' UUIDs, which the after snapshot lists in
 * reverse; a per-snapshot bound refuses more rows. */
static json_t *wide(bool reversed, int n_procs, int per_proc)
{
	json_t *g = json_array(), *pr = json_array();
	char uuid[32];
	for (int d = 0; d < 64; d++) {
		snprintf(uuid, sizeof uuid, "GPU-%02d", reversed ? 63 - d : d);
		json_array_append_new(g, b_gpu(d, uuid, 0));
	}
	for (int i = 0; i < n_procs; i++) {
		json_t *p = P(.pid = 1 + i, .start = 1, .name = "w", .gpu = -1), *uses = json_object_get(p, "gpus");
		for (int d = 0; d < per_proc; d++)
			json_array_append_new(uses, json_pack("{s:i, s:I}", "index", reversed ? 63 - d : d, "vram_bytes",
							      (json_int_t)((d + (reversed ? 1 : 0)) * MiB)));
		json_array_append_new(pr, p);
	}
	return b_snap("box", NULL, g, pr);
}

static void test_wide_snapshots(void **state)
{
	(void)state;
	struct snap_rows sb, sa;
	char err[256];
	struct diff_result *r = b_diff(wide(false, 1000, 64), wide(true, 1000, 64), &sb, &sa);
	const struct diff_proc_row *row = b_row_b(r, 7);

	assert_int_equal(row->n_uses, 64);
	for (int i = 0; i < row->n_uses; i++) {
		assert_string_equal(row->uses[i].dev_b->uuid, row->uses[i].dev_a->uuid);
		assert_int_equal(row->uses[i].vram.delta, MiB);
	}
	b_free(r, &sb, &sa);

	json_t *doc = wide(false, 1025, 64);
	assert_int_equal(snap_rows_read(doc, &sb, err, sizeof err), -1);
	assert_non_null(strstr(err, "processes[1024].gpus: more than 65536 per-device process rows"));
	snap_rows_free(&sb);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_and_start_time),
		cmocka_unit_test(test_text_escapes_controls),
		cmocka_unit_test(test_reused_pid),
		cmocka_unit_test(test_restart_by_name_and_ports),
		cmocka_unit_test(test_name_not_unique),
		cmocka_unit_test(test_host_and_unattributed_rows),
		cmocka_unit_test(test_null_and_not_listed),
		cmocka_unit_test(test_hidden_rows),
		cmocka_unit_test(test_devices_by_uuid),
		cmocka_unit_test(test_process_uses_follow_uuid),
		cmocka_unit_test(test_estimates_beside_measured),
		cmocka_unit_test(test_absent_keys),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_kv_not_counted_twice),
		cmocka_unit_test(test_kv_ratio_and_note_by_direction),
		cmocka_unit_test(test_many_rows),
		cmocka_unit_test(test_wide_snapshots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
