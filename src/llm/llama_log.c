/* llama.cpp log lines → load blocks of buffer sizes. Formats and their
 * sources: llm-memory.md §6 (llama-model.cpp:1634, llama-kv-cache.cpp:289,299,
 * llama-context.cpp:374, tools/server/server.cpp:1270), checked against the
 * real build-10470 logs in ../shared/fixtures/llama. */
#include "llm/llama_log.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llm/llama_log_internal.h"
#include "llm/log_scan.h"

const char *llog_seg_name(enum llog_seg s)
{
	static const char *const names[] = {"weights", "kv", "rs", "compute", "output"};
	return (unsigned)s < LLOG_SEG_COUNT ? names[s] : "other";
}

void llama_log_init(struct llama_log *lg)
{
	memset(lg, 0, sizeof *lg);
	lg->verbosity = -1;
	lg->last_t = -1.0;
	lg->pending_swa = -1;
	lg->last_wall = -1;
}

void llama_log_new_run(struct llama_log *lg)
{
	lg->n_runs++;
	lg->last_t = -1.0; /* the runner's own relative timestamps start again */
	lg->pending_swa = -1;
	lg->in_table = 0;
	lg->run_build[0] = 0;
	lg->n_run_devices = 0;
}

static void load_init(struct llog_load *l, int run, double t_rel, int64_t t_wall)
{
	memset(l, 0, sizeof *l);
	l->run = run;
	l->t_rel_s = t_rel;
	l->t_wall_s = t_wall;
	l->n_ctx = l->n_seq_max = l->n_slots = l->n_ctx_slot = -1;
	l->layers_offloaded = l->layers_total = -1;
	l->kv_unified = l->flash_attn = -1;
	l->bd_fit.t_rel_s = l->bd_final.t_rel_s = -1.0;
}

struct llog_load *llama_log_begin_load(struct llama_log *lg, double t_rel, int64_t t_wall)
{
	if (lg->n_loads == LLOG_MAX_LOADS) {
		memmove(&lg->loads[0], &lg->loads[1], sizeof lg->loads[0] * (LLOG_MAX_LOADS - 1));
		lg->n_loads--;
		lg->dropped_loads++;
	}
	struct llog_load *l = &lg->loads[lg->n_loads++];
	load_init(l, lg->n_runs > 0 ? lg->n_runs - 1 : 0, t_rel, t_wall);
	memcpy(l->build, lg->run_build, sizeof l->build);
	memcpy(l->devices, lg->run_devices, sizeof l->devices);
	l->n_devices = lg->n_run_devices;
	lg->pending_swa = -1;
	lg->in_table = 0;
	return l;
}

struct llog_load *llama_log_last(struct llama_log *lg)
{
	return lg->n_loads ? &lg->loads[lg->n_loads - 1] : NULL;
}

/* The block new facts go to: the latest, or a fresh one when none exists. */
struct llog_load *llog_cur(struct llama_log *lg, double t, int64_t tw)
{
	struct llog_load *l = llama_log_last(lg);
	if (!l || l->run != (lg->n_runs > 0 ? lg->n_runs - 1 : 0))
		l = llama_log_begin_load(lg, t, tw);
	return l;
}

/* A model starts loading: a new block unless the current one has not begun
 * loading anything yet (server `loading model` precedes the loader lines;
 * Ollama's runner start names the model before its runner logs it). */
static struct llog_load *start_model(struct llama_log *lg, double t, int64_t tw, const char *model,
				     size_t mn, bool loader_line)
{
	struct llog_load *l = llama_log_last(lg);
	bool fresh = l && l->run == (lg->n_runs > 0 ? lg->n_runs - 1 : 0) && !l->loading_seen &&
		     !l->loaded && !(loader_line && l->n_kv);
	bool other_model = l && !loader_line && l->model[0] &&
			   (strlen(l->model) != mn || memcmp(l->model, model, mn) != 0);
	if (!fresh || other_model)
		l = llama_log_begin_load(lg, t, tw);
	if (!l->model[0])
		ls_copy(l->model, sizeof l->model, model, mn);
	return l;
}

uint64_t llog_load_seg_total(const struct llog_load *l, enum llog_seg seg)
{
	uint64_t sum = 0;
	for (int i = 0; i < l->n_buffers; i++)
		if (l->buffers[i].seg == seg)
			sum += l->buffers[i].bytes;
	return sum;
}

bool llog_device_is_host(const char *d)
{
	size_t n = strlen(d);
	return strncmp(d, "CPU", 3) == 0 || strcmp(d, "Host") == 0 ||
	       (n >= 5 && strcmp(d + n - 5, "_Host") == 0);
}

