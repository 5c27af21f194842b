/* Text formatting of readings: binary units, N/A for unavailable. */
#ifndef GTM_FORMAT_H
#define GTM_FORMAT_H

#include <stdbool.h>
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

/* Text from outside (GGUF metadata, /proc command lines and names, logs,
 * local APIs, paths) made safe to print on a terminal: C0 controls, DEL,
 * C1 controls (U+0080-U+009F) and bytes that are not well-formed UTF-8
 * become "\x1b"-style escapes, so no ESC/CSI/OSC sequence can reach the
 * terminal; valid UTF-8 text is kept. Returns s itself when nothing needs
 * escaping (no copy, no truncation), else buf holding the escaped text,
 * cut at a whole character or escape to fit n. NULL s gives "". */
const char *fmt_safe(char *buf, size_t n, const char *s);
/* The escaping of fmt_safe over len bytes (NULs included) into dst, which
 * must hold 4 * len bytes; returns the bytes written, no NUL added. */
size_t fmt_safe_copy(char *dst, const char *src, size_t len);
/* Whether len bytes of src would print unchanged. */
bool fmt_is_safe(const char *src, size_t len);
/* Length of the well-formed UTF-8 sequence at s (RFC 3629 section 4: no
 * overlongs, no surrogates, nothing past U+10FFFF), or 0; reads no byte past
 * the first that fails. */
size_t fmt_utf8_seq_len(const unsigned char *s, size_t len);

#endif
