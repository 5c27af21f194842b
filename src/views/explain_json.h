/* JSON of a process's explanation (docs/json-schema.md, "explain"): every
 * figure with its source; reported and estimated bytes stand apart from the
 * measured core and are never summed into it. */
#ifndef GTM_EXPLAIN_JSON_H
#define GTM_EXPLAIN_JSON_H

#include <jansson.h>

#include "explain/explain.h"

/* The value of a process's "explain" member. */
json_t *explain_json(const struct gtm_explain *e);

#endif
