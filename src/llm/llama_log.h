/* llama.cpp log reader: the buffer sizes a runtime allocated at load time,
 * per device, from the lines llama.cpp prints (llm-memory.md §6), in the
 * current and the older line formats, plus the default-verbosity server
 * lines and the memory-breakdown table. A pure parser over bounded bytes:
 * fixed-size output, no allocation, hostile input only drops lines.
 *
 * Figures here are what the runtime allocated when it loaded, not proof of
 * what is resident now. */
#ifndef GTM_LLAMA_LOG_H
#define GTM_LLAMA_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LLOG_MAX_LOADS 8     /* most recent load blocks kept */
#define LLOG_MAX_BUFFERS 32  /* buffer lines per load block */
#define LLOG_MAX_KV 4        /* KV summaries per block (iSWA has two) */
#define LLOG_MAX_BD_ROWS 12  /* memory-breakdown rows per table */
#define LLOG_MAX_DEVICES 8   /* `using device` lines per block */
#define LLOG_MAX_LAYER_DEVS 8 /* devices named by `layer N assigned to device X` */

enum llog_seg {
	LLOG_WEIGHTS = 0, /* "model buffer" / older "buffer" (llm_load_tensors) */
	LLOG_KV,          /* "KV buffer" */
	LLOG_RS,          /* "RS buffer" (recurrent state) */
	LLOG_COMPUTE,     /* "compute buffer" / Ollama "compute graph" */
	LLOG_OUTPUT,      /* "output buffer" */
	LLOG_SEG_COUNT
};
const char *llog_seg_name(enum llog_seg s); /* "weights", "kv", "rs", "compute", "output" */

struct llog_buffer {
	enum llog_seg seg;
	char device[32];     /* "CUDA0", "CPU_Mapped", "CUDA_Host", "MTL0", ... */
	uint64_t bytes;      /* from MiB with two decimals: exact to ±5 KiB */
	bool approx;         /* from a coarser figure (Ollama's "19.9 GiB") */
};

/* `llama_kv_cache: size = ...` (or the older `KV self size = ...`). */
struct llog_kv {
	uint64_t bytes, k_bytes, v_bytes;
	uint64_t cells;      /* 0 when the line did not say */
	uint32_t layers;
	uint32_t seqs_used, seqs_max; /* "4/1 seqs" → 4, 1 */
	char type_k[12], type_v[12];
	int swa;             /* -1 not an iSWA cache, 0 its non-SWA part, 1 its SWA part */
};

/* One row of `| memory breakdown [MiB] | total free self model context compute unaccounted |`.
 * Device rows give all seven; host-like rows (Host, *-REPACK) give self = model + context + compute.
 * Values in MiB; -1 when the row does not carry it or it is impossible (llama.cpp prints
 * an underflowed unaccounted as a huge number). */
struct llog_bd_row {
	char device[32];     /* "CUDA0", "Host", "MTL0", "HTP0-REPACK" */
	char desc[48];       /* "RTX 5090" (the parenthesised name), may be empty */
	int64_t total, free, self, model, context, compute, unaccounted;
};

struct llog_bd_table {
	struct llog_bd_row rows[LLOG_MAX_BD_ROWS];
	int n_rows;
	double t_rel_s;      /* when printed, -1 unknown */
};

struct llog_device {
	char name[32];       /* "CUDA0" */
	char desc[64];       /* "NVIDIA GeForce RTX 4090" */
	char pci[32];        /* "0000:01:00.0" when printed, else "" (older builds, "unknown id") */
	int64_t free_mib;    /* -1 unknown (the startup `Device 0: NAME, compute capability` list) */
};

/* `load_tensors: layer  13 assigned to device CUDA1, is_swa = 1` (DEBUG, -lv 4),
 * summed per device. */
struct llog_layer_dev {
	char device[32];     /* "CUDA1", "CPU", "RPC[192.9.200.5:50052]" */
	uint32_t n_layers, n_swa;
	int32_t first, last; /* lowest and highest layer index seen */
};

/* Ollama's `load request` GPULayers: `ID:GPU-223c... Layers:20(28..47)`. */
struct llog_gpu_req {
	char id[64];         /* the NVML UUID Ollama names the GPU by */
	int32_t layers, first, last; /* -1 unknown */
};

/* One model load: the lines from `loading model` (or the loader's metadata
 * line) to the next load. */
