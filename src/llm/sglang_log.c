/* SGLang's startup lines (sglang_log.h). */
#include "llm/sglang_log.h"

#include <stdlib.h>
#include <string.h>

#include "llm/log_scan.h"
#include "llm/server_log_scan.h"

void sglang_log_init(struct sglang_log *lg)
{
	memset(lg, 0, sizeof *lg);
}

static struct sglang_rank *rank(struct sglang_log *lg, const char *tag)
{
	for (int i = 0; i < lg->n_ranks; i++)
		if (!strcmp(lg->ranks[i].tag, tag))
			return &lg->ranks[i];
	if (lg->n_ranks >= SGLANG_LOG_MAX_RANKS)
		return NULL;
	struct sglang_rank *r = &lg->ranks[lg->n_ranks++];
	memset(r, 0, sizeof *r);
	ls_copy(r->tag, sizeof r->tag, tag, strlen(tag));
	const char *tp = strstr(tag, "TP");
	r->tp_rank = tp && tp[2] >= '0' && tp[2] <= '9' ? atoi(tp + 2) : -1;
	return r;
}

static bool kv_line(struct sglang_rank *r, const char *p, const char *end)
{
	uint64_t t, k, v, kv;
	if (!sl_count_after(p, end, "#tokens:", &t))
		return false;
	if (sl_size_after(p, end, "K size:", &k) && sl_size_after(p, end, "V size:", &v)) {
		r->k_bytes = k;
		r->v_bytes = v;
		r->kv_bytes = k + v;
		r->mla = false;
	} else if (sl_size_after(p, end, "KV size:", &kv)) {
		r->kv_bytes = kv;
		r->mla = true;
	} else {
		return false;
	}
	r->kv_tokens = t;
	r->have_kv = true;
	return true;
}

static bool rank_line(struct sglang_log *lg, const char *tag, const char *p, const char *end)
{
	uint64_t b;
	bool kv = ls_find(p, end, "KV Cache is allocated.") != NULL;
	bool load = ls_find(p, end, "Load weight end.") != NULL;
	bool graph = ls_find(p, end, "graph end.") != NULL && ls_find(p, end, "Capture ");
	struct sglang_rank *r = kv || load || graph ? rank(lg, tag) : NULL;
	if (!r)
		return false;
	if (sl_size_after(p, end, "avail mem=", &b)) {
		r->have_avail = true;
		r->avail_bytes = b;
	}
	if (kv)
		return kv_line(r, p, end);
	if (!sl_size_after(p, end, "mem usage=", &b))
		return r->have_avail;
	if (load) {
		r->have_weights = true;
		r->weights_bytes = b;
	} else {
		r->have_graph = true;
		r->graph_bytes = b;
	}
	return true;
}

void sglang_log_line(struct sglang_log *lg, const char *line, size_t n)
{
	char tag[48];
	const char *end = line + n;
	uint64_t v;
	double x;
	bool hit = false;
	sl_copy_tag(line, n, tag, sizeof tag);
	if (sl_count_after(line, end, "max_total_num_tokens=", &v)) {
		lg->have_max_tokens = true;
		lg->max_total_num_tokens = v;
		hit = true;
		if (sl_count_after(line, end, "context_len=", &v))
			lg->have_context = true, lg->context_len = v;
		if (sl_size_after(line, end, "available_gpu_mem=", &v))
			lg->have_available = true, lg->available_gpu_bytes = v;
	} else if (sl_decimal_after(line, end, "token usage:", &x)) {
		lg->have_usage = true;
		lg->token_usage = x;
		hit = true;
	} else if (ls_find(line, end, "The server is fired up and ready to roll")) {
		lg->ready = hit = true;
	} else {
		hit = rank_line(lg, tag, line, end);
	}
	lg->lines += hit;
}

size_t sglang_log_parse(struct sglang_log *lg, const char *buf, size_t len)
{
	size_t off = 0;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		if (!nl)
			break;
		sglang_log_line(lg, buf + off, (size_t)(nl - (buf + off)));
		off = (size_t)(nl - buf) + 1;
	}
	return off;
}

uint64_t sglang_rank_bytes_per_token(const struct sglang_rank *r)
{
	return r->have_kv && r->kv_tokens ? r->kv_bytes / r->kv_tokens : 0;
}
