/* Scanning helpers for vLLM's and SGLang's startup lines (server_log_scan.h). */
#include "llm/server_log_scan.h"

#include <math.h>
#include <string.h>

#include "llm/log_scan.h"
#include "core/util.h"

static const char *skip_sep(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '=' || *p == ':'))
		p++;
	return p;
}

bool sl_size_at(const char **q, const char *end, uint64_t *bytes)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"GiB", 1073741824.0}, {"GB", 1073741824.0}, {"MiB", 1048576.0}, {"MB", 1048576.0}};
	const char *p = *q;
	double v;
	if (!ls_parse_decimal(&p, end, &v))
		return false;
	while (p < end && *p == ' ')
		p++;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t n = strlen(units[i].unit);
		if ((size_t)(end - p) >= n && !memcmp(p, units[i].unit, n)) {
			double b = v * units[i].scale;
			if (!isfinite(b) || b > 1.2e18)
				return false;
			*bytes = (uint64_t)gtm_llround(b);
			*q = p + n;
			return true;
		}
	}
	return false;
}

bool sl_size_after(const char *p, const char *end, const char *key, uint64_t *bytes)
{
	const char *k = ls_find(p, end, key);
	if (!k)
		return false;
	k = skip_sep(k + strlen(key), end);
	return sl_size_at(&k, end, bytes);
}

bool sl_count_after(const char *p, const char *end, const char *key, uint64_t *v)
{
	const char *k = ls_find(p, end, key);
	uint64_t x = 0;
	int nd = 0;
	if (!k)
		return false;
	for (k = skip_sep(k + strlen(key), end); k < end; k++) {
		if (*k >= '0' && *k <= '9') {
			if (x > (UINT64_MAX - 9) / 10)
				return false;
			x = x * 10 + (uint64_t)(*k - '0');
			nd++;
		} else if (!(*k == ',' && nd && k + 1 < end && k[1] >= '0' && k[1] <= '9')) {
			break;
		}
	}
	*v = x;
	return nd > 0;
}

bool sl_decimal_after(const char *p, const char *end, const char *key, double *v)
{
	const char *k = ls_find(p, end, key);
	if (!k)
		return false;
	k = skip_sep(k + strlen(key), end);
	return ls_parse_decimal(&k, end, v);
}

void sl_copy_tag(const char *p, size_t n, char *out, size_t cap)
{
	const char *end = p + n, *close;
	out[0] = '\0';
	if (n >= 2 && p[0] == '#' && p[1] == ' ') /* a quoted line */
		p += 2;
	if (p < end && *p == '(' && (close = memchr(p, ')', (size_t)(end - p)))) {
		/* vLLM: "(Worker_TP0 pid=2412213)" → "Worker_TP0 pid=2412213" */
		ls_copy(out, cap, p + 1, (size_t)(close - p - 1));
	} else if (p < end && *p == '[' && (close = memchr(p, ']', (size_t)(end - p)))) {
		/* SGLang: "[2026-03-11 13:53:21 DP0 TP0 EP0]" → "DP0 TP0 EP0" (after date and time) */
		const char *s = p + 1;
		for (int sp = 0; s < close && sp < 2; s++)
			sp += *s == ' ';
		if (s < close)
			ls_copy(out, cap, s, (size_t)(close - s));
	}
}
