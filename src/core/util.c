#include "core/util.h"

#include "portable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void out_of_memory(size_t n)
{
	fprintf(stderr, "gputaskman: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = xmalloc(len + 1);
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

static size_t grown_cap(size_t c, size_t need)
{
	if (c == 0)
		c = 1; /* most arrays here are short (a process's GPUs): no 8-slot default */
	while (c <= need)
		c *= 2;
	return c;
}

void *grow_array(void *arr, size_t elem, size_t *cap, size_t need)
{
	size_t c;

	if (need < *cap)
		return arr;
	c = grown_cap(*cap, need);
	arr = xrealloc(arr, c * elem);
	memset((char *)arr + *cap * elem, 0, (c - *cap) * elem);
	*cap = c;
	return arr;
}

void *grow_array_raw(void *arr, size_t elem, size_t *cap, size_t need)
{
	if (need < *cap)
		return arr;
	*cap = grown_cap(*cap, need);
	return xrealloc(arr, *cap * elem);
}

size_t str_copy(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);

	if (n) {
		size_t k = len < n - 1 ? len : n - 1;
		memcpy(dst, src, k);
		dst[k] = '\0';
	}
	return len;
}

size_t str_cat3(char *dst, size_t n, const char *a, const char *b, const char *c)
{
	const char *part[3] = {a, b, c};
	size_t total = 0;

	for (int i = 0; i < 3; i++) {
		size_t len = strlen(part[i]);
		if (n && total < n - 1) {
			size_t k = len < n - 1 - total ? len : n - 1 - total;
			memcpy(dst + total, part[i], k);
		}
		total += len;
	}
	if (n)
		dst[total < n - 1 ? total : n - 1] = '\0';
	return total;
}

size_t str_u64(char *dst, size_t n, const char *prefix, uint64_t v)
{
	char digits[24], *p = digits + sizeof digits;

	*--p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	return str_cat3(dst, n, prefix, p, "");
}

int str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

const char *path_base(const char *s)
{
	const char *slash = os_path_last_sep(s);
	return slash ? slash + 1 : s;
}

static bool is_sep(char c)
{
	return c == '/' || c == OS_PATH_SEP;
}

const char *path_find(const char *path, const char *marker)
{
	for (const char *p = path; *p; p++) {
		size_t i = 0;
		while (marker[i] && p[i] && (p[i] == marker[i] || (marker[i] == '/' && is_sep(p[i]))))
			i++;
		if (!marker[i])
			return p;
	}
	return NULL;
}

const char *path_next_sep(const char *p)
{
	for (; *p; p++)
		if (is_sep(*p))
			return p;
	return NULL;
}

void path_to_native(char *p)
{
	for (; *p; p++)
		if (*p == '/')
			*p = OS_PATH_SEP;
}

bool path_is_dos_absolute(const char *s)
{
	bool drive = ((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) && s[1] == ':' &&
		     (s[2] == '\\' || s[2] == '/');
	return drive || (s[0] == '\\' && s[1] == '\\' && s[2] && s[2] != '\\');
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t now_realtime_ns(void) { return clock_ns(CLOCK_REALTIME); }

int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}
