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
	struct log_entry logs[EXC_LOGS];
	struct probe_entry probes[EXC_PROBES];
	/* the app adapter's log, cached until it changes */
	struct tail_file app_log;
	struct ex_app_event app_events[EX_MAX_APP_EVENTS];
	int n_app_events;
};

/* Process start as Unix seconds, -1 unknown. */
int64_t ex_process_start_s(struct explain_ctx *c, const struct gtm_process *p);

/* explain_logs.c: finds, reads and classifies the process's runtime log; returns the current load or NULL. */
const struct llog_load *ex_logs_explain(struct explain_ctx *c, const struct gtm_snapshot *snap,
					const struct gtm_process *p, struct gtm_explain *e);
/* explain_probe.c: server facts for the process (cached, budgeted). */
/* vLLM/SGLang: the startup lines of the process's redirected stdout/stderr
 * as reported segments of its own worker (explain_pyserve.c). */
void ex_pyserve_explain(const struct gtm_process *p, struct gtm_explain *e);
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
