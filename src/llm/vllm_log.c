/* vLLM's startup lines (vllm_log.h). Each shape is a table row: a phrase to
 * find and what its numbers are; the tag decides whose they are. */
#include "llm/vllm_log.h"

#include <stdlib.h>
#include <string.h>

#include "llm/log_scan.h"
#include "llm/server_log_scan.h"

void vllm_log_init(struct vllm_log *lg)
{
	memset(lg, 0, sizeof *lg);
}

static int64_t tag_int(const char *tag, const char *key)
{
	const char *k = strstr(tag, key);
	if (!k || (k[strlen(key)] < '0' || k[strlen(key)] > '9'))
		return -1;
	return strtoll(k + strlen(key), NULL, 10);
}

/* The worker of a tag; untagged lines are one process's ("" worker). */
static struct vllm_worker *worker(struct vllm_log *lg, const char *tag)
{
	for (int i = 0; i < lg->n_workers; i++)
		if (!strcmp(lg->workers[i].tag, tag))
			return &lg->workers[i];
	if (lg->n_workers >= VLLM_LOG_MAX_WORKERS)
		return NULL;
	struct vllm_worker *w = &lg->workers[lg->n_workers++];
	memset(w, 0, sizeof *w);
	ls_copy(w->tag, sizeof w->tag, tag, strlen(tag));
	w->pid = tag_int(tag, "pid=");
	w->tp_rank = (int)tag_int(tag, "TP");
	return w;
}

static struct vllm_engine *engine(struct vllm_log *lg, const char *tag)
{
	for (int i = 0; i < lg->n_engines; i++)
		if (!strcmp(lg->engines[i].tag, tag))
			return &lg->engines[i];
	if (lg->n_engines >= VLLM_LOG_MAX_ENGINES)
		return NULL;
	struct vllm_engine *e = &lg->engines[lg->n_engines++];
	memset(e, 0, sizeof *e);
	ls_copy(e->tag, sizeof e->tag, tag, strlen(tag));
	return e;
}

/* x is read only when ok: after the call that filled it */
static bool set(bool *have, uint64_t *v, bool ok, const uint64_t *x)
{
	if (ok) {
		*have = true;
		*v = *x;
	}
	return ok;
}

/* "Actual usage is ..." in either wording. */
static bool actual_usage(struct vllm_worker *w, const char *p, const char *end)
{
	const char *a = ls_find(p, end, "Actual usage is ");
	uint64_t b;
	bool any = false;
	if (!a)
		return false;
	a += strlen("Actual usage is ");
	const char *stop = ls_find(a, end, "Current kv cache");
	stop = stop ? stop : end;
	/* each "X GiB for WHAT" in turn */
	for (const char *q = a; q < stop;) {
		const char *s = q;
		if (*q < '0' || *q > '9') {
			q++;
			continue;
		}
		if (!sl_size_at(&s, stop, &b)) {
			while (q < stop && ((*q >= '0' && *q <= '9') || *q == '.'))
				q++;
			continue;
		}
		q = s;
		if (stop - s < 5 || memcmp(s, " for ", 5))
			continue;
		const char *what = s + 5;
		size_t left = (size_t)(stop - what);
		if (left >= 15 && !memcmp(what, "consumed memory", 15)) {
			any |= set(&w->have_weights, &w->weights_bytes, true, &b);
			w->weights_with_non_torch = true;
		} else if (left >= 6 && !memcmp(what, "weight", 6)) {
			any |= set(&w->have_weights, &w->weights_bytes, true, &b);
		} else if (left >= 15 && !memcmp(what, "peak activation", 15)) {
			any |= set(&w->have_activation, &w->activation_bytes, true, &b);
		} else if (left >= 9 && !memcmp(what, "non-torch", 9)) {
			any |= set(&w->have_non_torch, &w->non_torch_bytes, true, &b);
		} else if (left >= 9 && !memcmp(what, "CUDAGraph", 9)) {
			any |= set(&w->have_graph, &w->graph_bytes, true, &b);
		}
		q = what;
	}
	uint64_t total;
	const char *fm = ls_find(p, end, "Free memory on device (");
	if (fm && (fm = memchr(fm, '/', (size_t)(end - fm))) && (fm++, sl_size_at(&fm, end, &total)))
		set(&w->have_gpu_total, &w->gpu_total_bytes, true, &total);
	any |= set(&w->have_kv_in_use, &w->kv_in_use_bytes,
		   sl_size_after(p, end, "Current kv cache memory in use is", &b), &b);
	return any;
}

