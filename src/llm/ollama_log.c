/* Ollama server.log → load blocks. Line shapes from real logs quoted in
 * ollama/ollama issues #12027, #8098 and PR #12000 (server.go, backend.go,
 * memory.go), and llm-memory.md §6. */
#include "llm/ollama_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "llm/log_scan.h"

static bool num(const char *p, int n, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	*out = v;
	return true;
}

bool ollama_parse_time(const char *p, size_t n, int64_t *out)
{
	unsigned y, mo, d, h, mi, s;
	if (n < 20 || !num(p, 4, &y) || p[4] != '-' || !num(p + 5, 2, &mo) || p[7] != '-' ||
	    !num(p + 8, 2, &d) || (p[10] != 'T' && p[10] != ' ') || !num(p + 11, 2, &h) || p[13] != ':' ||
	    !num(p + 14, 2, &mi) || p[16] != ':' || !num(p + 17, 2, &s))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return false;
	size_t i = 19;
	if (i < n && p[i] == '.')
		for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			;
	int64_t off = 0;
	if (i < n && (p[i] == '+' || p[i] == '-')) {
		unsigned oh, om;
		if (n - i < 6 || !num(p + i + 1, 2, &oh) || p[i + 3] != ':' || !num(p + i + 4, 2, &om))
			return false;
		off = (int64_t)(oh * 3600 + om * 60) * (p[i] == '-' ? -1 : 1);
	} else if (i >= n || p[i] != 'Z')
		return false;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - off;
	return true;
}

bool ollama_kv(const char *p, const char *end, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	for (const char *k = ls_find(p, end, key); k; k = ls_find(k + 1, end, key)) {
		if ((k > p && k[-1] != ' ') || end - k <= (ptrdiff_t)kl || k[kl] != '=')
			continue;
		const char *v = k + kl + 1;
		size_t o = 0;
		if (v < end && *v == '"') {
			for (v++; v < end && *v != '"'; v++) {
				if (*v == '\\' && v + 1 < end)
					v++;
				if (o + 1 < cap)
					out[o++] = *v;
			}
		} else {
			for (; v < end && *v != ' '; v++)
				if (o + 1 < cap)
					out[o++] = *v;
		}
		if (cap)
			out[o] = 0;
		return true;
	}
	return false;
}

/* "--model /path" / "--port 123" inside a runner cmd= value. */
static bool arg_value(const char *cmd, const char *flag, char *out, size_t cap)
{
	const char *e = cmd + strlen(cmd);
	const char *f = ls_find(cmd, e, flag);
	if (!f)
		return false;
	const char *v = f + strlen(flag);
	while (v < e && (*v == ' ' || *v == '='))
		v++;
	const char *ve = v;
	while (ve < e && *ve != ' ')
		ve++;
	ls_copy(out, cap, v, (size_t)(ve - v));
	return ve > v;
}

static void runner_start(struct llama_log *lg, const char *ln, const char *end, int64_t tw)
{
	struct llog_load *l = llama_log_last(lg);
	/* the old memory.* estimate line opens the block just before its runner starts */
	bool reuse = l && l->runtime_estimate && !l->model[0] && !l->loading_seen && !l->port;
	if (!reuse) {
		llama_log_new_run(lg);
		l = llama_log_begin_load(lg, -1.0, tw);
	}
	char cmd[2048], v[512];
	if (!ollama_kv(ln, end, "cmd", cmd, sizeof cmd))
		return;
	if (arg_value(cmd, "--model", v, sizeof v))
		ls_copy(l->model, sizeof l->model, v, strlen(v));
	if (arg_value(cmd, "--port", v, sizeof v)) {
		long port = strtol(v, NULL, 10);
		if (port > 0 && port < 65536)
			l->port = (uint16_t)port;
	}
}

static void add_approx(struct llog_load *l, enum llog_seg seg, const char *dev, uint64_t bytes)
{
	for (int i = 0; i < l->n_buffers; i++)
		if (l->buffers[i].seg == seg && strcmp(l->buffers[i].device, dev) == 0) {
			l->buffers[i].bytes = bytes; /* a later report replaces (Ollama re-fits) */
			return;
		}
	if (l->n_buffers == LLOG_MAX_BUFFERS)
		return;
	struct llog_buffer *b = &l->buffers[l->n_buffers++];
	b->seg = seg;
	ls_copy(b->device, sizeof b->device, dev, strlen(dev));
	b->bytes = bytes;
	b->approx = true;
}

