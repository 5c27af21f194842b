/* Shared between the files of explain/ (not for other layers). */
#ifndef GTM_EXPLAIN_INTERNAL_H
#define GTM_EXPLAIN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "explain/explain.h"
#include "explain/logfile.h"
#include "llm/llama_log.h"

#define EXC_LOGS 16
#define EXC_PROBES 32
#define EXC_CONFIGS 8
#define EXC_HEADS 16

struct hf_config;

/* A model's config.json, parsed once per file identity. */
struct config_entry {
	char path[512];
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	struct hf_config *cfg;  /* NULL when it did not parse */
	uint64_t used;
};

/* A vLLM/SGLang process's redirected log head, parsed once per file identity
 * (explain_pyserve.c): an unchanged file is not read again. */
struct head_entry {
	uint32_t pid;
	uint64_t start_time;
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	bool vllm;
	void *lg;               /* struct vllm_log or struct sglang_log */
	char shown[512];
	uint64_t used;
};

struct log_entry {
	struct tail_file tf;
	struct llama_log *lg;   /* parsed tail */
	bool ollama;
	uint64_t used;          /* refresh counter when last used (eviction) */
};

struct probe_entry {
	uint32_t pid;
	uint64_t start_time;
	uint16_t ports[EX_MAX_SERVERS];
	int n_ports;
	uint64_t model_key;     /* hash of the process's model set */
	uint64_t probed_ns;     /* monotonic */
	struct ex_server servers[EX_MAX_SERVERS];
	int n_servers;
	uint64_t used;
};

struct explain_ctx {
	bool allow_probe;
	const char *no_probe_why; /* a static string */
	uint32_t timeout_ms, budget_ms, interval_ms;
	uint64_t refresh_key;   /* the snapshot being explained */
	uint64_t deadline_ns;   /* this refresh's probe budget */
	uint64_t refresh;       /* counter */
	int64_t boot_time_s;    /* proc_start_epoch_s(): Linux btime, Windows 1601; INT64_MIN unknown */
	bool boot_time_read;    /* boot_time_s is read on first use (ex_process_start_s) */
	struct log_entry logs[EXC_LOGS];
	struct probe_entry probes[EXC_PROBES];
	/* the app adapter's log, cached until it changes */
	struct tail_file app_log;
	struct config_entry configs[EXC_CONFIGS];
	struct head_entry heads[EXC_HEADS];
	uint64_t head_reads;    /* log heads read from disk (a test counts them) */
	struct ex_app_event app_events[EX_MAX_APP_EVENTS];
	int n_app_events;
	/* Which caches ever took an entry: the context is about 1 MiB of zeroed
	 * pages that a run mostly never touches, and freeing walks only these
	 * (a one-shot run that explains nothing frees untouched pages unread). */
	bool logs_filled, heads_filled, configs_filled, app_log_filled;
};

/* Process start as Unix seconds, -1 unknown. */
int64_t ex_process_start_s(struct explain_ctx *c, const struct gtm_process *p);

/* explain_logs.c: finds, reads and classifies the process's runtime log; returns the current load or NULL. */
const struct llog_load *ex_logs_explain(struct explain_ctx *c, const struct gtm_snapshot *snap,
					const struct gtm_process *p, struct gtm_explain *e);
/* explain_probe.c: server facts for the process (cached, budgeted). */
/* vLLM/SGLang: the startup lines of the process's redirected stdout/stderr
 * as reported segments of its own worker (explain_pyserve.c). */
/* What the worker's own log says of its KV pool, for the KV in use. */
struct ex_pool {
	bool have_bytes, have_tokens;
	uint64_t bytes, tokens; /* this GPU's pool; SGLang: its #tokens */
};
void ex_pyserve_explain(struct explain_ctx *c, const struct gtm_process *p, struct gtm_explain *e,
			struct ex_pool *pool);
void ex_pyserve_cache_free(struct explain_ctx *c);
/* explain_kvused.c: the engine's /metrics joined to this process (vLLM/SGLang). */
void ex_kvused_explain(struct explain_ctx *c, const struct gtm_snapshot *snap, const struct gtm_process *p,
		       struct gtm_explain *e, const struct ex_pool *pool);
/* explain_torch.c: a PyTorch/transformers job's KV per 1k tokens (estimated). */
void ex_torch_explain(struct explain_ctx *c, const struct gtm_process *p, struct gtm_explain *e);
/* The parsed config.json at path (cached by file identity), or NULL. */
const struct hf_config *ex_config_get(struct explain_ctx *c, const char *path);
void ex_config_cache_free(struct explain_ctx *c);
/* The /metrics server of process q (probed when due): the one whose
 * /metrics answered, else the first that has that endpoint in another state
 * (not probed after a timeout, garbage); NULL when none. */
const struct ex_server *ex_probe_metrics_of(struct explain_ctx *c, const struct gtm_snapshot *snap,
					    const struct gtm_process *q);
void ex_probes_explain(struct explain_ctx *c, const struct gtm_snapshot *snap, const struct gtm_process *p,
		       struct gtm_explain *e);
/* Whether p is an Ollama runner (a child of `ollama serve` running a model). */
bool ex_is_ollama_runner(const struct gtm_process *p);
/* adapters.c: app adapters (Handy, stable-diffusion.cpp). */
void ex_adapters_explain(struct explain_ctx *c, const struct gtm_process *p, struct gtm_explain *e);
/* Whether an app adapter knows the process (by name), AI runtime seen or not. */
bool ex_adapter_matches(const struct gtm_process *p);

void ex_log_entries_free(struct explain_ctx *c);
/* A model path as a runtime printed it (maybe relative to its cwd, as -m was
 * given) made absolute; names without '/' are copied as they are. */
void ex_model_key(const struct gtm_process *p, const char *path_or_name, char *out, size_t n);

#endif
