#include "views/json_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"

json_t *json_of_u64(gtm_u64 r)
{
	if (!gtm_u64_ok(r))
		return json_null();
	/* jansson integers are signed 64-bit; no byte count of ours comes near. */
	return json_integer(r.v > INT64_MAX ? INT64_MAX : (json_int_t)r.v);
}

json_t *json_of_f64(gtm_f64 r)
{
	if (!gtm_f64_ok(r) || !isfinite(r.v))
		return json_null();
	/* Whole numbers stay integers so diffs and readers see 45, not 45.0. */
	if (r.v == floor(r.v) && fabs(r.v) < 9e15)
		return json_integer((json_int_t)r.v);
	return json_real(gtm_round(r.v * 1000.0) / 1000.0);
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t len = p[0] < 0x80 ? 1 : (p[0] >> 5) == 6 ? 2 : (p[0] >> 4) == 14 ? 3 : (p[0] >> 3) == 30 ? 4 : 0;
	if (len == 0 || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

json_t *json_of_str(const char *s)
{
	if (!s || !*s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	/* Command lines and paths need not be UTF-8; JSON must be: invalid bytes become '?'. */
	size_t n = strlen(s);
	char *copy = malloc(n + 1);
	if (!copy)
		return json_null();
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq((const unsigned char *)s + i, n - i);
		if (k == 0) {
			copy[i++] = '?';
			continue;
		}
		memcpy(copy + i, s + i, k);
		i += k;
	}
	copy[n] = '\0';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

void json_put(json_t *obj, const char *key, json_t *value)
{
	if (value)
		json_object_set_new(obj, key, value);
}

void json_time_text(char *buf, size_t cap, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&t, &tm);
	if (strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0 && cap > 0)
		buf[0] = '\0';
}

json_t *json_of_time_ns(uint64_t ns)
{
	char buf[32];
	json_time_text(buf, sizeof buf, ns);
	return json_string(buf);
}

/* In a JSON dump every byte >= 0x7F is inside a string, so escaping the raw
 * bytes keeps the text valid and the decoded value the same. */
char *json_dumps_safe(const json_t *v, size_t flags)
{
	static const char hex[] = "0123456789ABCDEF";
	char *text = json_dumps(v, flags);
	if (!text)
		return NULL;
	size_t n = 0, extra = 0;
	for (; text[n]; n++)
		if ((unsigned char)text[n] == 0x7F ||
		    ((unsigned char)text[n] == 0xC2 && (unsigned char)text[n + 1] >= 0x80 && (unsigned char)text[n + 1] <= 0x9F))
			extra += 5;
	if (extra == 0)
		return text;
	char *out = malloc(n + extra + 1);
	if (!out) {
		free(text);
		return NULL;
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i], cp;
		if (c == 0x7F)
			cp = c;
		else if (c == 0xC2 && (unsigned char)text[i + 1] >= 0x80 && (unsigned char)text[i + 1] <= 0x9F)
			cp = (unsigned char)text[++i];
		else {
			out[o++] = (char)c;
			continue;
		}
		memcpy(out + o, "\\u00", 4);
		out[o + 4] = hex[cp >> 4];
		out[o + 5] = hex[cp & 15];
		o += 6;
	}
	out[o] = '\0';
	free(text);
	return out;
}

int json_dumpf_safe(const json_t *v, FILE *f, size_t flags)
{
	char *text = json_dumps_safe(v, flags);
	if (!text)
		return -1;
	int rc = fputs(text, f) < 0 ? -1 : 0;
	free(text);
	return rc;
}
