/* The text views print strings from outside (process names, GGUF headers,
 * logs, local APIs) through fmt_safe: no terminal control byte reaches the
 * output. Also: N/A for llama-server's -1 sentinels, endpoints without an HTTP
 * status, history without a time, the unattributed row's label. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "app/cmd_inspect.h"
#include "core/format.h"
#include "core/snapshot.h"
#include "core/util.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "views/explain_text.h"
#include "views/ident_text.h"
#include "views/json.h"
#include "views/text.h"

#include "gguf_writer.h"
#include "testutil.h"

/* An OSC title change ending in BEL, a CSI clear, and the one-byte C1 CSI
 * both as UTF-8 (U+009B) and as a bare byte. */
#define HOSTILE "\x1b]0;pwned\x07\x1b[2J\xc2\x9b" "31m\x9b" "0m"
#define HOSTILE_ESCAPED "\\x1b]0;pwned\\x07\\x1b[2J\\xc2\\x9b" "31m\\x9b" "0m"

/* No byte that starts or ends a terminal control sequence. */
static void assert_no_controls(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\n') || c == 0x7f || c == 0x9b) {
			fprintf(stderr, "raw byte 0x%02x at %zu in:\n%.*s\n", c, i, (int)n, s);
			fail();
		}
		if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f) {
			fprintf(stderr, "raw C1 U+00%02X at %zu\n", (unsigned char)s[i + 1], i);
			fail();
		}
	}
}

static void test_fmt_safe_keeps_clean_text(void **state)
{
	char buf[64];
	const char *s = "qwen3 \xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80 /models/a b.gguf"; /* é 日 😀 */
	(void)state;
	/* clean text comes back as the same pointer: no copy, no truncation */
	assert_ptr_equal(fmt_safe(buf, 4, s), s);
	assert_true(fmt_is_safe(s, strlen(s)));
	assert_string_equal(fmt_safe(buf, sizeof buf, NULL), "");
	assert_string_equal(fmt_safe(buf, sizeof buf, ""), "");
}

static void test_fmt_safe_escapes_controls(void **state)
{
	char buf[128];
	(void)state;
	assert_string_equal(fmt_safe(buf, sizeof buf, HOSTILE), HOSTILE_ESCAPED);
	assert_string_equal(fmt_safe(buf, sizeof buf, "a\tb\nc\rd\x7f"), "a\\x09b\\x0ac\\x0dd\\x7f");
	assert_string_equal(fmt_safe(buf, sizeof buf, "\x01"), "\\x01");
	/* U+00A0 (first after the C1 block) is kept */
	assert_string_equal(fmt_safe(buf, sizeof buf, "x\xc2\x9f\xc2\xa0"), "x\\xc2\\x9f\xc2\xa0");
}

