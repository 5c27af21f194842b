#include <regex.h>

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The length of the atom at p (a character, an escape, '.', or a bracket
 * expression), or 0 when it is malformed. */
static size_t atom_len(const char *p)
{
	if (*p == '\\')
		return p[1] ? 2 : 0;
	if (*p != '[')
		return 1;
	const char *q = p + 1;
	if (*q == '^')
		q++;
	if (*q == ']')
		q++;
	while (*q && *q != ']')
		q++;
	return *q ? (size_t)(q - p) + 1 : 0;
}

static bool class_escape(char e, unsigned char c, bool *matched)
{
	switch (e) {
	case 'd': *matched = isdigit(c); return true;
	case 'w': *matched = isalnum(c) || c == '_'; return true;
	case 's': *matched = isspace(c); return true;
	case 'D': *matched = !isdigit(c); return true;
	case 'W': *matched = !(isalnum(c) || c == '_'); return true;
	case 'S': *matched = !isspace(c); return true;
	default: return false;
	}
}

static bool atom_match(const char *p, size_t n, char ch)
{
	unsigned char c = (unsigned char)ch;
	bool m;

	if (n == 1)
		return *p == '.' || *p == ch;
	if (*p == '\\')
		return class_escape(p[1], c, &m) ? m : p[1] == ch;
	/* [...]: p[n-1] is ']' */
	const char *q = p + 1, *end = p + n - 1;
	bool neg = *q == '^';
	if (neg)
		q++;
	bool in = false;
	while (q < end) {
		unsigned char lo = (unsigned char)*q++, hi = lo;
		if (q + 1 < end && *q == '-') {
			hi = (unsigned char)q[1];
			q += 2;
		}
		if (c >= lo && c <= hi)
			in = true;
	}
	return in != neg;
}

/* Whether the pattern p matches at s (backtracking over quantifiers). */
static bool match_here(const char *p, const char *s)
{
	if (!*p)
		return true;
	if (p[0] == '$' && !p[1])
		return !*s;
	size_t n = atom_len(p);
	char q = p[n];
	if (q == '*' || q == '+' || q == '?') {
		const char *t = s;
		size_t max = q == '?' ? 1 : (size_t)-1, count = 0;
		while (*t && count < max && atom_match(p, n, *t)) {
			t++;
			count++;
		}
		for (;; t--, count--) {
			if (count >= (q == '+' ? 1u : 0u) && match_here(p + n + 1, t))
				return true;
			if (t == s)
				return false;
		}
	}
	return *s && atom_match(p, n, *s) && match_here(p + n, s + 1);
}

int regcomp(regex_t *re, const char *pattern, int cflags)
{
	(void)cflags;
	for (const char *p = pattern; *p;) {
		if (strchr("()|{}", *p) || (*p == '^' && p != pattern) || (*p == '$' && p[1]))
			return REG_BADPAT;
		size_t n = atom_len(p);
		if (!n || (p[0] && strchr("*+?", p[0])))
			return REG_BADPAT;
		p += n;
		if (*p && strchr("*+?", *p)) {
			p++;
			if (*p && strchr("*+?", *p))
				return REG_BADPAT;
		}
	}
	re->re_nsub = 0;
	re->pattern_ = strdup(pattern);
	return re->pattern_ ? 0 : REG_ESPACE;
}

int regexec(const regex_t *re, const char *s, size_t nmatch, regmatch_t *pmatch, int eflags)
{
	(void)nmatch;
	(void)pmatch;
	(void)eflags;
	const char *p = re->pattern_;
	if (*p == '^')
		return match_here(p + 1, s) ? 0 : REG_NOMATCH;
	do {
		if (match_here(p, s))
			return 0;
	} while (*s++);
	return REG_NOMATCH;
}

void regfree(regex_t *re)
{
	free(re->pattern_);
	re->pattern_ = NULL;
}
