/* Readings to JSON: a value, or null when unavailable. Never 0 for N/A. */
#ifndef GTM_JSON_UTIL_H
#define GTM_JSON_UTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "core/reading.h"

json_t *json_of_u64(gtm_u64 r);
json_t *json_of_f64(gtm_f64 r);
/* A string, or null for NULL / "". */
json_t *json_of_str(const char *s);
/* Sets key to value, stealing the reference (and skipping NULL values). */
void json_put(json_t *obj, const char *key, json_t *value);
/* json_dumps, then DEL and the C1 controls (U+0080-U+009F) written as \u escapes:
 * jansson passes them raw, and a terminal that honours C1 acts on a raw U+009B (CSI).
 * Free the result with free(); NULL when jansson fails. */
char *json_dumps_safe(const json_t *v, size_t flags);
/* The same to a stream; 0 on success, -1 on failure. */
int json_dumpf_safe(const json_t *v, FILE *f, size_t flags);
/* ISO 8601 UTC ("2026-11-30T06:40:00Z") of a CLOCK_REALTIME nanosecond stamp. */
json_t *json_of_time_ns(uint64_t ns);
/* The same text into buf (32 bytes hold it). */
void json_time_text(char *buf, size_t cap, uint64_t ns);

#endif
