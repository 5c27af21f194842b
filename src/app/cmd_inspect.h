/* `gputaskman inspect MODEL.gguf [flags] [--json]`: a model's identity and
 * its estimated memory plan; `inspect PID` is handed to inspect_pid_main. */
#ifndef GTM_CMD_INSPECT_H
#define GTM_CMD_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "llm/estimate.h"
#include "llm/gguf.h"
#include "llm/gguf_info.h"
#include "llm/llama_flags.h"

/* argv[0] is "inspect". Returns the process exit status (0, or 2 on bad input). */
int cmd_inspect(int argc, char **argv);

/* Free/total memory and name of the GPU the plan is checked against; 0 on
 * success. The lead wires this to the collector; unwired (NULL), inspect
 * says "no GPU visible: fit not checked". */
/* 0: a GPU's measured free memory; 1: a GPU (named) whose free memory is not
 * known; -1: no GPU. */
typedef int (*cmd_inspect_gpu_query_fn)(uint64_t *free_bytes, uint64_t *total_bytes, char *name, size_t n);
void cmd_inspect_set_gpu_query(cmd_inspect_gpu_query_fn fn);
/* The default query `inspect MODEL` uses when none is set: one collector
 * refresh (no probes), the first device whose free memory is measured.
 * Returns -1 when no such device is visible. */
int cmd_inspect_collector_gpu(uint64_t *free_bytes, uint64_t *total_bytes, char *name, size_t n);

/* Everything inspect knows about one model file under one set of flags. */
struct inspect_model {
	const char *path;
	struct gguf_header *h;         /* shared, from gguf_cache_get */
	struct gguf_model_info info;
	const struct llama_flags *flags;
	bool plan_ok;
	char plan_err[160];
	struct estimate est;
	bool have_gpu;
	char gpu_name[96];
	uint64_t gpu_free, gpu_total;
	bool fits;
	uint64_t max_ctx;
	const char *fit_note;          /* why no fit was checked, when not "no GPU visible" */
	char fit_buf[160];
};

/* Reads the header (cached) and plans; false with err set when the file is
 * missing, not GGUF or hostile. store_name may be NULL. observed: path is a
 * process's model (read under GPUTASKMAN_ROOT when set), not a file named on
 * gputaskman's command line. Release with inspect_model_release. */
bool inspect_model_load(struct inspect_model *m, const char *path, bool observed, const char *store_name,
			const struct llama_flags *f, char *err, size_t n);
void inspect_model_release(struct inspect_model *m);
/* Text (sizes in MiB with two decimals, every figure labelled estimated). */
void inspect_model_print(FILE *out, const struct inspect_model *m);
/* JSON object with exact bytes; null for what the header does not say. */
json_t *inspect_model_json(const struct inspect_model *m);

#endif