void llog_add_buffer(struct llog_load *l, enum llog_seg seg, const char *dev, size_t dn, uint64_t bytes, bool approx)
{
	/* A repeated compute/output/weights (seg, device) in one block is a
	 * re-reservation: keep the last. KV and RS repeat for separate caches
	 * (iSWA's two, a hybrid model's attention + recurrent): each is its own line. */
	struct llog_buffer *b = NULL;
	for (int i = 0; seg != LLOG_KV && seg != LLOG_RS && i < l->n_buffers; i++)
		if (l->buffers[i].seg == seg && strlen(l->buffers[i].device) == dn &&
		    memcmp(l->buffers[i].device, dev, dn) == 0)
			b = &l->buffers[i];
	if (!b) {
		if (l->n_buffers == LLOG_MAX_BUFFERS)
			return;
		b = &l->buffers[l->n_buffers++];
	}
	b->seg = seg;
	ls_copy(b->device, sizeof b->device, dev, dn);
	b->bytes = bytes;
	b->approx = approx;
	l->loading_seen = true;
}

/* `<fn>: <DEV> <kind> buffer size = <X> MiB`, or the pre-2025 weights form
 * `llm_load_tensors: <DEV> buffer size = <X> MiB`. */
static bool parse_buffer_line(struct llama_log *lg, struct ls_line *ln)
{
	static const struct { const char *word; enum llog_seg seg; } kinds[] = {
		{"model", LLOG_WEIGHTS}, {"KV", LLOG_KV}, {"RS", LLOG_RS},
		{"compute", LLOG_COMPUTE}, {"output", LLOG_OUTPUT},
	};
	const char *hit = ls_find(ln->msg, ln->end, " buffer size");
	if (!hit)
		return false;
	const char *after = hit + strlen(" buffer size");
	uint64_t bytes;
	if (!ls_parse_eq_mib(after, ln->end, &bytes))
		return false;
	struct ls_tok w = ls_word_before(ln->msg, hit);
	if (!w.n)
		return false;
	enum llog_seg seg = LLOG_WEIGHTS;
	bool kind_word = false;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (ls_tok_is(w, kinds[i].word)) {
			seg = kinds[i].seg;
			kind_word = true;
		}
	struct ls_tok dev = w;
	if (kind_word)
		dev = ls_word_before(ln->msg, w.p);
	else if (!ls_find(ln->msg, ln->end, "llm_load_tensors:"))
		return false;
	/* the device must follow the function's colon: "fn:   CUDA0 KV buffer" */
	if (!dev.n || !ls_colon_before(ln->msg, dev.p))
		return false;
	struct llog_load *l = llog_cur(lg, ln->t, ln->t_wall);
	llog_add_buffer(l, seg, dev.p, dev.n, bytes, false);
	return true;
}

/* `llama_kv_cache: size = 8.00 MiB (4096 cells, 4 layers, 4/1 seqs), K (f16): 4.00 MiB, V (f16): 4.00 MiB`
 * and the older `KV self size  = 640.00 MiB, K (f16): 320.00 MiB, V (f16): 320.00 MiB`. */
static bool parse_kv_summary(struct llama_log *lg, struct ls_line *ln)
{
	const char *s = ls_find(ln->msg, ln->end, "KV self size");
	const char *p;
	if (s)
		p = s + strlen("KV self size");
	else {
		if (!ls_find(ln->msg, ln->end, "kv_cache"))
			return false;
		s = ls_find(ln->msg, ln->end, ": size = ");
		if (!s)
			return false;
		p = s + 2 + strlen("size");
	}
	struct llog_kv kv = {.swa = -1};
	if (!ls_parse_eq_mib(p, ln->end, &kv.bytes))
		return false;
	const char *paren = ls_find(p, ln->end, "(");
	const char *kpos = ls_find(p, ln->end, "K (");
	if (paren && (!kpos || paren < kpos)) {
		const char *q = paren + 1;
		kv.cells = ls_uint_after(&q, ln->end);
		const char *lay = ls_find(q, ln->end, "cells,");
		if (lay) {
			q = lay + 6;
			kv.layers = (uint32_t)ls_uint_after(&q, ln->end);
			const char *sq = ls_find(q, ln->end, "layers,");
			if (sq) {
				q = sq + 7;
				kv.seqs_used = (uint32_t)ls_uint_after(&q, ln->end);
				if (q < ln->end && *q == '/') {
					q++;
					kv.seqs_max = (uint32_t)ls_uint_after(&q, ln->end);
				}
			}
		}
	}
	if (kpos)
		ls_parse_typed_part(kpos + 2, ln->end, kv.type_k, sizeof kv.type_k, &kv.k_bytes);
	const char *vpos = kpos ? ls_find(kpos + 3, ln->end, "V (") : NULL;
	if (vpos)
		ls_parse_typed_part(vpos + 2, ln->end, kv.type_v, sizeof kv.type_v, &kv.v_bytes);
	if (lg->pending_swa >= 0) {
		kv.swa = lg->pending_swa;
		if (!kv.cells)
			kv.cells = lg->pending_swa_cells;
		lg->pending_swa = -1;
	}
	struct llog_load *l = llog_cur(lg, ln->t, ln->t_wall);
	if (l->n_kv < LLOG_MAX_KV)
		l->kv[l->n_kv++] = kv;
	l->loading_seen = true;
	return true;
}

