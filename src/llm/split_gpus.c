/* inspect --gpus SIZE,SIZE,...: device sizes typed by hand. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "llm/split_plan.h"

static const struct {
	const char *unit;
	uint64_t mul;
} units[] = {
	{"B", 1},
	{"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {"TiB", 1ull << 40},
	{"K", 1ull << 10}, {"M", 1ull << 20}, {"G", 1ull << 30}, {"T", 1ull << 40},
	{"KB", 1000ull}, {"MB", 1000000ull}, {"GB", 1000000000ull}, {"TB", 1000000000000ull},
};

/* 1 PiB: beyond any device; also keeps the double below exact enough. */
#define GPUS_MAX_BYTES (1ull << 50)

/* A decimal number "24", "23.5" at s[0..len): digits with at most one '.';
 * returns the characters used (0: none) and the value in *v. */
static size_t number(const char *s, size_t len, double *v)
{
	size_t i = 0, digits = 0;
	double x = 0, scale = 0;
	for (; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (digits++ > 18)
				return 0;
			x = x * 10 + (s[i] - '0');
			if (scale > 0)
				scale *= 10;
		} else if (s[i] == '.' && scale == 0) {
			scale = 1;
		} else {
			break;
		}
	}
	if (!digits)
		return 0;
	*v = scale > 0 ? x / scale : x;
	return i;
}

static bool one_size(const char *s, size_t len, uint64_t *out, char *err, size_t errlen)
{
	double v = 0;
	size_t used;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	used = number(s, len, &v);
	if (!used) {
		snprintf(err, errlen, "'%.*s' is not a size (a number and a unit: 24GiB, 8192MiB)", (int)(len > 40 ? 40 : len), s);
		return false;
	}
	const char *u = s + used;
	size_t ulen = len - used;
	while (ulen && *u == ' ')
		u++, ulen--;
	if (!ulen) {
		snprintf(err, errlen, "'%.*s' has no unit (write 24GiB, 8192MiB, 23.5G)", (int)(len > 40 ? 40 : len), s);
		return false;
	}
	for (size_t i = 0; i < ARRAY_LEN(units); i++) {
		if (strlen(units[i].unit) != ulen || strncasecmp(u, units[i].unit, ulen) != 0)
			continue;
		/* any case: "gib" is GiB; no unit here means bits */
		double bytes = v * (double)units[i].mul;
		if (bytes < 1 || bytes > (double)GPUS_MAX_BYTES) {
			snprintf(err, errlen, "'%.*s' is out of range (1 B to 1 PiB)", (int)(len > 40 ? 40 : len), s);
			return false;
		}
		*out = (uint64_t)bytes;
		return true;
	}
	snprintf(err, errlen, "'%.*s': unknown unit '%.*s' (B, KiB, MiB, GiB, TiB, K, M, G, T, KB, MB, GB, TB)",
		 (int)(len > 40 ? 40 : len), s, (int)(ulen > 16 ? 16 : ulen), u);
	return false;
}

size_t split_gpus_parse(const char *s, size_t len, uint64_t *out, size_t max, char *err, size_t errlen)
{
	size_t n = 0, at = 0;
	if (errlen)
		err[0] = '\0';
	if (len == 0) {
		snprintf(err, errlen, "no sizes given (write --gpus 24GiB,8GiB)");
		return 0;
	}
	while (at <= len) {
		const char *comma = memchr(s + at, ',', len - at);
		size_t end = comma ? (size_t)(comma - s) : len;
		if (n >= max) {
			snprintf(err, errlen, "more than %zu devices given", max);
			return 0;
		}
		if (!one_size(s + at, end - at, &out[n], err, errlen))
			return 0;
		n++;
		if (!comma)
			break;
		at = end + 1;
	}
	return n;
}

/* One CUDA_VISIBLE_DEVICES entry: an ordinal, or a UUID prefix ("GPU-8f2a")
 * matching exactly one device. -1 when it names none. */
static long visible_entry(const char *s, size_t len, const char *const *uuids, size_t n)
{
	long found = -1;
	if (len && s[0] >= '0' && s[0] <= '9') {
		unsigned long v = 0;
		for (size_t i = 0; i < len; i++) {
			if (s[i] < '0' || s[i] > '9' || v > 1000)
				return -1;
			v = v * 10 + (unsigned long)(s[i] - '0');
		}
		return v < n ? (long)v : -1;
	}
	for (size_t i = 0; i < n && len; i++)
		if (uuids[i] && strlen(uuids[i]) >= len && strncasecmp(uuids[i], s, len) == 0) {
			if (found >= 0)
				return -1; /* ambiguous prefix */
			found = (long)i;
		}
	return found;
}

size_t split_cuda_visible(const char *s, size_t len, const char *const *uuids, size_t n, size_t *order, size_t max)
{
	size_t k = 0, at = 0;
	/* CUDA takes entries up to the first that names no device, each once */
	while (at < len && k < max) {
		const char *comma = memchr(s + at, ',', len - at);
		size_t end = comma ? (size_t)(comma - s) : len, a = at, b = end;
		while (a < b && s[a] == ' ')
			a++;
		while (b > a && s[b - 1] == ' ')
			b--;
		long d = visible_entry(s + a, b - a, uuids, n);
		if (d < 0)
			break;
		for (size_t j = 0; j < k; j++)
			if (order[j] == (size_t)d)
				return k;
		order[k++] = (size_t)d;
		if (!comma)
			break;
		at = end + 1;
	}
	return k;
}