static void test_fmt_safe_escapes_bad_utf8(void **state)
{
	char buf[128];
	(void)state;
	/* overlong '/', a surrogate, past U+10FFFF, a lone continuation, a cut sequence */
	assert_string_equal(fmt_safe(buf, sizeof buf, "\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(fmt_safe(buf, sizeof buf, "\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(fmt_safe(buf, sizeof buf, "\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	assert_string_equal(fmt_safe(buf, sizeof buf, "a\x80" "b"), "a\\x80b");
	assert_string_equal(fmt_safe(buf, sizeof buf, "\xe6\x97\x1b"), "\\xe6\\x97\\x1b");
	assert_string_equal(fmt_safe(buf, sizeof buf, "\xe6\x97"), "\\xe6\\x97");
}

static void test_fmt_safe_truncates_whole(void **state)
{
	char buf[10], out[64];
	(void)state;
	/* 9 characters of room: "ab" + one escape (4) fits, the next escape does not */
	assert_string_equal(fmt_safe(buf, sizeof buf, "ab\x1b\x1b"), "ab\\x1b");
	assert_string_equal(fmt_safe(buf, 1, "\x1b"), "");
	assert_string_equal(fmt_safe(buf, 0, "\x1b"), "");
	/* the length form escapes NULs too */
	size_t n = fmt_safe_copy(out, "a\0\x1b", 3);
	assert_int_equal(n, 9);
	assert_memory_equal(out, "a\\x00\\x1b", 9);
	assert_false(fmt_is_safe("a\0", 2));
}

static struct gtm_explain *hostile_explain(void)
{
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	struct ex_log *g = &e->log;
	g->present = true;
	str_copy(g->kind, "llama.cpp", sizeof g->kind);
	str_copy(g->path, "/tmp/" HOSTILE ".log", sizeof g->path);
	str_copy(g->state, "current", sizeof g->state);
	str_copy(g->message, HOSTILE, sizeof g->message);
	str_copy(g->model, "/m/" HOSTILE ".gguf", sizeof g->model);
	g->loaded_at_s = -1;
	g->n_ctx = g->n_slots = g->n_ctx_slot = -1;
	g->kv_unified = -1;
	g->n_kv = 1;
	str_copy(g->kv[0].type_k, HOSTILE, sizeof g->kv[0].type_k);
	g->has_bd = true;
	g->n_bd = 1;
	str_copy(g->bd[0].device, HOSTILE, sizeof g->bd[0].device);
	g->n_history = 1;
	str_copy(g->history[0].model, HOSTILE, sizeof g->history[0].model);
	g->history[0].at_s = -1;
	g->history[0].rel_s = -1;
	struct ex_segment *sg = ex_add_seg(e, EX_SEG_WEIGHTS, EX_SRC_LOG, HOSTILE);
	sg->gpu = 0;
	sg->bytes = gtm_u64_of(1 << 20, GTM_REPORTED);
	str_copy(sg->note, HOSTILE, sizeof sg->note);
	ex_add_note(e, "%s", HOSTILE);
	e->n_servers = 1;
	ex_server_init(&e->servers[0], 8080);
	str_copy(e->servers[0].kind, HOSTILE, sizeof e->servers[0].kind);
	e->servers[0].n_models = 1;
	str_copy(e->servers[0].models[0].name, HOSTILE, sizeof e->servers[0].models[0].name);
	e->app.present = true;
	str_copy(e->app.app, "handy", sizeof e->app.app);
	str_copy(e->app.selected_model, HOSTILE, sizeof e->app.selected_model);
	e->app.n_events = 1;
	str_copy(e->app.events[0].kind, "load", sizeof e->app.events[0].kind);
	str_copy(e->app.events[0].detail, HOSTILE, sizeof e->app.events[0].detail);
	return e;
}

static struct gtm_ident *hostile_ident(void)
{
	struct gtm_ident *id = ident_new();
	id->category = IDENT_CAT_AI;
	str_copy(id->category_reason, "AI runtime " HOSTILE, sizeof id->category_reason);
	struct ident_model *m = ident_add_model_evidence_detail(id, "/m/" HOSTILE ".gguf", MODEL_EV_API, HOSTILE);
	m->have_info = true;
	str_copy(m->info.name, HOSTILE, sizeof m->info.name);
	str_copy(m->info.arch, HOSTILE, sizeof m->info.arch);
	str_copy(m->info.quant, HOSTILE, sizeof m->info.quant);
	return id;
}

/* A snapshot whose every outside string carries ESC and BEL. */
static struct gtm_snapshot *hostile_snapshot(void)
{
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_device *d = snapshot_add_device(s);
	d->index = 0;
	str_copy(d->name, HOSTILE, sizeof d->name);
	str_copy(d->driver_version, HOSTILE, sizeof d->driver_version);
	str_copy(s->hostname, HOSTILE, sizeof s->hostname);
	snapshot_add_note(s, "%s", HOSTILE);
	struct gtm_source_status *st = snapshot_add_source(s, "drm");
	st->available = false;
	str_copy(st->message, HOSTILE, sizeof st->message);

	struct gtm_process *p = snapshot_add_process(s);
	p->pid = 4242;
	str_copy(p->label, "4242", sizeof p->label);
	str_copy(p->name, HOSTILE, sizeof p->name);
	p->rss = GTM_U64_NA;
	struct gtm_gpu_use *u = process_add_use(p);
	u->vram = GTM_U64_NA;
	str_copy(u->na_reason, HOSTILE, sizeof u->na_reason);
	p->ident = hostile_ident();
	p->explain = hostile_explain();
	s->n_gpu_processes = 1;
	return s;
}

static void test_text_views_escape_outside_strings(void **state)
{
	char *text = NULL;
	size_t len = 0;
	(void)state;
	gtm_ident_free_hook = ident_free;
	gtm_explain_free_hook = explain_free;
	struct gtm_snapshot *s = hostile_snapshot();
	FILE *out = tu_memstream(&text, &len);
	assert_non_null(out);
	text_print_snapshot(out, s, true);
	text_print_gpu_list(out, s);
	ident_text_print_full(out, s->processes[0].ident, "  ");
	explain_text_print_full(out, s->processes[0].explain, "  ");
	tu_memclose(out);
	assert_no_controls(text, len);
	/* the text is there, escaped, not dropped */
	assert_non_null(strstr(text, HOSTILE_ESCAPED));
	assert_non_null(strstr(text, "header name \"" HOSTILE_ESCAPED "\""));
	assert_non_null(strstr(text, "/m/" HOSTILE_ESCAPED ".gguf"));
	free(text);
	snapshot_free(s);
}

/* --list-gpus shows a Windows adapter's LUID (text and JSON); a device
 * without one (every Linux device) keeps its line as it was and null. */
static void test_gpu_list_luid(void **state)
{
	char *text = NULL;
	size_t len = 0;
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_device *d = snapshot_add_device(s);
	d->index = 0;
	d->vendor = GTM_VENDOR_NVIDIA;
	str_copy(d->name, "NVIDIA GeForce RTX 4090", sizeof d->name);
	str_copy(d->luid, "0x00000000_0x0000A18D", sizeof d->luid);
	d->mem_total = gtm_u64_of(24ull << 30, GTM_MEASURED);
	d = snapshot_add_device(s);
	d->index = 1;
	d->vendor = GTM_VENDOR_AMD;
	str_copy(d->name, "AMD Radeon", sizeof d->name);
	str_copy(d->pci_bus_id, "0000:03:00.0", sizeof d->pci_bus_id);
	d->mem_total = GTM_U64_NA;
	FILE *out = tu_memstream(&text, &len);
	assert_non_null(out);
	text_print_gpu_list(out, s);
	tu_memclose(out);
	char *second = strchr(text, '\n');
	assert_non_null(second);
	assert_non_null(strstr(text, "24.00 GiB  LUID 0x00000000_0x0000A18D\n"));
	assert_null(strstr(second, "LUID"));
	assert_string_equal(second + 1, "1  amd     AMD Radeon                           0000:03:00.0   N/A\n");
	free(text);

	out = tu_memstream(&text, &len);
	json_print_gpu_list(out, s);
	tu_memclose(out);
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);
	assert_non_null(root);
	json_t *gpus = json_object_get(root, "gpus");
	assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 0), "luid")), "0x00000000_0x0000A18D");
	assert_true(json_is_null(json_object_get(json_array_get(gpus, 1), "luid")));
	json_decref(root);
	free(text);
	snapshot_free(s);
}