/* `llama_kv_cache_iswa: creating non-SWA KV cache, size = 4096 cells` / `creating     SWA KV cache, ...` */
static bool parse_iswa(struct llama_log *lg, struct ls_line *ln)
{
	const char *c = ls_find(ln->msg, ln->end, "creating ");
	/* "size =" is searched after "creating ": a line with it only before (issue 11) is not ours */
	const char *size = c ? ls_find(c, ln->end, "KV cache, size =") : NULL;
	if (!size)
		return false;
	bool non = ls_find(c, size, "non-SWA") != NULL;
	if (!non && !ls_find(c, size, "SWA"))
		return false;
	const char *q = size + strlen("KV cache, size =");
	lg->pending_swa = non ? 0 : 1;
	lg->pending_swa_cells = ls_uint_after(&q, ln->end);
	return true;
}

/* `| memory breakdown [MiB] | total free self model context compute unaccounted |` rows:
 * `|   - CUDA0 (RTX 5090)   | 32606 = 1057 + (29365 = 28609 + 397 + 358) + 2183 |`
 * `|   - Host               |                 30956 = 30940 +       0 +      16 |`
 * (common_memory_breakdown_print / llama_memory_breakdown_print). */
static bool parse_bd_row(struct llog_bd_table *t, struct ls_line *ln)
{
	const char *bar = ls_find(ln->msg, ln->end, "|");
	if (!bar)
		return false;
	const char *p = bar + 1;
	while (p < ln->end && *p == ' ')
		p++;
	if (ln->end - p < 3 || p[0] != '-' || p[1] != ' ')
		return false;
	p += 2;
	const char *bar2 = ls_find(p, ln->end, "|");
	if (!bar2)
		return false;
	struct llog_bd_row r;
	memset(&r, 0, sizeof r);
	const char *d = p;
	while (p < bar2 && *p != ' ')
		p++;
	ls_copy(r.device, sizeof r.device, d, (size_t)(p - d));
	const char *open = ls_find(p, bar2, "(");
	if (open) {
		const char *close = bar2;
		while (close > open && *close != ')')
			close--;
		if (close > open)
			ls_copy(r.desc, sizeof r.desc, open + 1, (size_t)(close - open - 1));
	}
	int64_t v[8];
	int nv = 0;
	bool grouped = false;
	for (const char *q = bar2 + 1; q < ln->end && *q != '|' && nv < 8;) {
		if (*q == '(')
			grouped = true;
		if (isdigit((unsigned char)*q)) {
			uint64_t x = ls_uint_after(&q, ln->end);
			v[nv++] = x > (uint64_t)INT64_MAX ? -1 : (int64_t)x;
		} else
			q++;
	}
	r.total = r.free = r.unaccounted = -1;
	if (grouped && nv == 7) {
		r.total = v[0], r.free = v[1], r.self = v[2], r.model = v[3];
		r.context = v[4], r.compute = v[5], r.unaccounted = v[6];
		if (r.unaccounted < 0 || r.unaccounted > r.total)
			r.unaccounted = -1; /* printed from an unsigned underflow */
	} else if (!grouped && nv == 4) {
		r.self = v[0], r.model = v[1], r.context = v[2], r.compute = v[3];
	} else
		return false;
	if (t->n_rows < LLOG_MAX_BD_ROWS)
		t->rows[t->n_rows++] = r;
	return true;
}