/* Go engine: msg="model weights" device=CUDA0 size="19.9 GiB" (backend.go/device.go). */
static bool go_engine_memory(struct llama_log *lg, const char *msg, const char *ln, const char *end, int64_t tw)
{
	static const struct { const char *msg; enum llog_seg seg; } kinds[] = {
		{"model weights", LLOG_WEIGHTS}, {"kv cache", LLOG_KV}, {"compute graph", LLOG_COMPUTE},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (strcmp(msg, kinds[i].msg) != 0)
			continue;
		/* where the bytes are: device= (backend.go, device.go), buffer= (ggml.go's
		 * first form), buffer_type= before backend= ("compute graph" backend=CUDA0 buffer_type=CUDA_Host) */
		static const char *const where[] = {"device", "buffer", "buffer_type", "backend"};
		char dev[32], size[32];
		uint64_t bytes;
		bool have_dev = false;
		for (size_t w = 0; w < sizeof where / sizeof where[0] && !have_dev; w++)
			have_dev = ollama_kv(ln, end, where[w], dev, sizeof dev) && dev[0];
		if (!have_dev || !ollama_kv(ln, end, "size", size, sizeof size) ||
		    !llog_parse_size(size, strlen(size), &bytes))
			return true;
		struct llog_load *l = llama_log_last(lg);
		if (!l)
			l = llama_log_begin_load(lg, -1.0, tw);
		add_approx(l, kinds[i].seg, dev, bytes);
		l->loading_seen = true;
		return true;
	}
	return false;
}

/* Before 2025-11: msg=offload / "offload to cuda" with memory.* fields — Ollama's
 * estimate before loading (llm/memory.go), kept as such. */
static void old_offload_estimate(struct llama_log *lg, const char *ln, const char *end, int64_t tw)
{
	llama_log_new_run(lg);
	struct llog_load *l = llama_log_begin_load(lg, -1.0, tw);
	l->runtime_estimate = true;
	char v[64];
	long off = -1, model = -1;
	if (ollama_kv(ln, end, "layers.offload", v, sizeof v))
		off = strtol(v, NULL, 10);
	if (ollama_kv(ln, end, "layers.model", v, sizeof v))
		model = strtol(v, NULL, 10);
	l->layers_offloaded = off;
	l->layers_total = model;
	const char *dev = off == 0 ? "CPU" : "GPU";
	uint64_t b;
	if (ollama_kv(ln, end, "memory.weights.total", v, sizeof v) && llog_parse_size(v, strlen(v), &b))
		add_approx(l, LLOG_WEIGHTS, dev, b);
	if (ollama_kv(ln, end, "memory.required.kv", v, sizeof v) && llog_parse_size(v, strlen(v), &b))
		add_approx(l, LLOG_KV, dev, b);
	const char *g = (off >= 0 && off == model) ? "memory.graph.full" : "memory.graph.partial";
	if (ollama_kv(ln, end, g, v, sizeof v) && llog_parse_size(v, strlen(v), &b))
		add_approx(l, LLOG_COMPUTE, dev, b);
}

/* One "ID:GPU-... Layers:20(28..47)" (or "Layers:3[1 3 5]") of a load request's GPULayers. */
static const char *gpu_layers_entry(struct llog_load *l, const char *p, const char *end)
{
	const char *id = p + 3, *q = id;
	while (q < end && *q != ' ' && *q != ']' && *q != '}')
		q++;
	struct llog_gpu_req r = {.layers = -1, .first = -1, .last = -1};
	ls_copy(r.id, sizeof r.id, id, (size_t)(q - id));
	const char *lay = q + 8 <= end && !memcmp(q, " Layers:", 8) ? q + 8 : NULL;
	if (lay) {
		const char *d = lay;
		uint64_t n = ls_uint_after(&d, end);
		if (d > lay && n < 1000000)
			r.layers = (int32_t)n;
		if (d < end && *d == '(') {
			const char *a = ++d;
			uint64_t first = ls_uint_after(&d, end);
			if (d > a && end - d > 2 && d[0] == '.' && d[1] == '.') {
				const char *b = d += 2;
				uint64_t last = ls_uint_after(&d, end);
				if (d > b && first <= last && last < 1000000)
					r.first = (int32_t)first, r.last = (int32_t)last;
				if (d < end && *d == ')')
					d++;
			}
		} else if (d < end && *d == '[') {
			const char *c = ls_find(d, end, "]");
			d = c ? c + 1 : end;
		}
		q = d;
	}
	if (r.id[0] && l->n_gpu_req < LLOG_MAX_DEVICES)
		l->gpu_req[l->n_gpu_req++] = r;
	return q;
}

