/* Explain: what an AI runtime says about itself (its log, its local API) and
 * what the header arithmetic says (the estimate), turned into a per-process,
 * per-device breakdown where every segment names its source.
 *
 * Rules kept here (issue 4): log and API figures are what the runtime
 * reported (allocated at load time; not proof of residency now); estimates and
 * reported segments are never added into measured totals; the remainder of the
 * measured VRAM after reported segments is "runtime overhead/unknown", not an
 * exact CUDA context. */
#ifndef GTM_EXPLAIN_H
#define GTM_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/reading.h"
#include "core/snapshot.h"
#include "explain/server.h"

#define EX_MAX_SEGS 48
#define EX_MAX_SERVERS 4
#define EX_MAX_NOTES 12 /* a split model adds its join, CPU-layer and row-split notes */
#define EX_MAX_HISTORY 6
#define EX_MAX_KV 4
#define EX_MAX_APP_EVENTS 8

enum ex_seg {
	EX_SEG_WEIGHTS = 0,
	EX_SEG_KV,
	EX_SEG_RS,         /* recurrent state */
	EX_SEG_COMPUTE,
	EX_SEG_OUTPUT,
	EX_SEG_RUNTIME_TOTAL, /* a runtime's one figure for everything (Ollama's size / size_vram) */
	EX_SEG_OVERHEAD,   /* measured VRAM minus reported segments: runtime overhead/unknown */
	EX_SEG_COUNT
};
/* "weights", "kv_cache", "recurrent_state", "compute", "output", "runtime_total", "overhead" */
const char *ex_seg_name(enum ex_seg s);

enum ex_src {
	EX_SRC_LOG = 0,    /* the runtime's log (allocated at load time) */
	EX_SRC_API,        /* the runtime's local API */
	EX_SRC_ESTIMATE,   /* from the GGUF header and the launch flags */
	EX_SRC_REMAINDER,  /* measured VRAM on the device minus the reported segments there */
};
const char *ex_src_name(enum ex_src s); /* "log", "api", "estimate", "remainder" */

/* How a runtime's device name ("CUDA1") was tied to a driver device. CUDA
 * ordinals follow CUDA_VISIBLE_DEVICES and CUDA's own order, so the number
 * alone never says which GPU it is. */
enum ex_join {
	EX_JOIN_NONE = 0,  /* host memory, or no GPU */
	EX_JOIN_PCI,       /* the log's `using device ... (0000:01:00.0)` bus id: exact */
	EX_JOIN_UUID,      /* a GPU UUID: CUDA_VISIBLE_DEVICES=GPU-..., Ollama's load request: exact */
	EX_JOIN_ENV,       /* CUDA_VISIBLE_DEVICES indices with CUDA_DEVICE_ORDER=PCI_BUS_ID: exact */
	EX_JOIN_ONLY,      /* the process is on one GPU and the runtime names one */
	EX_JOIN_NAME,      /* the only GPU of that name (and free memory at load): matched '*' */
	EX_JOIN_GUESS,     /* by order, nothing better: guessed '?' */
};
/* "", "pci", "uuid", "visible-devices", "single-gpu", "name", "guess" */
const char *ex_join_name(enum ex_join j);
/* The mark a view prints after a GPU number: "", "*" (matched), "?" (guessed). */
const char *ex_join_mark(enum ex_join j);

struct ex_segment {
	enum ex_seg seg;
	enum ex_src src;
	enum ex_join join; /* how device became gpu */
	char device[32];   /* the runtime's name: "CUDA0", "CPU_Mapped", "Host"; "GPU" when it gave none */
	int gpu;           /* snapshot device index; -1 host memory or not known */
	bool host;         /* host (system) memory rather than a GPU's */
	gtm_u64 bytes;     /* REPORTED (log/api), ESTIMATED (estimate, remainder) */
	bool approx;       /* from a coarse figure ("19.9 GiB") */
	bool planned;      /* an estimate's GPU placement from the flags, the process using no GPU */
	bool superseded;   /* an estimate's GPU segment where the log puts that kind in host memory */
	char note[96];
};

