/* The scenario files' shared tokenizer and reader (the NVML, DXGI and ADL
 * doubles): one directive per line, key=value or key="value with spaces". */
#include "scenario_words.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* Next word of a line: key=value or key="value with spaces" or a bare word.
 * Returns false at the end of the line. */
bool scenario_next_word(const char **p, char *key, size_t kn, char *val, size_t vn)
{
	const char *s = *p;
	size_t k = 0, v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0' || *s == '\n' || *s == '#')
		return false;
	while (*s && !isspace((unsigned char)*s) && *s != '=')
		if (k + 1 < kn)
			key[k++] = *s++;
		else
			s++;
	key[k] = '\0';
	val[0] = '\0';
	if (*s == '=') {
		s++;
		bool quoted = *s == '"';
		s += quoted;
		while (*s && *s != '\n' && (quoted ? *s != '"' : !isspace((unsigned char)*s)))
			if (v + 1 < vn)
				val[v++] = *s++;
			else
				s++;
		s += quoted && *s == '"';
		val[v] = '\0';
	}
	*p = s;
	return true;
}

char *scenario_read_file(const char *path)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len - 1 == 0) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}