static char *render_explain(const struct gtm_explain *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = tu_memstream(&text, &len);
	assert_non_null(out);
	explain_text_print_full(out, e, "");
	tu_memclose(out);
	return text;
}

/* llama-server logs -1 for what it has not settled: N/A, never "-1". */
static void test_explain_sentinels_are_na(void **state)
{
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	(void)state;
	e->log.present = true;
	str_copy(e->log.kind, "llama.cpp", sizeof e->log.kind);
	str_copy(e->log.state, "current", sizeof e->log.state);
	e->log.loaded_at_s = -1;
	e->log.n_ctx = -1;
	e->log.n_slots = 4;
	e->log.n_ctx_slot = 4096;
	e->log.kv_unified = 0;
	e->log.has_bd = true;
	e->log.n_bd = 1;
	str_copy(e->log.bd[0].device, "Host", sizeof e->log.bd[0].device);
	e->log.bd[0].total = -1;
	e->log.bd[0].free = -2;
	e->log.bd[0].self = 10;
	char *t = render_explain(e);
	assert_non_null(strstr(t, "context N/A, slots 4 x 4096 per slot, unified KV no"));
	assert_non_null(strstr(t, "Host         N/A N/A 10 ="));
	assert_null(strstr(t, "-1"));
	assert_null(strstr(t, "-2"));
	free(t);
	e->log.n_ctx = 8192;
	e->log.n_slots = -1;
	e->log.n_ctx_slot = -1;
	t = render_explain(e);
	assert_non_null(strstr(t, "context 8192, slots N/A x N/A per slot"));
	free(t);
	explain_free(e);
}

/* The server's own generation speed is labelled reported; the counter over
 * our wall clock is named "wall", never shown as the server's speed. */