/* One llama.cpp KV cache as the log describes it. */
struct ex_kv {
	uint64_t bytes, cells;
	uint32_t layers, seqs_used, seqs_max;
	char type_k[12], type_v[12];
	int swa;           /* -1, 0 non-SWA part, 1 SWA part */
};

struct ex_log_history {
	char model[256];
	int64_t at_s;      /* Unix seconds, -1 unknown */
	double rel_s;      /* seconds after its process started, -1 unknown */
	uint64_t total_bytes; /* its reported buffers summed (0 when none) */
	bool other_run;    /* written by an earlier process */
};

struct ex_log {
	bool present;      /* a log was found for this process */
	char kind[16];     /* "llama.cpp", "ollama" */
	char path[512];
	char state[24];    /* "current", "history-only", "unreadable", "no-load-lines", "ambiguous" */
	char message[160];
	int verbosity;     /* -1 unknown */
	bool has_buffers;  /* buffer lines present (needs -lv 4 on current llama-server) */
	bool read_via_fd;  /* its path could not be read here: read through /proc/PID/fd/read_fd */
	int read_fd;       /* 2: stderr */
	/* the current load (valid when state is "current") */
	char model[512];
	int64_t loaded_at_s;   /* Unix seconds, -1 unknown */
	int64_t n_ctx, n_seq_max, n_slots, n_ctx_slot;   /* -1 unknown */
	int kv_unified, flash_attn;                      /* -1 unknown */
	int64_t layers_offloaded, layers_total;          /* -1 unknown */
	bool runtime_estimate;  /* Ollama's pre-load estimate, not allocations */
	struct ex_kv kv[EX_MAX_KV];
	int n_kv;
	bool has_bd;            /* the memory-breakdown table (final, else the fitting projection) */
	bool bd_is_projection;
	struct {
		char device[32];
		int64_t total, free, self, model, context, compute, unaccounted; /* MiB, -1 N/A */
	} bd[8];
	int n_bd;
	struct ex_log_history history[EX_MAX_HISTORY];
	int n_history;
};

/* An app adapter's findings (Handy and the next apps: explain/adapters.c). */
struct ex_app_event {
	int64_t at_s;      /* Unix seconds (UTC), -1 unknown */
	char kind[16];     /* "load", "stream-start", "preview", "unload" */
	char detail[96];   /* the model, when the line names one */
};

struct ex_app {
	bool present;
	char app[24];              /* "handy" */
	char settings_path[512];
	char selected_model[128];  /* a setting: not load evidence */
	char log_path[512];
	struct ex_app_event events[EX_MAX_APP_EVENTS]; /* most recent last; history, not residency */
	int n_events;
	char message[160];
};

/* The KV cache a vLLM / SGLang engine says is in use now (its /metrics),
 * for this process: its own answer, or for a worker that does not listen
 * the nearest ancestor's of the same runtime (the API server). Bytes are
 * this process's GPU's share, from the usage or used tokens (reported) and
 * the bytes per block or token (config.json's rules or the worker's own
 * log); never added to measured totals. */
struct ex_kv_used {
	bool present;
	char kind[16];             /* "vllm", "sglang" */
	uint16_t port;
	uint32_t server_pid;       /* the process that answered (this one or an ancestor) */
	gtm_f64 usage;             /* REPORTED 0..1 */
	gtm_u64 used_tokens, capacity_tokens; /* REPORTED (SGLang; vLLM blocks x block size) */
	gtm_u64 used_blocks, blocks, block_size;
	gtm_u64 bytes_per_token;   /* one token, all layers, this GPU; ESTIMATED (config) or REPORTED (log) */
	gtm_u64 used_bytes, pool_bytes; /* REPORTED: the runtime's figure times the bytes per block/token */
	gtm_u64 requests_running, requests_waiting;
	char basis[128];           /* how the bytes were had */
	char config[512];          /* the config.json read, "" none */
};

/* A PyTorch / transformers job's KV cache per 1,000 tokens of context, from
 * its model's config.json (llm/torch_kv.h): an estimate, never measured. */
struct ex_kv_estimate {
	bool present;
	gtm_u64 bytes_per_1k_tokens; /* ESTIMATED */
	char dtype[24];
	uint64_t n_full, n_sliding, n_linear, window;
	char config[512];
	char note[160];
};

#define EX_MAX_DEVS 8