/* The V0 worker and profiler lines. */
static bool v0_profile(struct vllm_worker *w, const char *p, const char *end)
{
	uint64_t b;
	bool any = false;
	any |= set(&w->have_weights, &w->weights_bytes, sl_size_after(p, end, "model weights take", &b), &b);
	any |= set(&w->have_non_torch, &w->non_torch_bytes, sl_size_after(p, end, "non_torch_memory takes", &b), &b);
	any |= set(&w->have_non_torch, &w->non_torch_bytes, sl_size_after(p, end, "non_torch_memory=", &b), &b);
	any |= set(&w->have_activation, &w->activation_bytes,
		   sl_size_after(p, end, "PyTorch activation peak memory takes", &b), &b);
	any |= set(&w->have_kv, &w->kv_bytes, sl_size_after(p, end, "reserved for KV Cache is", &b), &b);
	any |= set(&w->have_kv, &w->kv_bytes, sl_size_after(p, end, "kv_cache_size=", &b), &b);
	any |= set(&w->have_gpu_total, &w->gpu_total_bytes, sl_size_after(p, end, "total_gpu_memory=", &b), &b);
	any |= set(&w->have_gpu_total, &w->gpu_total_bytes, sl_size_after(p, end, "total_gpu_memory (", &b), &b);
	return any;
}

static bool engine_line(struct vllm_log *lg, const char *tag, const char *p, const char *end)
{
	uint64_t v;
	double x;
	struct vllm_engine *e;
	if (sl_count_after(p, end, "GPU KV cache size:", &v) && ls_find(p, end, " tokens") && (e = engine(lg, tag)))
		return set(&e->have_tokens, &e->kv_tokens, true, &v);
	if (sl_count_after(p, end, "GPU blocks:", &v) && (e = engine(lg, tag))) {
		uint64_t c;
		set(&lg->have_cpu_blocks, &lg->cpu_blocks, sl_count_after(p, end, "CPU blocks:", &c), &c);
		return set(&e->have_blocks, &e->gpu_blocks, true, &v);
	}
	if (sl_count_after(p, end, "Maximum concurrency for", &v)) {
		const char *c = ls_find(p, end, "per request:");
		c = c ? c + strlen("per request:") : end;
		while (c < end && *c == ' ')
			c++;
		if (ls_parse_decimal(&c, end, &x)) {
			lg->have_concurrency = true;
			lg->concurrency_tokens = v;
			lg->max_concurrency = x;
			return true;
		}
	}
	if (sl_decimal_after(p, end, "GPU KV cache usage:", &x)) {
		lg->have_usage = true;
		lg->kv_usage_pct = x;
		return true;
	}
	return false;
}

void vllm_log_line(struct vllm_log *lg, const char *line, size_t n)
{
	char tag[48];
	const char *end = line + n;
	uint64_t b;
	sl_copy_tag(line, n, tag, sizeof tag);
	if (engine_line(lg, tag, line, end)) {
		lg->lines++;
		return;
	}
	/* the rest are a worker's (a single-process server's: the "" worker) */
	bool weights = sl_size_after(line, end, "Model loading took", &b) ||
		       sl_size_after(line, end, "Loading model weights took", &b);
	bool kv = !weights && sl_size_after(line, end, "Available KV cache memory:", &b);
	bool other = !weights && !kv &&
		     (ls_find(line, end, "Actual usage is ") || ls_find(line, end, "model weights take") ||
		      ls_find(line, end, "Memory profiling results") || ls_find(line, end, "total_gpu_memory ("));
	struct vllm_worker *w = weights || kv || other ? worker(lg, tag) : NULL;
	if (!w)
		return;
	if (weights && !w->weights_with_non_torch)
		set(&w->have_weights, &w->weights_bytes, true, &b);
	else if (kv)
		set(&w->have_kv, &w->kv_bytes, true, &b);
	else if (!actual_usage(w, line, end) && !v0_profile(w, line, end))
		return;
	lg->lines++;
}

size_t vllm_log_parse(struct vllm_log *lg, const char *buf, size_t len)
{
	size_t off = 0;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		if (!nl)
			break;
		vllm_log_line(lg, buf + off, (size_t)(nl - (buf + off)));
		off = (size_t)(nl - buf) + 1;
	}
	return off;
}

bool vllm_log_kv_tokens(const struct vllm_log *lg, uint64_t *tokens)
{
	uint64_t sum = 0;
	bool any = false;
	for (int i = 0; i < lg->n_engines; i++)
		if (lg->engines[i].have_tokens) {
			sum += lg->engines[i].kv_tokens;
			any = true;
		}
	*tokens = sum;
	return any;
}
