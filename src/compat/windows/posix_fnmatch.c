#include <fnmatch.h>

#include <stdbool.h>
#include <stddef.h>

/* One bracket expression at *pp (after '['): whether c is in it; *pp moves
 * past the closing ']'. A '[' without its ']' is an ordinary character. */
static bool bracket_match(const char **pp, char c, bool *valid)
{
	const char *p = *pp;
	bool neg = *p == '!' || *p == '^', in = false;

	if (neg)
		p++;
	for (bool first = true; *p && (first || *p != ']'); first = false) {
		char lo = *p == '\\' && p[1] ? *++p : *p;
		p++;
		char hi = lo;
		if (*p == '-' && p[1] && p[1] != ']') {
			hi = p[1] == '\\' && p[2] ? p[2] : p[1];
			p += p[1] == '\\' && p[2] ? 3 : 2;
		}
		if ((unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi)
			in = true;
	}
	*valid = *p == ']';
	if (*valid)
		*pp = p + 1;
	return in != neg;
}

int fnmatch(const char *pattern, const char *string, int flags)
{
	const char *p = pattern, *s = string, *star_p = NULL, *star_s = NULL;

	(void)flags;
	while (*s) {
		bool ok = false;
		const char *next = p + 1;
		if (*p == '*') {
			star_p = ++p;
			star_s = s;
			continue;
		} else if (*p == '?') {
			ok = true;
		} else if (*p == '[') {
			bool valid;
			const char *q = p + 1;
			ok = bracket_match(&q, *s, &valid);
			if (valid)
				next = q;
			else
				ok = *s == '[';
		} else if (*p == '\\' && p[1]) {
			ok = p[1] == *s;
			next = p + 2;
		} else if (*p) {
			ok = *p == *s;
		}
		if (ok) {
			p = next;
			s++;
		} else if (star_p) {
			p = star_p;
			s = ++star_s;
		} else {
			return FNM_NOMATCH;
		}
	}
	while (*p == '*')
		p++;
	return *p ? FNM_NOMATCH : 0;
}
