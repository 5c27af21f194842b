/* vLLM and SGLang processes: their startup lines (stdout/stderr redirected
 * to a file, read through /proc/PID/fd) joined into the process's breakdown.
 * Each tensor-parallel rank is its own process on its own GPU, so a process
 * takes the worker whose tag names its PID (vLLM "(Worker_TP0 pid=N)"), the
 * rank whose TP number its title names (SGLang "sglang::scheduler_TP0"), or
 * the one untagged worker of a single-process server. Figures are reported
 * (load time); breakdown_build adds the measured remainder after them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "portable.h"
#include "explain/breakdown.h"
#include "explain/explain_internal.h"
#include "llm/sglang_log.h"
#include "llm/vllm_log.h"

/* Startup lines come first: the head of the log is enough. */
#define PYSERVE_LOG_HEAD (1u << 20)

/* The parsed head of the process's stdout or stderr when it is a regular
 * file; read again only when the file's identity (device, inode, size,
 * mtime) changed: a rotated, replaced or grown log. NULL when none. */
static const struct head_entry *head_of(struct explain_ctx *c, const struct gtm_process *p, bool vllm)
{
	static const char *const fds[] = {"2", "1"};
	char t[1024];
	for (size_t i = 0; i < ARRAY_LEN(fds); i++) {
		struct stat st;
		if (sysroot_readlink(t, sizeof t, "/proc/%u/fd/%s", p->pid, fds[i]) <= 0 || t[0] != '/' ||
		    str_starts(t, "/dev/") || sysroot_stat(&st, "/proc/%u/fd/%s", p->pid, fds[i]) != 0 || !S_ISREG(st.st_mode))
			continue;
		struct head_entry *lru = &c->heads[0];
		for (int k = 0; k < EXC_HEADS; k++) {
			struct head_entry *h = &c->heads[k];
			if (h->used && h->pid == p->pid && h->start_time == p->start_time && h->vllm == vllm &&
			    h->dev == (uint64_t)st.st_dev && h->ino == (uint64_t)st.st_ino && h->size == (uint64_t)st.st_size &&
			    h->mtime_ns == stat_mtime_ns(&st)) {
				h->used = c->refresh + 1;
				return h;
			}
			if (h->used < lru->used)
				lru = h;
		}
		char *buf = xmalloc(PYSERVE_LOG_HEAD + 1);
		ssize_t n = sysroot_read(buf, PYSERVE_LOG_HEAD + 1, "/proc/%u/fd/%s", p->pid, fds[i]);
		c->head_reads++;
		if (n <= 0) {
			free(buf);
			continue;
		}
		free(lru->lg);
		memset(lru, 0, sizeof *lru);
		c->heads_filled = true;
		lru->pid = p->pid;
		lru->start_time = p->start_time;
		lru->dev = (uint64_t)st.st_dev;
		lru->ino = (uint64_t)st.st_ino;
		lru->size = (uint64_t)st.st_size;
		lru->mtime_ns = stat_mtime_ns(&st);
		lru->vllm = vllm;
		lru->used = c->refresh + 1;
		str_copy(lru->shown, t, sizeof lru->shown);
		if (vllm) {
			struct vllm_log *lg = xmalloc(sizeof *lg);
			vllm_log_init(lg);
			vllm_log_parse(lg, buf, (size_t)n);
			lru->lg = lg;
		} else {
			struct sglang_log *lg = xmalloc(sizeof *lg);
			sglang_log_init(lg);
			sglang_log_parse(lg, buf, (size_t)n);
			lru->lg = lg;
		}
		free(buf);
		return lru;
	}
	return NULL;
}

void ex_pyserve_cache_free(struct explain_ctx *c)
{
	if (!c->heads_filled)
		return;
	for (int i = 0; i < EXC_HEADS; i++)
		free(c->heads[i].lg);
	memset(c->heads, 0, sizeof c->heads);
}

static void seg(struct gtm_explain *e, enum ex_seg kind, int gpu, bool have, uint64_t bytes, const char *note)
{
	if (!have)
		return;
	struct ex_segment *s = ex_add_seg(e, kind, EX_SRC_LOG, "GPU");
	if (!s)
		return;
	s->gpu = gpu;
	s->bytes = gtm_u64_of(bytes, GTM_REPORTED);
	str_copy(s->note, note, sizeof s->note);
}

static const struct vllm_worker *vllm_pick(const struct vllm_log *lg, const struct gtm_process *p)
{
	const struct vllm_worker *untagged = NULL;
	for (int i = 0; i < lg->n_workers; i++) {
		if (lg->workers[i].pid == (int64_t)p->pid)
			return &lg->workers[i];
		if (!lg->workers[i].tag[0])
			untagged = &lg->workers[i];
	}
	/* a single-process server's lines carry no tag */
	return lg->n_workers == 1 ? untagged : NULL;
}

