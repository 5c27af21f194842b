/* Ollama server.log reader: the same load blocks as llama_log.h, from both of
 * Ollama's engines and its eras (llm-memory.md §5-6):
 *  - Go engine: `msg="model weights" device=CUDA0 size="19.9 GiB"`, `"kv cache"`,
 *    `"compute graph"`, `msg="offloaded 20/49 layers to GPU"`;
 *  - before 2025-11: `msg=offload ... memory.weights.total=... memory.required.kv=...`
 *    (Ollama's own pre-load estimate, flagged runtime_estimate);
 *  - raw llama-server / llama.cpp lines of its runners (handed to llama_log_line).
 * A block starts at `msg="starting runner"` / `"starting llama server"`, whose cmd=
 * gives the model blob and the runner's --port, so a runner process is matched
 * to its block by port. Lines carry `time=` (RFC 3339): blocks get t_wall_s. */
#ifndef GTM_OLLAMA_LOG_H
#define GTM_OLLAMA_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/llama_log.h"

/* Whole lines only (a partial last line is ignored). Returns bytes consumed. */
size_t ollama_log_parse(struct llama_log *lg, const char *buf, size_t len);
void ollama_log_line(struct llama_log *lg, const char *line, size_t n);

/* "2025-08-22T17:36:22.023-04:00" / "...Z" → Unix seconds. false on garbage. */
bool ollama_parse_time(const char *p, size_t n, int64_t *out);
/* The value of key=VALUE or key="VALUE" (quotes and \" unescaped) in a logfmt
 * line, copied into out. false when absent. */
bool ollama_kv(const char *p, const char *end, const char *key, char *out, size_t cap);

#endif
