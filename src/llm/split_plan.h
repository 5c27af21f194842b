/* Where llama.cpp puts a model across several devices, and whether each
 * device can hold its part: llama.cpp's own assignment rule (cumulative split
 * points from -ts or each device's free memory, the input layer on the CPU,
 * -ngl counted from the top, the output layer last; -sm none|layer|row, -mg)
 * applied to a GGUF header and launch flags. Every figure is an estimate. */
#ifndef GTM_SPLIT_PLAN_H
#define GTM_SPLIT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/estimate.h"
#include "llm/gguf.h"
#include "llm/llama_flags.h"

#define SPLIT_MAX_DEVICES LLAMA_FLAGS_MAX_DEVICES
/* What llama.cpp's own CUDA context takes on every device it can see, before
 * any buffer: about 0.26 GiB measured; counted as 256 MiB per device. */
#define SPLIT_CONTEXT_OVERHEAD (256ull << 20)
/* GGML_SCHED_MAX_COPIES: compute buffers under pipeline parallelism */
#define SPLIT_PIPELINE_COPIES 4u
#define SPLIT_MAX_NOTES 8

/* A device as the plan is given it: measured free memory (live GPUs) or a
 * size typed with --gpus (then free = that size, total unknown). */
struct split_device_in {
	char name[96];
	uint64_t free_bytes;
	uint64_t total_bytes;    /* 0 = unknown */
};

struct split_device {
	char name[96];
	uint64_t free_bytes, total_bytes;
	bool used;               /* in llama.cpp's device list (-sm none keeps only -mg's) */
	float share;             /* fraction of the layers (or rows) it is given */
	int32_t first_layer, last_layer; /* repeating layers it holds; -1 when none */
	uint32_t n_layers;
	bool output;             /* holds the output layer */
	uint64_t weights;        /* its tensors' bytes (its rows of split matrices with -sm row) */
	uint64_t kv, rs;         /* its layers' KV cache and recurrent state */
	uint64_t compute;        /* estimated compute buffer (heuristic) */
	uint64_t overhead;       /* SPLIT_CONTEXT_OVERHEAD */
	uint64_t need;           /* weights + kv + rs + compute + overhead */
	bool fits;               /* need <= free_bytes */
};

enum split_source { SPLIT_BY_TS = 0, SPLIT_BY_FREE, SPLIT_BY_TOTAL };

struct split_plan {
	enum llama_split_mode mode;
	int32_t main_gpu;
	enum split_source layers_by;  /* where the layer split points came from */
	enum split_source rows_by;    /* -sm row: the row split (CUDA: -ts, else total memory) */
	size_t n_dev;
	struct split_device dev[SPLIT_MAX_DEVICES];
	uint32_t n_layer;
	uint32_t host_layers;    /* repeating layers left on the CPU (-ngl) */
	bool output_on_host;
	uint64_t host_weights;   /* from the estimate: CPU_Mapped span or CPU copy */
	uint64_t host_kv;        /* KV + recurrent state on the host (-nkvo, CPU layers) */
	bool pipeline;           /* pipeline parallelism: compute buffers x SPLIT_PIPELINE_COPIES */
	bool refused;            /* llama.cpp refuses it (-mg out of range) */
	bool all_fit;
	char notes[SPLIT_MAX_NOTES][200];
	size_t n_notes;
};

/* The device of repeating layer il (0..n_layer-1) or of the output layer
 * (il = n_layer) given cumulative split points cum[0..n) (the last is 1):
 * -1 for the CPU. ngl is -ngl resolved (0..n_layer+1). */
int split_layer_device(const float *cum, size_t n, uint32_t n_layer, uint32_t ngl, uint32_t il);
/* Cumulative, normalised split points of w[0..n) (all 0: equal shares). */
void split_points(const float *w, size_t n, float *cum);

/* Plans h under f across devs[0..n) (n <= SPLIT_MAX_DEVICES), e being the
 * single-device estimate of the same h and f. false with err set when the
 * header cannot be planned or there is no device. */
bool split_plan_make(const struct gguf_header *h, const struct llama_flags *f, const struct estimate *e,
		     const struct split_device_in *devs, size_t n, struct split_plan *out, char *err, size_t errlen);

/* Parses inspect's --gpus value: sizes separated by ',' ("24GiB,8GiB",
 * "23.5G,8192MiB"), each a number and a unit (B, KiB/MiB/GiB/TiB, K/M/G/T as
 * binary, KB/MB/GB/TB as decimal). Pure over s[0..len). Returns the count
 * (1..max), or 0 with err set. */
size_t split_gpus_parse(const char *s, size_t len, uint64_t *out, size_t max, char *err, size_t errlen);

/* CUDA_VISIBLE_DEVICES s[0..len) over n devices in PCI order (uuids[i] their
 * NVIDIA UUIDs, or NULL): the devices CUDA numbers 0, 1, ... in order[],
 * up to the first entry naming none (as CUDA stops there). Returns the count. */
size_t split_cuda_visible(const char *s, size_t len, const char *const *uuids, size_t n, size_t *order, size_t max);

#endif