static void vllm_join(struct gtm_explain *e, const struct gtm_process *p, const struct vllm_log *lg,
		      struct ex_pool *pool)
{
	const struct vllm_worker *w = vllm_pick(lg, p);
	int gpu = breakdown_single_gpu(p);
	if (w) {
		seg(e, EX_SEG_WEIGHTS, gpu, w->have_weights, w->weights_bytes,
		    w->weights_with_non_torch ? "weights + non-torch memory (vLLM's profile)" : "vLLM: model loading");
		seg(e, EX_SEG_KV, gpu, w->have_kv || w->have_kv_in_use, w->have_kv ? w->kv_bytes : w->kv_in_use_bytes,
		    "vLLM's KV cache pool on this GPU");
		pool->have_bytes = w->have_kv || w->have_kv_in_use;
		pool->bytes = w->have_kv ? w->kv_bytes : w->kv_in_use_bytes;
		uint64_t c = (w->have_activation ? w->activation_bytes : 0) + (w->have_graph ? w->graph_bytes : 0) +
			     (w->have_non_torch && !w->weights_with_non_torch ? w->non_torch_bytes : 0);
		seg(e, EX_SEG_COMPUTE, gpu, w->have_activation || w->have_graph || w->have_non_torch, c,
		    "peak activation + CUDA graphs + non-torch (vLLM's profile)");
	} else if (lg->n_workers) {
		ex_add_note(e, "vLLM log: no worker line names PID %u (%d workers logged)", p->pid, lg->n_workers);
	}
	uint64_t tokens;
	if (lg->have_usage)
		ex_add_note(e, "vLLM log: GPU KV cache usage %.1f%% in its last stats line (of the whole engine's pool)",
			    lg->kv_usage_pct);
	if (vllm_log_kv_tokens(lg, &tokens))
		ex_add_note(e, "vLLM log: GPU KV cache size %llu tokens (all workers of the engine)", (unsigned long long)tokens);
}

/* The TP rank in the process's title ("sglang::scheduler_TP1"), or -1. */
static int title_tp(const struct gtm_process *p)
{
	const char *s = NULL;
	for (int i = 0; p->detail && i < p->detail->argc && !s; i++)
		s = strstr(p->detail->argv[i], "_TP");
	if (!s)
		s = strstr(p->name, "_TP");
	return s && s[3] >= '0' && s[3] <= '9' ? atoi(s + 3) : -1;
}

static void sglang_join(struct gtm_explain *e, const struct gtm_process *p, const struct sglang_log *lg,
			struct ex_pool *pool)
{
	int tp = title_tp(p), gpu = breakdown_single_gpu(p);
	const struct sglang_rank *r = NULL;
	for (int i = 0; i < lg->n_ranks && !r; i++)
		if (lg->ranks[i].tp_rank == tp && tp >= 0)
			r = &lg->ranks[i];
	if (!r && lg->n_ranks == 1 && tp <= 0)
		r = &lg->ranks[0];
	if (r) {
		seg(e, EX_SEG_WEIGHTS, gpu, r->have_weights, r->weights_bytes, "SGLang: Load weight end, mem usage");
		char note[96];
		snprintf(note, sizeof note, "SGLang's %s pool: %llu tokens, %llu B/token", r->mla ? "MLA" : "K+V",
			 (unsigned long long)r->kv_tokens, (unsigned long long)sglang_rank_bytes_per_token(r));
		seg(e, EX_SEG_KV, gpu, r->have_kv, r->kv_bytes, note);
		pool->have_bytes = pool->have_tokens = r->have_kv;
		pool->bytes = r->kv_bytes;
		pool->tokens = r->kv_tokens;
		seg(e, EX_SEG_COMPUTE, gpu, r->have_graph, r->graph_bytes, "SGLang: graph capture, mem usage");
	}
	if (lg->have_usage)
		ex_add_note(e, "SGLang log: token usage %.2f of the KV pool in its last batch line", lg->token_usage);
}

void ex_pyserve_explain(struct explain_ctx *c, const struct gtm_process *p, struct gtm_explain *e,
			struct ex_pool *pool)
{
	bool vllm = !strcmp(e->runtime, "vllm"), sglang = !strcmp(e->runtime, "sglang");
	memset(pool, 0, sizeof *pool);
	if ((!vllm && !sglang) || e->log.present || !p->pid)
		return;
	const struct head_entry *h = head_of(c, p, vllm);
	if (!h)
		return;
	e->log.present = true;
	str_copy(e->log.kind, e->runtime, sizeof e->log.kind);
	str_copy(e->log.path, h->shown, sizeof e->log.path);
	str_copy(e->log.state, "current", sizeof e->log.state);
	e->log.verbosity = e->log.kv_unified = e->log.flash_attn = -1;
	e->log.loaded_at_s = e->log.n_ctx = e->log.n_seq_max = e->log.n_slots = e->log.n_ctx_slot = -1;
	e->log.layers_offloaded = e->log.layers_total = -1;
	if (vllm)
		vllm_join(e, p, h->lg, pool);
	else
		sglang_join(e, p, h->lg, pool);
}
