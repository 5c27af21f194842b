/* A POSIX extended regex subset for the Windows build (posix_regex.c), which
 * has no <regex.h>: literals, '.', bracket expressions, '*', '+', '?', '^',
 * '$' and backslash escapes (\. \d \w \s and their classes). Groups,
 * alternation and intervals are refused by regcomp with REG_BADPAT, so a
 * caller says the pattern is not supported rather than matching it wrongly. */
#ifndef GTM_WIN_REGEX_H
#define GTM_WIN_REGEX_H

#include <stddef.h>

#define REG_EXTENDED 1
#define REG_NOSUB 4
#define REG_NOMATCH 1
#define REG_BADPAT 2
#define REG_ESPACE 12

typedef struct {
	size_t re_nsub;
	char *pattern_;
} regex_t;
typedef struct {
	long rm_so, rm_eo;
} regmatch_t;

int regcomp(regex_t *re, const char *pattern, int cflags);
int regexec(const regex_t *re, const char *s, size_t nmatch, regmatch_t *pmatch, int eflags);
void regfree(regex_t *re);

#endif
