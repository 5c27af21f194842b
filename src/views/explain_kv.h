/* The KV cache in use a vLLM/SGLang engine reports (joined to each worker)
 * and a PyTorch job's KV per 1k tokens (estimated): JSON and text. Neither
 * is part of any measured total. */
#ifndef GTM_VIEWS_EXPLAIN_KV_H
#define GTM_VIEWS_EXPLAIN_KV_H

#include <jansson.h>
#include <stdio.h>

#include "explain/explain.h"

/* "kv_cache_in_use" and "kv_cache_estimate" (null when absent) into j. */
void explain_kv_json(json_t *j, const struct gtm_explain *e);
/* A line each, when present. */
void explain_kv_text(FILE *out, const struct gtm_explain *e, const char *in);

#endif