static bool parse_bd_header(struct llama_log *lg, struct ls_line *ln)
{
	if (!ls_find(ln->msg, ln->end, "memory breakdown [MiB]"))
		return false;
	struct llog_load *l = llog_cur(lg, ln->t, ln->t_wall);
	struct llog_bd_table *t = l->loading_seen ? &l->bd_final : &l->bd_fit;
	t->n_rows = 0;
	t->t_rel_s = ln->t;
	lg->in_table = l->loading_seen ? 2 : 1;
	return true;
}

/* `initializing, n_slots = 4, n_ctx_slot = 4096, kv_unified = 'true'` (server.cpp:1270) */
static bool parse_initializing(struct llama_log *lg, struct ls_line *ln)
{
	const char *s = ls_find(ln->msg, ln->end, "initializing, n_slots =");
	if (!s)
		return false;
	struct llog_load *l = llog_cur(lg, ln->t, ln->t_wall);
	l->n_slots = ls_int_key(s, ln->end, "n_slots =");
	l->n_ctx_slot = ls_int_key(s, ln->end, "n_ctx_slot =");
	const char *u = ls_find(s, ln->end, "kv_unified = ");
	if (u)
		l->kv_unified = ls_find(u, ln->end, "true") ? 1 : 0;
	return true;
}

/* `llama_context: n_ctx = 4096` and its neighbours (llama-context.cpp). */
static bool parse_context_param(struct llama_log *lg, struct ls_line *ln)
{
	if (!ls_find(ln->msg, ln->end, "llama_context:") &&
	    !ls_find(ln->msg, ln->end, "llama_new_context_with_model:") &&
	    !ls_find(ln->msg, ln->end, "llama_init_from_model:"))
		return false;
	struct llog_load *l = NULL;
	int64_t v;
	if ((v = ls_int_key(ln->msg, ln->end, ": n_ctx ")) >= 0) {
		l = llog_cur(lg, ln->t, ln->t_wall);
		l->n_ctx = v;
	} else if ((v = ls_int_key(ln->msg, ln->end, ": n_seq_max")) >= 0) {
		l = llog_cur(lg, ln->t, ln->t_wall);
		l->n_seq_max = v;
	} else if (ls_find(ln->msg, ln->end, ": flash_attn")) {
		l = llog_cur(lg, ln->t, ln->t_wall);
		const char *e = ls_find(ln->msg, ln->end, "= ");
		if (e) {
			e += 2;
			l->flash_attn = (*e == '1' || *e == 'e') ? 1 : (*e == 'a') ? 2 : 0;
		}
	} else if (ls_find(ln->msg, ln->end, ": kv_unified")) {
		l = llog_cur(lg, ln->t, ln->t_wall);
		if (l->kv_unified < 0)
			l->kv_unified = ls_find(ln->msg, ln->end, "true") ? 1 : 0;
	}
	return l != NULL;
}

/* Lines that start or mark a model load. */
static bool parse_model_lines(struct llama_log *lg, struct ls_line *ln)
{
	const char *s;
	if ((s = ls_find(ln->msg, ln->end, "loading model '"))) {
		s += strlen("loading model '");
		const char *e = ls_rfind(s, ln->end, "'");
		start_model(lg, ln->t, ln->t_wall, s, e ? (size_t)(e - s) : 0, false);
		return true;
	}
	if (ls_find(ln->msg, ln->end, "llama_model_loader: loaded meta data") &&
	    (s = ls_find(ln->msg, ln->end, " tensors from "))) {
		s += strlen(" tensors from ");
		const char *e = ls_rfind(s, ln->end, " (version");
		start_model(lg, ln->t, ln->t_wall, s, e ? (size_t)(e - s) : (size_t)(ln->end - s), true);
		return true;
	}
	if (ls_find(ln->msg, ln->end, "load_tensors: loading model tensors")) {
		llog_cur(lg, ln->t, ln->t_wall)->loading_seen = true;
		return true;
	}
	if ((s = ls_find(ln->msg, ln->end, "offloaded ")) && ls_find(s, ln->end, " layers to GPU")) {
		struct llog_load *l = llog_cur(lg, ln->t, ln->t_wall);
		const char *q = s + strlen("offloaded ");
		l->layers_offloaded = (int64_t)ls_uint_after(&q, ln->end);
		if (q < ln->end && *q == '/') {
			q++;
			l->layers_total = (int64_t)ls_uint_after(&q, ln->end);
		}
		return true;
	}
	if (ls_ends_with(ln->msg, ln->end, "model loaded")) {
		llog_cur(lg, ln->t, ln->t_wall)->loaded = true;
		return true;
	}
	if ((s = ls_find(ln->msg, ln->end, "listening on http://"))) {
		const char *colon = ls_rfind(s, ln->end, ":");
		if (colon && colon > s + 15) {
			const char *q = colon + 1;
			uint64_t port = ls_uint_after(&q, ln->end);
			if (port > 0 && port < 65536)
				llog_cur(lg, ln->t, ln->t_wall)->port = (uint16_t)port;
		}
		return true;
	}
	if (ls_find(ln->msg, ln->end, "cleaning up before exit")) {
		struct llog_load *l = llama_log_last(lg);
		if (l)
			l->exited = true;
		return true;
	}
	return false;
}

