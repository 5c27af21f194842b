/* Allocation that cannot fail silently, and small string helpers. */
#ifndef GTM_UTIL_H
#define GTM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grows *arr so that index `need` fits; doubles capacity. */
void *grow_array(void *arr, size_t elem, size_t *cap, size_t need);
/* The same without zeroing the new slots, for arrays whose every element is
 * written when added: a page of memory is only touched when used (a first
 * touch costs a page fault, about 15 us on a shadow-paged VM). */
void *grow_array_raw(void *arr, size_t elem, size_t *cap, size_t need);

/* strlcpy semantics: always NUL-terminates, returns strlen(src). */
size_t str_copy(char *dst, const char *src, size_t n);
/* a, b and c one after another into dst, cut to fit and NUL-terminated as
 * snprintf("%s%s%s") would (without its format walk: these name every GPU
 * process's evidence); returns the length untruncated */
size_t str_cat3(char *dst, size_t n, const char *a, const char *b, const char *c);
/* prefix then v in decimal, as snprintf("%s%u") */
size_t str_u64(char *dst, size_t n, const char *prefix, uint64_t v);
int str_starts(const char *s, const char *prefix);
int str_ends(const char *s, const char *suffix);
/* The part after the last separator ('/'; on Windows also '\\'), or s. */
const char *path_base(const char *s);
/* The first place marker occurs in path, a '/' of marker matching any
 * separator of this OS ('/', on Windows also '\\'), or NULL: store layouts
 * ("/blobs/sha256-") are found in paths as each OS writes them. */
const char *path_find(const char *path, const char *marker);
/* The first separator at or after p, or NULL. */
const char *path_next_sep(const char *p);
/* Writes every '/' of a path gputaskman joined as this OS's separator (a
 * no-op where that is '/'): a store's file is then shown as the OS, and a
 * process's command line or mapping, names it. */
void path_to_native(char *p);
/* A Windows absolute path: a drive letter, a colon and a separator
 * ("C:\\x", "C:/x"), or a UNC path ("\\\\server\\share"). Pure, so every
 * OS's tests reach it; Windows's os_path_absolute (portable.h) is this. */
bool path_is_dos_absolute(const char *s);

/* The monotonic clock every deadline is on: defined by each OS folder beside
 * its waits (platform/platform_time.h), so that the two agree. */
uint64_t now_monotonic_ns(void);
uint64_t now_realtime_ns(void);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (Howard Hinnant's days_from_civil). */
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);

/* llround(3) and round(3) without libm, which the binary needs for nothing
 * else: a linked library costs every run its mapping and relocations at
 * start, about ten page faults (docs/benchmarks.md). Halves away from zero,
 * as they do: a conversion truncates, then the fraction, exact, decides.
 * Beyond long long's range (and NaN) the integer ones saturate (0 for NaN),
 * where llround's value is unspecified; gtm_round keeps the sign of a zero
 * and returns NaN, infinities and whole values beyond 2^52 as they are. */
static inline long long gtm_llround(double x)
{
	if (!(x > -9.2e18 && x < 9.2e18))
		return x > 0 ? INT64_MAX : x < 0 ? INT64_MIN : 0;
	long long t = (long long)x;
	double frac = x - (double)t;
	return frac >= 0.5 ? t + 1 : frac <= -0.5 ? t - 1 : t;
}

static inline long long gtm_llroundl(long double x)
{
	if (!(x > -9.2e18L && x < 9.2e18L))
		return x > 0 ? INT64_MAX : x < 0 ? INT64_MIN : 0;
	long long t = (long long)x;
	long double frac = x - (long double)t;
	return frac >= 0.5L ? t + 1 : frac <= -0.5L ? t - 1 : t;
}

static inline double gtm_round(double x)
{
	if (!(x > -4503599627370496.0 && x < 4503599627370496.0))
		return x;
	return __builtin_copysign((double)gtm_llround(x), x);
}

#endif
