/* `gputaskman inspect DIR|MODEL.safetensors|org/name [vLLM flags] [--json]`:
 * a safetensors model's identity (config.json, the headers of its shards,
 * its Hugging Face cache entry) and its KV cache by vLLM's rules, checked
 * against the live GPU the way `inspect MODEL.gguf` is. */
#ifndef GTM_CMD_INSPECT_ST_H
#define GTM_CMD_INSPECT_ST_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "app/cmd_inspect.h"
#include "llm/st_model.h"
#include "llm/vllm_kv.h"

/* Whether argv (argv[0] "inspect") names a safetensors model: a folder, a
 * .safetensors file, or org/name found in the Hugging Face cache. */
bool cmd_inspect_st_wants(int argc, char **argv);
/* Runs the command; returns the exit status (2 on bad input). */
int cmd_inspect_st(int argc, char **argv, cmd_inspect_gpu_query_fn gpu_query);

struct inspect_st {
	char label[600];          /* "org/name@main", or the path */
	const char *path;         /* the folder or file inspected */
	struct st_model m;
	struct vllm_kv_opts opts;
	double gpu_util;          /* --gpu-memory-utilization */
	bool plan_ok;
	char plan_err[200];
	struct vllm_kv kv;
	uint64_t weights_gpu;     /* weights / TP (estimated) */
	uint64_t need_gpu;        /* weights_gpu + one max-model-len sequence of KV */
	bool have_gpu;
	char gpu_name[96], fit_note[200];
	uint64_t gpu_free, gpu_total, budget;
	bool fits;
};

void inspect_st_print(FILE *out, const struct inspect_st *s);
json_t *inspect_st_json(const struct inspect_st *s);

#endif
