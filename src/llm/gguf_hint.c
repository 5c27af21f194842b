/* The "likely decision model" hint from a file's delimited name: a whole
 * token sequence of the stem, its folder or the store name must equal a known
 * name (never an arbitrary substring: "levels" or "kevlar" do not match). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "llm/gguf_info.h"

static const char *const decision_names[] = {"openjev", "laya", "julia-1", "lev", "kev"};

#define HINT_DELIMS " -_.:/@"
#define HINT_MAX_TOKENS 32

/* Splits s (lower-cased copy in buf) into tokens; returns their count. */
static size_t tokenize(const char *s, size_t len, char *buf, size_t bufn, char **tok)
{
	size_t n = 0;
	if (len >= bufn)
		len = bufn - 1;
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[len] = '\0';
	for (char *save = NULL, *t = strtok_r(buf, HINT_DELIMS, &save); t && n < HINT_MAX_TOKENS;
	     t = strtok_r(NULL, HINT_DELIMS, &save))
		tok[n++] = t;
	return n;
}

static bool tokens_contain(char **tok, size_t n, char **want, size_t nw)
{
	for (size_t i = 0; nw && i + nw <= n; i++) {
		size_t j = 0;
		while (j < nw && strcmp(tok[i + j], want[j]) == 0)
			j++;
		if (j == nw)
			return true;
	}
	return false;
}

static const char *match_name(const char *s, size_t len)
{
	char buf[256], wbuf[32];
	char *tok[HINT_MAX_TOKENS], *want[HINT_MAX_TOKENS];
	size_t n = tokenize(s, len, buf, sizeof buf, tok);
	for (size_t i = 0; i < ARRAY_LEN(decision_names); i++) {
		size_t nw = tokenize(decision_names[i], strlen(decision_names[i]), wbuf, sizeof wbuf, want);
		if (tokens_contain(tok, n, want, nw))
			return decision_names[i];
	}
	return NULL;
}

bool gguf_decision_hint(const char *path, const char *store_name, char *out, size_t n)
{
	const char *hit = NULL;
	if (n)
		out[0] = '\0';
	if (path && *path) {
		const char *base = path_base(path);
		const char *dot = strrchr(base, '.');
		size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
		hit = match_name(base, stem);
		if (!hit && base > path) {
			/* the folder holding the file */
			const char *end = base - 1, *start = end;
			while (start > path && start[-1] != '/')
				start--;
			hit = match_name(start, (size_t)(end - start));
		}
	}
	if (!hit && store_name)
		hit = match_name(store_name, strlen(store_name));
	if (!hit)
		return false;
	snprintf(out, n, "likely decision model (%s)", hit);
	return true;
}