static void test_explain_token_rates_labelled(void **state)
{
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	(void)state;
	e->n_servers = 1;
	ex_server_init(&e->servers[0], 8080);
	e->servers[0].gen.tps = gtm_f64_of(1500.0, GTM_REPORTED);
	e->servers[0].gen.avg_tps = gtm_f64_of(1400.0, GTM_REPORTED);
	e->servers[0].gen.wall_tps = gtm_f64_of(32.0, GTM_REPORTED);
	char *t = render_explain(e);
	assert_non_null(strstr(t, "; generation 1500.0 tok/s (reported); generation wall 32.0 tok/s"));
	assert_null(strstr(t, "avg since start")); /* the current speed is there */
	assert_null(strstr(t, "prompt")); /* nothing known: nothing printed, no 0 */
	free(t);
	e->servers[0].gen.tps = GTM_F64_NA;
	e->servers[0].gen.wall_tps = GTM_F64_NA;
	t = render_explain(e);
	assert_non_null(strstr(t, "; generation 1400.0 tok/s avg since start (reported)"));
	assert_null(strstr(t, "wall"));
	free(t);
	explain_free(e);
}

/* The real /props of a server started with --alias tiny-alias: the API
 * line names the file and the name it serves it under. */
static void test_explain_api_alias(void **state)
{
	(void)state;
	const char *dir = tu_shared_fixture("llama");
	char path[1024];
	size_t n;
	if (!dir)
		skip();
	snprintf(path, sizeof path, "%s/llama-q8_0-alias-nometrics-noslots/props.body.txt", dir);
	char *b = tu_read_file(path, &n);
	assert_non_null(b);
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	e->n_servers = 1;
	ex_server_init(&e->servers[0], 18450);
	assert_true(server_parse_props(b, n, &e->servers[0]));
	free(b);
	char *t = render_explain(e);
	assert_non_null(strstr(t, "model /srv/models/tiny-llama-q8_0.gguf (as tiny-alias)"));
	free(t);
	/* the default alias is the path itself: nothing added */
	str_copy(e->servers[0].models[0].name, "/srv/models/tiny-llama-q8_0.gguf", sizeof e->servers[0].models[0].name);
	t = render_explain(e);
	assert_null(strstr(t, "(as "));
	free(t);
	explain_free(e);
}

/* An endpoint with no HTTP answer has no status to print. */
static void test_explain_endpoint_status_only_when_answered(void **state)
{
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	(void)state;
	e->n_servers = 1;
	ex_server_init(&e->servers[0], 8080);
	e->servers[0].n_eps = 2;
	str_copy(e->servers[0].eps[0].path, "/props", sizeof e->servers[0].eps[0].path);
	e->servers[0].eps[0].state = EP_REFUSED;
	e->servers[0].eps[0].http_status = 0;
	e->servers[0].eps[0].ms = 0;
	str_copy(e->servers[0].eps[1].path, "/slots", sizeof e->servers[0].eps[1].path);
	e->servers[0].eps[1].state = EP_DISABLED;
	e->servers[0].eps[1].http_status = 501;
	e->servers[0].eps[1].ms = 3;
	char *t = render_explain(e);
	assert_non_null(strstr(t, ":8080 /props          refused (0 ms)"));
	assert_non_null(strstr(t, "(HTTP 501, 3 ms)"));
	assert_null(strstr(t, "HTTP 0"));
	free(t);
	explain_free(e);
}

/* History lines: the wall clock when the log has one, else the time after
 * the process started, else "time unknown" (never "at N/A"). */
static void test_explain_history_time(void **state)
{
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	(void)state;
	e->log.present = true;
	str_copy(e->log.state, "history-only", sizeof e->log.state);
	e->log.n_history = 3;
	str_copy(e->log.history[0].model, "a.gguf", sizeof e->log.history[0].model);
	e->log.history[0].at_s = -1;
	e->log.history[0].rel_s = -1;
	e->log.history[0].other_run = true;
	str_copy(e->log.history[1].model, "b.gguf", sizeof e->log.history[1].model);
	e->log.history[1].at_s = -1;
	e->log.history[1].rel_s = 12.5;
	str_copy(e->log.history[2].model, "c.gguf", sizeof e->log.history[2].model);
	e->log.history[2].at_s = 1700000000;
	e->log.history[2].rel_s = -1;
	char *t = render_explain(e);
	assert_non_null(strstr(t, "history: a.gguf time unknown (earlier process)"));
	assert_non_null(strstr(t, "history: b.gguf 12.5 s after its process started (this process)"));
	assert_non_null(strstr(t, "history: c.gguf at 20"));
	assert_null(strstr(t, "at N/A"));
	free(t);
	explain_free(e);
}

