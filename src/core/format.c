#include "core/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

/* printf's "%.*f" of v followed by suffix, without printf's exact decimal
 * expansion (about 1,600 instructions a number in glibc; the live view formats
 * a few hundred a redraw): v * 10^decimals rounded to the nearest integer.
 * That product is off the exact one by at most half an ulp, so where it lies
 * farther than that bound from a halfway point both round to the same integer
 * and the text is printf's. Returns the length written, or -1 where it cannot
 * say (a near tie, a negative or huge value, no room): printf is asked then. */
static int fmt_fixed(char *buf, size_t n, double v, int decimals, const char *suffix)
{
	static const double scale[] = {1.0, 10.0, 100.0, 1000.0};
	static const uint64_t iscale[] = {1, 10, 100, 1000};
	char digits[24];
	int nd = 0;

	if (decimals < 0 || decimals > 3 || !(v >= 0.0) || v >= 1e12 || signbit(v))
		return -1;
	double x = v * scale[decimals], fl = floor(x), frac = x - fl;
	if (fabs(frac - 0.5) <= x * 0x1p-50 + 0x1p-40)
		return -1;
	uint64_t q = (uint64_t)fl + (frac > 0.5), ip = q / iscale[decimals], fp = q % iscale[decimals];
	do
		digits[nd++] = (char)('0' + ip % 10);
	while ((ip /= 10) > 0);
	size_t slen = suffix ? strlen(suffix) : 0, len = (size_t)nd + (decimals ? (size_t)decimals + 1 : 0) + slen;
	if (len + 1 > n)
		return -1;
	char *o = buf;
	while (nd > 0)
		*o++ = digits[--nd];
	if (decimals) {
		*o++ = '.';
		for (int i = decimals - 1; i >= 0; i--, fp /= 10)
			o[i] = (char)('0' + fp % 10);
		o += decimals;
	}
	memcpy(o, suffix ? suffix : "", slen + 1);
	return (int)len;
}

char *fmt_bytes_raw(char *buf, size_t n, uint64_t b)
{
	static const char *const units[] = {" B", " KiB", " MiB", " GiB", " TiB", " PiB"};
	double v = (double)b;
	int u = 0;

	if (b < 1024) {
		if (fmt_fixed(buf, n, (double)b, 0, units[0]) < 0)
			snprintf(buf, n, "%llu B", (unsigned long long)b);
		return buf;
	}
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (fmt_fixed(buf, n, v, 2, units[u]) < 0)
		snprintf(buf, n, "%.2f%s", v, units[u]);
	return buf;
}

char *fmt_bytes(char *buf, size_t n, gtm_u64 r)
{
	if (!gtm_u64_ok(r)) {
		str_copy(buf, "N/A", n);
		return buf;
	}
	return fmt_bytes_raw(buf, n, r.v);
}

char *fmt_mib(char *buf, size_t n, uint64_t bytes)
{
	snprintf(buf, n, "%.2f MiB", (double)bytes / (1024.0 * 1024.0));
	return buf;
}

char *fmt_f64(char *buf, size_t n, gtm_f64 r, int decimals, const char *suffix)
{
	if (!gtm_f64_ok(r))
		str_copy(buf, "N/A", n);
	else if (fmt_fixed(buf, n, r.v, decimals, suffix) < 0)
		snprintf(buf, n, "%.*f%s", decimals, r.v, suffix ? suffix : "");
	return buf;
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629 section 4: no
 * overlongs, no surrogates, nothing past U+10FFFF), or 0. Reads no byte past
 * the first one that fails, so a NUL ends it. */
size_t fmt_utf8_seq_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : lo;
	hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : hi;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

/* The sequence at s may reach a terminal as it is: not C0, not DEL, not a C1
 * control (U+0080-U+009F, ECMA-48 section 5.2: 0x9B is a one-byte CSI). */
static size_t safe_seq_len(const unsigned char *s, size_t len)
{
	size_t n = fmt_utf8_seq_len(s, len);
	if (n == 1 && (s[0] < 0x20 || s[0] == 0x7F))
		return 0;
	if (n == 2 && s[0] == 0xC2 && s[1] <= 0x9F)
		return 0;
	return n;
}

size_t fmt_safe_copy(char *dst, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		size_t k = safe_seq_len(s + i, len - i);
		if (k) {
			memcpy(dst + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		/* a C1 control escapes as its two bytes; anything else byte by byte */
		k = fmt_utf8_seq_len(s + i, len - i);
		for (size_t j = 0; j < (k ? k : 1); j++) {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[s[i + j] >> 4];
			dst[o++] = hex[s[i + j] & 15];
		}
		i += k ? k : 1;
	}
	return o;
}

bool fmt_is_safe(const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	for (size_t i = 0, k; i < len; i += k) {
		if (s[i] >= 0x20 && s[i] < 0x7F) { /* printable ASCII, most of what is shown */
			k = 1;
			continue;
		}
		if (!(k = safe_seq_len(s + i, len - i)))
			return false;
	}
	return true;
}

const char *fmt_safe(char *buf, size_t n, const char *s)
{
	size_t len, o = 0;
	char tmp[16];

	if (!s)
		return "";
	len = strlen(s);
	if (fmt_is_safe(s, len))
		return s;
	if (n == 0)
		return "";
	/* escape sequence by sequence; stop before one that does not fit whole */
	for (size_t i = 0; i < len;) {
		const unsigned char *u = (const unsigned char *)s + i;
		size_t k = safe_seq_len(u, len - i);
		if (!k)
			k = fmt_utf8_seq_len(u, len - i);
		if (!k)
			k = 1;
		size_t w = fmt_safe_copy(tmp, s + i, k);
		if (o + w + 1 > n)
			break;
		memcpy(buf + o, tmp, w);
		o += w;
		i += k;
	}
	buf[o] = '\0';
	return buf;
}
