/* Weight placement as llama.cpp does it (llama-model.cpp:1245-1640,
 * llama-model-loader.cpp:1041-1376; llm-memory.md §4). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "llm/estimate_internal.h"

/* LLM_TENSOR_INFOS layer classes (llama-arch.cpp:621): input tensors stay
 * on the host; blk.N.* follow layer N; output, output_norm and the rest go to
 * the output layer's device. */
static const char *const input_tensors[] = {
	"token_embd", "token_embd_norm", "token_types", "position_embd", "per_layer_token_embd",
};

/* --cpu-moe pattern (common/common.h:1072-1080), written as POSIX ERE. */
#define MOE_EXPS "\\.ffn_(up|down|gate|gate_up)_(ch)?exps"
#define MAX_RULES (LLAMA_FLAGS_MAX_OT + 1 + 256)

struct ot_rule {
	regex_t re;
	bool to_host;
};

/* base name (before ".weight"/".bias") equals one of the list */
static bool name_in(const char *name, const char *const *list, size_t n)
{
	const char *dot = strrchr(name, '.');
	size_t len = dot ? (size_t)(dot - name) : strlen(name);
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(name, list[i], len) == 0)
			return true;
	return false;
}

/* "blk.N." → N, else -1 */
static long tensor_layer(const char *name)
{
	char *end;
	if (strncmp(name, "blk.", 4) != 0)
		return -1;
	long il = strtol(name + 4, &end, 10);
	return end != name + 4 && *end == '.' && il >= 0 ? il : -1;
}

static bool buft_is_host(const char *buft)
{
	return strncasecmp(buft, "CPU", 3) == 0;
}

static size_t add_rule(struct ot_rule *rules, size_t n, const char *pattern, bool to_host, struct estimate *e)
{
	if (n >= MAX_RULES || strlen(pattern) > 1024)
		return n;
	if (regcomp(&rules[n].re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
		estimate_note(e, "tensor override '%.60s' is not a POSIX regex here: ignored", pattern);
		return n;
	}
	rules[n].to_host = to_host;
	return n + 1;
}

/* -ot in order, then --cpu-moe, then -ncmoe's per-layer patterns. */
static size_t compile_rules(const struct llama_flags *f, struct ot_rule *rules, uint32_t n_layer, struct estimate *e)
{
	size_t n = 0;
	char pat[96];
	for (size_t i = 0; i < f->n_ot; i++)
		n = add_rule(rules, n, f->ot[i].pattern, buft_is_host(f->ot[i].buft), e);
	if (f->cpu_moe)
		n = add_rule(rules, n, MOE_EXPS, true, e);
	for (int32_t il = 0; il < f->n_cpu_moe && (uint32_t)il < n_layer && il < 256; il++) {
		snprintf(pat, sizeof pat, "blk\\.%d" MOE_EXPS, il);
		n = add_rule(rules, n, pat, true, e);
	}
	return n;
}

long est_tensor_home(const char *name, uint32_t n_layer)
{
	long il;
	if (name_in(name, input_tensors, ARRAY_LEN(input_tensors)))
		return EST_HOME_INPUT;
	il = tensor_layer(name);
	return il >= 0 && (uint64_t)il < n_layer ? il : (long)n_layer;
}

static bool default_on_gpu(const char *name, const struct estimate *e)
{
	long il = est_tensor_home(name, e->n_layer);
	if (il == EST_HOME_INPUT)
		return false;
	if ((uint64_t)il < e->n_layer)
		return (uint64_t)il >= e->n_layer - e->gpu_layers;
	return e->output_on_gpu; /* output layer and anything unclassified */
}

struct est_rules {
	struct ot_rule *rule;
	size_t n;
};

struct est_rules *est_rules_new(const struct llama_flags *f, uint32_t n_layer, struct estimate *e)
{
	struct est_rules *r = xcalloc(1, sizeof *r);
	r->rule = xcalloc(MAX_RULES, sizeof *r->rule);
	r->n = compile_rules(f, r->rule, n_layer, e);
	return r;
}

int est_rules_match(const struct est_rules *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (regexec(&r->rule[i].re, name, 0, NULL, 0) == 0)
			return r->rule[i].to_host; /* the first match wins */
	return -1;
}

void est_rules_free(struct est_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		regfree(&r->rule[i].re);
	free(r->rule);
	free(r);
}

static void place(const struct gguf_tensor *t, bool gpu, uint64_t *lo, uint64_t *hi, uint64_t *host_sum,
		  struct estimate *e)
{
	if (gpu) {
		e->weights_gpu += t->nbytes;
		return;
	}
	*host_sum += t->nbytes;
	if (t->offset < *lo)
		*lo = t->offset;
	if (t->offset + t->nbytes > *hi)
		*hi = t->offset + t->nbytes;
}

void estimate_weights(const struct gguf_header *h, const struct llama_flags *f, struct estimate *e)
{
	struct est_rules *rules = est_rules_new(f, e->n_layer, e);
	uint64_t lo = UINT64_MAX, hi = 0, host_sum = 0;
	const struct gguf_tensor *embd = NULL;

	for (uint64_t i = 0; i < h->n_tensors; i++) {
		const struct gguf_tensor *t = &h->tensors[i];
		bool gpu = default_on_gpu(t->name, e);
		int to_host = est_rules_match(rules, t->name);
		if (to_host >= 0) {
			if (gpu && to_host) {
				e->moved_to_host += t->nbytes;
				e->n_overridden++;
			}
			gpu = !to_host;
		}
		if (strcmp(t->name, "token_embd.weight") == 0)
			embd = t;
		place(t, gpu, &lo, &hi, &host_sum, e);
	}
	/* tied output: token_embd is created again as an OUTPUT tensor and lands
	 * on the output device as a second copy (llama-model-loader.cpp:1086,1255) */
	if (embd && e->output_on_gpu && !gguf_find_tensor(h, "output.weight")) {
		e->tied_copy = embd->nbytes;
		e->weights_gpu += embd->nbytes;
	}
	/* CPU_Mapped covers the file span of host tensors (loader:1362-1376) */
	e->host_mapped = !f->no_mmap;
	e->weights_host = f->no_mmap ? host_sum : (hi > lo ? hi - lo : 0);
	est_rules_free(rules);
}
