/* The times a recording is asked about: ISO 8601 in UTC or with an offset
 * (2026-12-01T03:12:00Z, 2026-12-01T05:12:00+02:00, seconds optional, a space
 * for the T allowed), or a local time of day HH:MM[:SS] placed on a day of
 * the recording. Pure functions; the local zone is the process's (TZ). */
#ifndef GTM_REC_TIME_H
#define GTM_REC_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An ISO 8601 date and time in s[0..n) with Z or an offset, fractions of a
 * second ignored. Returns 0 and seconds since the epoch in *out, or -1. */
int rec_time_parse_iso(const char *s, size_t n, int64_t *out);

/* "HH:MM" or "HH:MM:SS": 0 and the seconds after local midnight, or -1. */
int rec_time_parse_clock(const char *s, int *secs);

/* TIME as the command line gives it, resolved against a recording that ends
 * at last_s: ISO as written; a local time of day as its latest moment not
 * after last_s (today's 03:12 if the recording reaches it, else yesterday's).
 * 0 and *out, or -1 with err saying what TIME may be. */
int rec_time_resolve(const char *text, int64_t last_s, int64_t *out, char *err, size_t errn);

/* "2026-12-01T03:12:00Z" */
void rec_time_format(char *buf, size_t cap, int64_t t_s);

#endif
