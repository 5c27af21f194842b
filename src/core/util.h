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

/* strlcpy semantics: always NUL-terminates, returns strlen(src). */
size_t str_copy(char *dst, const char *src, size_t n);
int str_starts(const char *s, const char *prefix);
int str_ends(const char *s, const char *suffix);
/* The part after the last separator ('/'; on Windows also '\\'), or s. */
const char *path_base(const char *s);
/* A Windows absolute path: a drive letter, a colon and a separator
 * ("C:\\x", "C:/x"), or a UNC path ("\\\\server\\share"). Pure, so every
 * OS's tests reach it; Windows's os_path_absolute (portable.h) is this. */
bool path_is_dos_absolute(const char *s);

uint64_t now_monotonic_ns(void);
uint64_t now_realtime_ns(void);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (Howard Hinnant's days_from_civil). */
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);

#endif
