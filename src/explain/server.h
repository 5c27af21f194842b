/* What a local inference server says about itself over its loopback API
 * (llm-memory.md §7), and the pure parsers that read its answers. Parsers take
 * bounded byte buffers, never trust sizes or types, and leave a fact N/A when
 * the answer lacks it. */
#ifndef GTM_EXPLAIN_SERVER_H
#define GTM_EXPLAIN_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/reading.h"

#define EX_MAX_ENDPOINTS 8
#define EX_MAX_SERVER_MODELS 8
#define EX_MAX_BODY (1u << 20) /* answers above 1 MiB are refused */

enum ex_ep_state {
	EP_NOT_PROBED = 0,
	EP_OK,
	EP_ABSENT,       /* 404: the server has no such endpoint */
	EP_DISABLED,     /* 501 "not_supported_error" (llama-server without --metrics / with --no-slots) */
	EP_UNAUTHORIZED, /* 401 / 403: an API key is set */
	EP_LOADING,      /* 503 while the model loads */
	EP_HTTP_ERROR,   /* another status */
	EP_TIMEOUT,
	EP_REFUSED,      /* nothing listens / connection reset */
	EP_GARBAGE,      /* 200 but not the expected format */
	EP_TOO_LARGE,
	EP_REDIRECT,     /* 3xx: never followed */
	EP_ERROR,        /* the HTTP library unavailable or another transport error */
	EP_STATE_COUNT
};
const char *ex_ep_state_name(enum ex_ep_state s); /* "ok", "absent", "disabled", ... */

struct ex_endpoint {
	char path[20];
	enum ex_ep_state state;
	int http_status;     /* 0 when no HTTP answer */
	uint32_t ms;         /* time spent */
};

struct ex_server_model {
	char name[256];      /* id / alias / Ollama name */
	char path[512];      /* model_path (/props), "" when the API gives none */
	gtm_u64 size;        /* Ollama size, llama.cpp meta.size: bytes the runtime reports */
	gtm_u64 size_vram;   /* Ollama size_vram */
	gtm_u64 n_ctx;       /* context length the API reports for it */
	char state[16];      /* LM Studio: "loaded" / "not-loaded"; "" otherwise */
	bool loaded;         /* the API says it is loaded now */
};

/* A token counter and the speed it gives. `tps` is the server's own speed:
 * llama-server's Δtokens / Δ(its own seconds spent on them) between two
 * samples (tokens_predicted_total / tokens_predicted_seconds_total), or a
 * throughput gauge the server reports (SGLang gen_throughput). `wall_tps` is
 * the same Δtokens over our wall clock between the two samples: it counts
 * idle time and is a different figure, never shown as the server's speed. */
struct ex_rate {
	gtm_f64 tps;         /* REPORTED; N/A before the second sample or when nothing ran in between */
	gtm_f64 avg_tps;     /* REPORTED: tokens / seconds since the server started */
	gtm_f64 wall_tps;    /* Δtokens / Δwall clock between the last two samples */
	double tokens, seconds; /* the previous sample's counters; seconds < 0: not reported */
};

struct ex_server {
	uint16_t port;
	char kind[16];       /* "llama-server", "ollama", "lmstudio", "vllm", "sglang", "" unknown */
	struct ex_endpoint eps[EX_MAX_ENDPOINTS];
	int n_eps;
	struct ex_server_model models[EX_MAX_SERVER_MODELS];
	int n_models;
	gtm_u64 n_ctx_slot;  /* llama-server: context per slot */
	gtm_u64 slots_total, slots_busy;
	struct ex_rate gen, prompt; /* generation and prompt-processing speed from /metrics */
	bool counted_at_end; /* llama-server: a request's tokens reach the counters when it ends */
	gtm_f64 kv_usage;    /* vLLM / SGLang: 0..1; N/A when absent or one gauge per engine */
	unsigned kv_usage_engines; /* samples of the usage gauge (> 1: data-parallel engines) */
	gtm_u64 kv_capacity_tokens, kv_used_tokens;
	gtm_u64 kv_blocks, kv_block_size; /* vllm:cache_config_info num_gpu_blocks, block_size */
	char kv_cache_dtype[24];   /* its cache_dtype ("auto", "fp8"), "" when not given */
	gtm_u64 requests_running, requests_waiting;
	char build[48];
	char health[16];     /* "ok", "loading", "" unknown */
	bool reachable;      /* at least one endpoint answered HTTP */
	/* when the previous /metrics sample was taken (monotonic), for deltas */
	bool m_valid;
	uint64_t m_at_ns;
};

void ex_server_init(struct ex_server *s, uint16_t port);
/* Forgets the gauges of the previous answer (KV usage, pool, requests): a
 * probe that gets no /metrics answer leaves them N/A, not stale. */
void ex_server_clear_gauges(struct ex_server *s);
struct ex_server_model *ex_server_model_get(struct ex_server *s, const char *name);

/* Each returns true when the body had the expected shape (and filled s). */
bool server_parse_props(const char *buf, size_t len, struct ex_server *s);
bool server_parse_slots(const char *buf, size_t len, struct ex_server *s);
bool server_parse_v1_models(const char *buf, size_t len, struct ex_server *s);
bool server_parse_ollama_ps(const char *buf, size_t len, struct ex_server *s);
bool server_parse_lmstudio_v1(const char *buf, size_t len, struct ex_server *s);
bool server_parse_lmstudio_v0(const char *buf, size_t len, struct ex_server *s);
bool server_parse_health(const char *buf, size_t len, int http_status, struct ex_server *s);
/* A JSON error body that says the endpoint is switched off ("not_supported_error"). */
bool server_body_is_disabled(const char *buf, size_t len);

/* Prometheus text exposition (metrics.c). */
struct prom_sample {
	const char *name;    /* not NUL-terminated */
	size_t name_len;
	const char *labels;  /* inside the braces, or NULL */
	size_t labels_len;
	double value;
};
/* Calls fn for each sample line; stops early when fn returns false. Returns
 * the number of samples, or -1 when no line looked like a sample. */
int prom_each(const char *buf, size_t len, bool (*fn)(const struct prom_sample *, void *), void *arg);
/* The first sample named exactly `name` (any labels). */
bool prom_value(const char *buf, size_t len, const char *name, double *out);
/* The value of label `key` in a sample's label set, unquoted, into out. */
bool prom_label(const struct prom_sample *s, const char *key, char *out, size_t cap);
/* Applies a /metrics answer (llama.cpp, vLLM or SGLang names) at time now_ns:
 * gauges directly, token rates from the delta against the previous sample. */
bool server_apply_metrics(const char *buf, size_t len, uint64_t now_ns, struct ex_server *s);

#endif