struct llog_load {
	int run;             /* 0-based process run in the file (timestamps restart, build line) */
	double t_rel_s;      /* relative timestamp of its first line (seconds from process start), -1 unknown */
	int64_t t_wall_s;    /* absolute time (Unix seconds) when the lines carry one (Ollama), else -1 */
	char model[512];     /* model path or name as logged; "" unknown */
	char build[48];      /* "10470 (34af94cd9)" */
	uint16_t port;       /* from `listening on http://HOST:PORT` or Ollama's --port */

	struct llog_buffer buffers[LLOG_MAX_BUFFERS];
	int n_buffers;
	struct llog_kv kv[LLOG_MAX_KV];
	int n_kv;
	struct llog_device devices[LLOG_MAX_DEVICES];
	int n_devices;
	struct llog_layer_dev layer_devs[LLOG_MAX_LAYER_DEVS];
	int n_layer_devs;
	struct llog_gpu_req gpu_req[LLOG_MAX_DEVICES];
	int n_gpu_req;
	uint64_t total_bytes;          /* Ollama `msg="total memory"`, 0 when not logged */

	struct llog_bd_table bd_fit;   /* printed while fitting, before loading: a projection */
	struct llog_bd_table bd_final; /* printed after loading (at exit by current builds) */

	int64_t n_ctx, n_seq_max;      /* llama_context: lines, -1 unknown */
	int64_t n_slots, n_ctx_slot;   /* server `initializing, n_slots = ...` */
	int kv_unified;                /* -1 unknown, 0, 1 */
	int flash_attn;                /* -1 unknown, 0 off, 1 on/enabled, 2 auto */
	int64_t layers_offloaded, layers_total; /* `offloaded N/M layers to GPU`, -1 unknown */
	bool loaded;                   /* `model loaded` */
	bool loading_seen;             /* `load_tensors: loading model tensors` or a buffer line */
	bool runtime_estimate;         /* figures are Ollama's pre-load estimate, not allocations */
	bool exited;                   /* `cleaning up before exit` seen after this load */
};

struct llama_log {
	struct llog_load loads[LLOG_MAX_LOADS];
	int n_loads;
	int dropped_loads;   /* older blocks that did not fit */
	int n_runs;          /* process runs seen (1 for one uninterrupted run) */
	int verbosity;       /* `verbosity = N` from the latest run, -1 unknown */
	uint64_t n_lines;
	/* parser state */
	double last_t;
	int pending_swa;     /* from `creating [non-]SWA KV cache`: -1 none */
	uint64_t pending_swa_cells;
	int in_table;        /* 0 none, 1 fit table, 2 final table */
	char run_build[48];
	/* the startup device list (`ggml_cuda_init: found 2 CUDA devices:` then
	 * `  Device 0: NAME, compute capability ...`), copied into each load */
	struct llog_device run_devices[LLOG_MAX_DEVICES];
	int n_run_devices;
	char run_dev_prefix[8];        /* "CUDA", "ROCm" */
	int64_t last_wall;   /* Ollama: time of the latest timestamped line, -1 none */
};

void llama_log_init(struct llama_log *lg);
/* Parses whole lines of buf; a partial last line (no '\n') is ignored.
 * Returns the number of bytes consumed (up to the end of the last full line). */
size_t llama_log_parse(struct llama_log *lg, const char *buf, size_t len);
/* Feeds one line (no newline). t_wall_s: the line's absolute time, or -1. */
void llama_log_line(struct llama_log *lg, const char *line, size_t n, int64_t t_wall_s);

/* Starts a new run and load block explicitly (the Ollama reader at a runner start). */
void llama_log_new_run(struct llama_log *lg);
/* Starts a new load block in the current run. */
struct llog_load *llama_log_begin_load(struct llama_log *lg, double t_rel, int64_t t_wall);
/* The latest block, or NULL. */
struct llog_load *llama_log_last(struct llama_log *lg);

/* Sum of a block's buffers of one segment kind (all devices). */
uint64_t llog_load_seg_total(const struct llog_load *l, enum llog_seg seg);
/* Whether a device name is host memory: CPU*, *_Host, Host, *_Mapped of CPU
 * (Ollama's rule, llm/llama_server.go: CPU* and *_Host count as host memory). */
bool llog_device_is_host(const char *device);

/* Parses "19.9 GiB" / "936.0 MiB" / "512 B" (Go's format.HumanBytes2). false on garbage. */
bool llog_parse_size(const char *s, size_t n, uint64_t *out);

#endif
