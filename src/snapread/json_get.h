/* Typed reads of snapshot keys: absent or null reads as unknown; a
 * value of the wrong type is an error naming where it is. Internal to the snapshot readers. */
#ifndef GTM_SNAPREAD_JSON_GET_H
#define GTM_SNAPREAD_JSON_GET_H

#include <jansson.h>
#include <stddef.h>

#include "snapread/snap_rows.h"

/* "an object", "an array", "a string", "an integer", ..., "null". */
const char *jr_type_name(const json_t *v);
/* Each returns 0, or -1 after writing "<where>.<key>: expected ..." to err. */
int jr_bytes(const json_t *obj, const char *key, struct snap_val *out, const char *where, char *err, size_t errn);
/* A string or null (*out NULL). */
int jr_str(const json_t *obj, const char *key, const char **out, const char *where, char *err, size_t errn);
/* An integer in [lo, hi] or null (*has false). */
int jr_int(const json_t *obj, const char *key, long long lo, long long hi, bool *has, long long *out,
	   const char *where, char *err, size_t errn);
/* An array (*out) or null/absent (*out NULL), with at most `max` elements. */
int jr_array(const json_t *obj, const char *key, size_t max, const json_t **out, const char *where, char *err,
	     size_t errn);

#endif
