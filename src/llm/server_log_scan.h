/* Scanning helpers for the Python servers' startup lines (vLLM, SGLang):
 * sizes in "GiB"/"GB" (both 2^30: vLLM divides by 2**30 and printed "GB" in
 * older versions, SGLang defines GB = 1024 * 1024 * 1024), counts with
 * thousands separators ("2,042,016"). Bounded by an explicit end. */
#ifndef GTM_SERVER_LOG_SCAN_H
#define GTM_SERVER_LOG_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The size right after key (spaces and '=' skipped): "8.23 GB" → bytes. */
bool sl_size_after(const char *p, const char *end, const char *key, uint64_t *bytes);
/* A size at *q ("4.77 GiB"), advancing *q past its unit. */
bool sl_size_at(const char **q, const char *end, uint64_t *bytes);
/* The count right after key: "2,042,016" → 2042016. */
bool sl_count_after(const char *p, const char *end, const char *key, uint64_t *v);
/* The decimal right after key ("45.7%" → 45.7). */
bool sl_decimal_after(const char *p, const char *end, const char *key, double *v);
/* The line's own "(Tag pid=N)" or "[date time Tag]" prefix tag into out ("" when none). */
void sl_copy_tag(const char *p, size_t n, char *out, size_t cap);

#endif