/* The unattributed row is no process: its label alone, no '?' owner mark. */
static void test_text_unattributed_label_alone(void **state)
{
	char *text = NULL;
	size_t len = 0;
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	snapshot_add_device(s)->index = 0;
	struct gtm_process *p = snapshot_add_process(s);
	p->owner = GTM_OWNER_UNATTRIBUTED;
	p->rss = GTM_U64_NA;
	str_copy(p->label, "unattributed", sizeof p->label);
	struct gtm_gpu_use *u = process_add_use(p);
	u->vram = gtm_u64_of(64u << 20, GTM_MEASURED);
	s->n_gpu_processes = 1;
	FILE *out = tu_memstream(&text, &len);
	text_print_snapshot(out, s, false);
	tu_memclose(out);
	const char *row = strstr(text, "\nunattributed");
	assert_non_null(row);
	const char *end = strchr(row + 1, '\n');
	assert_non_null(end);
	assert_null(memchr(row, '?', (size_t)(end - row)));
	assert_non_null(strstr(row, "64.00 MiB"));
	free(text);
	snapshot_free(s);
}

/* Windows: a row's VRAM from Dedicated Usage (no Local Usage instance) and a
 * device's used memory from Local Adapter Memory are said in the text, not
 * only in the JSON's memory_note. */
static void test_text_memory_fallback_said(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_device *d = snapshot_add_device(s);
	d->index = 0;
	d->mem_used = gtm_u64_of(1u << 30, GTM_MEASURED);
	str_copy(d->mem_note, "used from Local Adapter Memory: no Dedicated Usage", sizeof d->mem_note);
	struct gtm_process *p = snapshot_add_process(s);
	p->pid = 42;
	p->rss = GTM_U64_NA;
	str_copy(p->label, "W:42", sizeof p->label);
	str_copy(p->name, "game.exe", sizeof p->name);
	struct gtm_gpu_use *u = process_add_use(p);
	u->vram = gtm_u64_of(64u << 20, GTM_MEASURED);
	str_copy(u->mem_note, "VRAM from Dedicated Usage: no Local Usage instance (counts shared surfaces)",
		 sizeof u->mem_note);
	s->n_gpu_processes = 1;
	char *text = NULL;
	size_t len = 0;
	FILE *out = tu_memstream(&text, &len);
	text_print_snapshot(out, s, false);
	tu_memclose(out);
	assert_non_null(strstr(text, "  memory    used from Local Adapter Memory: no Dedicated Usage\n"));
	const char *row = strstr(text, "\nW:42");
	assert_non_null(row);
	const char *end = strchr(row + 1, '\n');
	const char *note = strstr(row, "memory: VRAM from Dedicated Usage");
	assert_non_null(note);
	assert_true(end && note < end);
	free(text);
	snapshot_free(s);
}

/* text_print_snapshot or json_print_snapshot into a string (freed by the caller). */
static char *print_snapshot(int (*print)(FILE *, const struct gtm_snapshot *, bool), const struct gtm_snapshot *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = tu_memstream(&text, &len);
	print(out, s, false);
	tu_memclose(out);
	return text;
}

static int text_print(FILE *out, const struct gtm_snapshot *s, bool all)
{
	text_print_snapshot(out, s, all);
	return 0;
}

/* A host PID whose paired process exited while the driver still lists it:
 * the text row says so, JSON has owner "exited" and exited_owner, and a
 * row that did not exit has exited_owner null. */
static void test_exited_row(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	s->mode = GTM_MODE_CONTAINER;
	snapshot_add_device(s)->index = 0;
	struct gtm_process *p = snapshot_add_process(s);
	p->owner = GTM_OWNER_EXITED;
	p->host_pid = 4000010;
	p->exited_pid = 40;
	p->exited_pairing = GTM_OWNER_GUESSED;
	p->start_time = 100;
	p->rss = GTM_U64_NA;
	str_copy(p->name, "trainer", sizeof p->name);
	str_copy(p->label, "?x40", sizeof p->label);
	process_add_use(p)->vram = gtm_u64_of(1u << 20, GTM_MEASURED);
	p = snapshot_add_process(s);
	p->owner = GTM_OWNER_HOST;
	p->host_pid = 3000;
	p->rss = GTM_U64_NA;
	str_copy(p->label, "H:3000", sizeof p->label);
	process_add_use(p)->vram = gtm_u64_of(2u << 20, GTM_MEASURED);
	s->n_gpu_processes = 2;

	char *text = print_snapshot(text_print, s);
	assert_non_null(strstr(text, "\n?x40       trainer"));
	assert_non_null(strstr(text, "exited (PID 40); the driver still lists its host PID 4000010\n"));
	assert_non_null(strstr(text, "*xPID/?xPID that owner exited")); /* the marks line names the mark */
	free(text);
	text = print_snapshot(json_print_snapshot, s);
	json_t *root = json_loads(text, 0, NULL);
	assert_non_null(root);
	json_t *procs = json_object_get(root, "processes");
	json_t *x = json_array_get(procs, 0), *h = json_array_get(procs, 1);
	assert_string_equal(json_string_value(json_object_get(x, "owner")), "exited");
	assert_true(json_is_null(json_object_get(x, "pid")));
	assert_int_equal(json_integer_value(json_object_get(x, "host_pid")), 4000010);
	json_t *eo = json_object_get(x, "exited_owner");
	assert_int_equal(json_integer_value(json_object_get(eo, "pid")), 40);
	assert_int_equal(json_integer_value(json_object_get(eo, "start_time_ticks")), 100);
	assert_string_equal(json_string_value(json_object_get(eo, "pairing")), "guessed");
	assert_true(json_is_null(json_object_get(h, "exited_owner")));
	json_decref(root);
	free(text);
	snapshot_free(s);
}

