/* JSON of a process's identity: category, runtimes, models with evidence,
 * GGUF summaries and llama.cpp flags. Absent values are null, never 0. */
#ifndef GTM_IDENT_JSON_H
#define GTM_IDENT_JSON_H

#include <jansson.h>

#include "identify/ident.h"
#include "views/json_writer.h"

/* Writes "category", "category_reason", "runtimes", "models",
 * "installed_omitted" and "llama_flags" into the writer's open object. */
void ident_jw_into(struct jw *w, const struct gtm_ident *id);
json_t *ident_json_model(const struct ident_model *m, const char *alias); /* alias: NULL when none */
json_t *ident_json_gguf_info(const struct gguf_model_info *info);
json_t *ident_json_llama_flags(const struct llama_flags *f);

#endif
