/* Text formatting of readings: binary units, N/A for unavailable. */
#ifndef GTM_FORMAT_H
#define GTM_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/reading.h"

/* "N/A", "812.00 KiB", "604.15 MiB", "14.50 GiB". Returns buf. */
char *fmt_bytes(char *buf, size_t n, gtm_u64 r);
char *fmt_bytes_raw(char *buf, size_t n, uint64_t bytes);
/* MiB with two decimals, as llama.cpp prints: "604.15 MiB". */
char *fmt_mib(char *buf, size_t n, uint64_t bytes);
/* "N/A" or the value with `decimals` and a suffix ("45 %", "71 C"). */
char *fmt_f64(char *buf, size_t n, gtm_f64 r, int decimals, const char *suffix);

#endif