/* inspect MODEL.gguf: a header whose strings carry ESC/BEL prints them escaped. */
static void test_inspect_text_escapes_header(void **state)
{
	char *dir = tu_tempdir(), path[512], err[256], *text = NULL;
	size_t len = 0;
	struct llama_flags f;
	struct inspect_model m;
	(void)state;
	snprintf(path, sizeof path, "%s/esc.gguf", dir);
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama" HOSTILE);
	gw_str(w, "general.name", HOSTILE);
	assert_int_equal(gw_write_file(w, path), 0);
	gw_free(w);
	llama_flags_init(&f);
	assert_true(inspect_model_load(&m, path, false, NULL, &f, err, sizeof err));
	FILE *out = tu_memstream(&text, &len);
	inspect_model_print(out, &m);
	tu_memclose(out);
	assert_no_controls(text, len);
	assert_non_null(strstr(text, "  name          " HOSTILE_ESCAPED "\n"));
	assert_non_null(strstr(text, "  architecture  llama" HOSTILE_ESCAPED "\n"));
	free(text);
	inspect_model_release(&m);
	tu_rmrf(dir);
	free(dir);
}

/* The default views list the GPU rows and the parents GPU runners serve
 * through; an AI runtime that uses no GPU is CPU work, listed with --all. */
static void test_views_list_gpu_rows_and_runner_parents(void **state)
{
	(void)state;
	struct gtm_snapshot *s = snapshot_new();
	static struct gtm_ident ai = {.category = IDENT_CAT_AI};
	snapshot_add_process(s)->pid = 10; /* a GPU row */
	s->n_gpu_processes = 1;
	struct gtm_process *cpu_ai = snapshot_add_process(s);
	cpu_ai->pid = 11;
	cpu_ai->ident = &ai;
	snapshot_add_process(s)->pid = 12;
	s->processes[2].runner_parent = true;
	snapshot_add_process(s)->pid = 13; /* anything else */
	assert_true(view_lists_process(s, 0, false));
	assert_false(view_lists_process(s, 1, false));
	assert_true(view_lists_process(s, 2, false));
	assert_false(view_lists_process(s, 3, false));
	for (int i = 0; i < 4; i++)
		assert_true(view_lists_process(s, i, true));
	s->processes[1].ident = NULL;
	snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_safe_keeps_clean_text),
		cmocka_unit_test(test_views_list_gpu_rows_and_runner_parents),
		cmocka_unit_test(test_fmt_safe_escapes_controls),
		cmocka_unit_test(test_fmt_safe_escapes_bad_utf8),
		cmocka_unit_test(test_fmt_safe_truncates_whole),
		cmocka_unit_test(test_text_views_escape_outside_strings),
		cmocka_unit_test(test_gpu_list_luid),
		cmocka_unit_test(test_explain_sentinels_are_na),
		cmocka_unit_test(test_explain_token_rates_labelled),
		cmocka_unit_test(test_explain_api_alias),
		cmocka_unit_test(test_explain_endpoint_status_only_when_answered),
		cmocka_unit_test(test_explain_history_time),
		cmocka_unit_test(test_text_unattributed_label_alone),
		cmocka_unit_test(test_text_memory_fallback_said),
		cmocka_unit_test(test_inspect_text_escapes_header),
		cmocka_unit_test(test_exited_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
