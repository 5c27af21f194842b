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
#include "llm/split_plan.h"

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
	/* the device plan (several devices, --gpus, or -ts/-sm/-mg given) */
	bool split_wanted, split_ok;
	const char *split_source;      /* "--gpus" or "measured" (live devices) */
	char split_err[160];
	struct split_plan split;
};

/* Up to max devices llama.cpp would see, from one collector refresh: GPUs
 * whose free memory is measured, in PCI order, then as CUDA_VISIBLE_DEVICES
 * (inspect's own environment) orders them. Returns the count. */
size_t cmd_inspect_collector_devices(struct split_device_in *out, size_t max);
/* The device plan of a loaded model: against the sizes of --gpus (gpus not
 * NULL) or the live devices; planned when gpus is given, when several
 * devices are seen, or when the flags give -ts, -sm or -mg. Returns false
 * (message on stderr) when --gpus is malformed. */
bool inspect_model_plan_devices(struct inspect_model *m, const char *gpus);
/* Its text lines and JSON (null when no device plan was made). */
void inspect_split_print(FILE *out, const struct inspect_model *m);
json_t *inspect_split_json(const struct inspect_model *m);

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
