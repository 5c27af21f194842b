/* Accept-Encoding, the one request header serve reads (RFC 9110, 12.5.3):
 * a comma-separated list of codings, each with an optional ";q=" weight. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "serve/http.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Whether a weight's text is zero ("0", "0.", "0.000"). */
static bool q_is_zero(const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	if (p >= end || *p != '0')
		return false;
	for (p++; p < end && (*p == '.' || *p == '0'); p++)
		;
	while (p < end && is_space(*p))
		p++;
	return p == end;
}

/* One element, [p, end): the coding, then parameters. */
static bool element_takes_gzip(const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	const char *name = p;
	while (p < end && *p != ';' && !is_space(*p))
		p++;
	size_t n = (size_t)(p - name);
	if (!((n == 4 && !strncasecmp(name, "gzip", 4)) || (n == 1 && *name == '*')))
		return false;
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		if (!semi)
			break;
		p = semi + 1;
		while (p < end && is_space(*p))
			p++;
		const char *next = memchr(p, ';', (size_t)(end - p));
		const char *stop = next ? next : end;
		if (stop - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=' && q_is_zero(p + 2, stop))
			return false;
	}
	return true;
}

bool http_accepts_gzip(const char *value)
{
	if (!value)
		return false;
	const char *p = value, *end = value + strnlen(value, 4096);
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		if (element_takes_gzip(p, stop))
			return true;
		p = stop + 1;
	}
	return false;
}