/* One GPU of the process: what the runtime reported there (log, else API),
 * and the rest of the driver's measurement there. Reported bytes are never
 * added into the measured figure; rest is measured minus reported. */
struct ex_device {
	int gpu;                   /* snapshot device index */
	char uuid[96];             /* the driver's UUID of that GPU, "" unknown */
	char runtime_dev[32];      /* "CUDA1"; "" when the runtime named none there */
	enum ex_join join;         /* the weakest join of the segments there */
	int32_t layers;            /* from -lv 4 `layer N assigned to device`, -1 unknown */
	int32_t first_layer, last_layer;
	uint64_t weights, kv, compute, other; /* reported (other: output, recurrent state, one API figure) */
	bool reported;             /* any of them */
	bool api;                  /* the reported figures are the API's */
	gtm_u64 measured;          /* the process's VRAM there (driver), N/A when not measured */
	gtm_u64 rest;              /* measured - reported (ESTIMATED), the measurement itself when nothing reported */
};

struct gtm_explain {
	char runtime[24];          /* "llama.cpp", "ollama", "lmstudio", "vllm", "sglang", "sd.cpp", "" */
	struct ex_log log;
	struct ex_server servers[EX_MAX_SERVERS];
	int n_servers;
	struct ex_segment segs[EX_MAX_SEGS]; /* reported, then remainder, then estimate */
	int n_segs;
	struct ex_device devs[EX_MAX_DEVS]; /* one per GPU the process uses, in its use order */
	int n_devs;
	bool estimate_disagrees;   /* estimate and log differ by more than the tolerance somewhere */
	int n_models;              /* models the process holds (ident), for the per-model KV note */
	struct ex_app app;
	struct ex_kv_used kv_used;
	struct ex_kv_estimate kv_est;
	char notes[EX_MAX_NOTES][192];
	int n_notes;
};

struct explain_ctx;

/* allow_probe false: never touch a port (--no-probe). Caches: logs by
 * (path, inode, size, mtime); probe results per (pid, start time, port set). */
struct explain_ctx *explain_ctx_new(bool allow_probe);
/* Why probes are off, for the note a process gets (default "--no-probe"). */
void explain_ctx_no_probe_why(struct explain_ctx *c, const char *why);
void explain_ctx_free(struct explain_ctx *c);
/* Fills p->explain for AI processes (after identify_process ran): log
 * segments, server facts, breakdown. Sets gtm_explain_free_hook. Runs on the
 * collection thread; probes are bounded per refresh (EXPLAIN_PROBE_BUDGET_MS). */
void explain_process(struct explain_ctx *c, struct gtm_snapshot *snap, struct gtm_process *p);
/* Whether explain_process looks at p's environment (OLLAMA_HOST, OLLAMA_LOGS,
 * an app's HOME): the collector reads a deferred one first. */
bool explain_uses_environ(const struct gtm_process *p);
/* Whether p (identified) serves through its parent: an Ollama runner, whose
 * API is `ollama serve`'s; a vLLM or SGLang process, whose /metrics may be
 * an ancestor's (its API server). The collector reads and lists them. */
bool explain_serves_via_parent(const struct gtm_process *p);

/* Whether p is a CPU-only llama.cpp/ggml build by what it runs, before any
 * log says so: its maps were read and none is a GPU backend (libggml-cuda,
 * -hip, -vulkan, ...), a GPU compute library or Vulkan, and the driver lists
 * it on no GPU. Its weights and KV cache are in host memory whatever -ngl says. */
bool explain_cpu_only_build(const struct gtm_process *p);
#define EXPLAIN_CPU_BUILD_WHY "a CPU-only build (no GPU backend library mapped, the driver lists it on no GPU)"

void explain_free(struct gtm_explain *e);
void ex_add_note(struct gtm_explain *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct ex_segment *ex_add_seg(struct gtm_explain *e, enum ex_seg seg, enum ex_src src, const char *device);

/* Tunables, overridable by the environment for tests and slow machines. */
#define EXPLAIN_PROBE_BUDGET_MS 600   /* GTM_PROBE_BUDGET_MS */
#define EXPLAIN_PROBE_INTERVAL_MS 10000 /* GTM_PROBE_INTERVAL_MS */

#endif
