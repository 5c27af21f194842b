/* JSON of a process's explanation (docs/json-schema.md, "explain"): every
 * figure with its source; reported and estimated bytes stand apart from the
 * measured core and are never summed into it. */
#ifndef GTM_EXPLAIN_JSON_H
#define GTM_EXPLAIN_JSON_H

#include <jansson.h>

#include "explain/explain.h"

/* Adds "explain" to a process object. */
void explain_json_into(json_t *proc, const struct gtm_explain *e);
json_t *explain_json(const struct gtm_explain *e);

#endif