/* msg=load request="{Operation:commit ... GPULayers:20[ID:GPU-223c... Layers:20(28..47)] ...}"
 * (runner.go): the GPUs by NVML UUID and the layers each gets. The last request wins. */
static void load_request(struct llama_log *lg, const char *ln, const char *end, int64_t tw)
{
	char req[2048];
	if (!ollama_kv(ln, end, "request", req, sizeof req))
		return;
	const char *re = req + strlen(req), *g = ls_find(req, re, "GPULayers:");
	struct llog_load *l = llama_log_last(lg);
	if (!l)
		l = llama_log_begin_load(lg, -1.0, tw);
	l->n_gpu_req = 0;
	const char *p = g ? g + strlen("GPULayers:") : re;
	while (p < re && *p >= '0' && *p <= '9')
		p++;
	if (p >= re || *p != '[')
		return;
	/* "[ID:a Layers:21(0..20) ID:b Layers:20(21..40)]": entries until anything else */
	for (p++; p + 3 < re && !memcmp(p, "ID:", 3);) {
		p = gpu_layers_entry(l, p, re);
		while (p < re && *p == ' ')
			p++;
	}
}

static void go_line(struct llama_log *lg, const char *ln, const char *end, int64_t tw)
{
	char msg[160];
	if (!ollama_kv(ln, end, "msg", msg, sizeof msg))
		return;
	if (strcmp(msg, "starting runner") == 0 || strcmp(msg, "starting llama server") == 0) {
		runner_start(lg, ln, end, tw);
		return;
	}
	if (strcmp(msg, "offload") == 0 || strncmp(msg, "offload to ", 11) == 0) {
		old_offload_estimate(lg, ln, end, tw);
		return;
	}
	if (go_engine_memory(lg, msg, ln, end, tw))
		return;
	if (strcmp(msg, "load") == 0) {
		load_request(lg, ln, end, tw);
		return;
	}
	struct llog_load *l = llama_log_last(lg);
	if (!l && strncmp(msg, "offloaded ", 10) == 0) /* ggml.go logs it before the first memory line */
		l = llama_log_begin_load(lg, -1.0, tw);
	if (!l)
		return;
	if (strncmp(msg, "offloaded ", 10) == 0) {
		const char *q = msg + 10, *me = msg + strlen(msg);
		l->layers_offloaded = (int64_t)ls_uint_after(&q, me);
		if (q < me && *q == '/') {
			q++;
			l->layers_total = (int64_t)ls_uint_after(&q, me);
		}
	} else if (strcmp(msg, "total memory") == 0) {
		char size[32];
		uint64_t b;
		if (ollama_kv(ln, end, "size", size, sizeof size) && llog_parse_size(size, strlen(size), &b))
			l->total_bytes = b;
	} else if (strncmp(msg, "llama runner started", 20) == 0)
		l->loaded = true;
}

void ollama_log_line(struct llama_log *lg, const char *line, size_t n)
{
	const char *end = line + n;
	/* time= near the start (journald may prefix "Aug 22 17:36:22 host ollama[1]: ") */
	const char *t = ls_find(line, n > 120 ? line + 120 : end, "time=");
	int64_t tw;
	if (t && (t == line || t[-1] == ' ') && ollama_parse_time(t + 5, (size_t)(end - t - 5), &tw)) {
		lg->n_lines++;
		lg->last_wall = tw;
		go_line(lg, t, end, tw);
		return;
	}
	/* raw llama.cpp / llama-server lines of a runner */
	llama_log_line(lg, line, n, lg->last_wall);
}

size_t ollama_log_parse(struct llama_log *lg, const char *buf, size_t len)
{
	size_t off = 0;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		if (!nl)
			break;
		size_t n = (size_t)(nl - (buf + off));
		if (n && buf[off + n - 1] == '\r')
			n--;
		ollama_log_line(lg, buf + off, n);
		off = (size_t)(nl - buf) + 1;
	}
	return off;
}