/* Run boundaries: the build banner, or relative timestamps going back. */
static void note_run(struct llama_log *lg, struct ls_line *ln)
{
	bool banner = ls_find(ln->msg, ln->end, "common_params_print_info: build ") ||
		      ls_find(ln->msg, ln->end, "main: build = ") ||
		      (ln->end - ln->msg > 7 && memcmp(ln->msg, "build: ", 7) == 0);
	bool back = ln->t >= 0 && lg->last_t >= 0 && ln->t + 1e-6 < lg->last_t;
	struct llog_load *l = llama_log_last(lg);
	/* a banner right after a block was opened (Ollama's "starting runner") belongs to it */
	bool run_has_loads = l && l->run == lg->n_runs - 1 && (l->loading_seen || l->loaded);
	if (lg->n_runs == 0 || back || (banner && run_has_loads)) {
		lg->n_runs++;
		lg->pending_swa = -1;
		lg->in_table = 0;
	}
	if (ln->t >= 0)
		lg->last_t = ln->t;
	if (banner) {
		/* every banner form contains "build"; checked all the same, as everywhere a search meets an offset */
		const char *b = ls_find(ln->msg, ln->end, "build");
		const char *q = b ? b + 5 : ln->end;
		while (q < ln->end && (*q == ' ' || *q == '=' || *q == ':'))
			q++;
		const char *e = ls_find(q, ln->end, " with ");
		ls_copy(lg->run_build, sizeof lg->run_build, q, e ? (size_t)(e - q) : (size_t)(ln->end - q));
	}
	int64_t v = ls_int_key(ln->msg, ln->end, "verbosity = ");
	if (v >= 0)
		lg->verbosity = (int)v;
}

void llama_log_line(struct llama_log *lg, const char *line, size_t n, int64_t t_wall)
{
	struct ls_line ln;
	ls_line_init(&ln, line, n, t_wall);
	lg->n_lines++;
	note_run(lg, &ln);
	if (lg->in_table) {
		struct llog_load *l = llama_log_last(lg);
		if (l && parse_bd_row(lg->in_table == 1 ? &l->bd_fit : &l->bd_final, &ln))
			return;
		lg->in_table = 0;
	}
	if (parse_bd_header(lg, &ln) || parse_buffer_line(lg, &ln) || parse_iswa(lg, &ln) ||
	    parse_kv_summary(lg, &ln) || parse_model_lines(lg, &ln) || parse_initializing(lg, &ln) ||
	    llog_parse_using_device(lg, &ln) || llog_parse_device_list(lg, &ln) ||
	    llog_parse_layer_assigned(lg, &ln) || llog_parse_vram_used(lg, &ln) || parse_context_param(lg, &ln))
		return;
}

size_t llama_log_parse(struct llama_log *lg, const char *buf, size_t len)
{
	size_t off = 0;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		if (!nl)
			break; /* a partial last line is still being written */
		size_t n = (size_t)(nl - (buf + off));
		if (n && buf[off + n - 1] == '\r')
			n--;
		llama_log_line(lg, buf + off, n, -1);
		off = (size_t)(nl - buf) + 1;
	}
	return off;
}

/* Go's format.HumanBytes2: "%.1f GiB" etc. (binary units); plain "B" too. */
bool llog_parse_size(const char *s, size_t n, uint64_t *out)
{
	static const struct { const char *unit; double mul; } units[] = {
		{"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0}, {"B", 1.0},
	};
	const char *q = s, *end = s + n;
	double v;
	if (!ls_parse_decimal(&q, end, &v))
		return false;
	while (q < end && *q == ' ')
		q++;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t ul = strlen(units[i].unit);
		if ((size_t)(end - q) == ul && memcmp(q, units[i].unit, ul) == 0) {
			double b = v * units[i].mul;
			if (!(b < 1.8e19))
				return false;
			*out = (uint64_t)(b + 0.5);
			return true;
		}
	}
	return false;
}
