/* fnmatch(3) for the Windows build (posix_fnmatch.c): '*', '?', bracket
 * expressions with ranges and '!'/'^', backslash escapes; no flags. */
#ifndef GTM_WIN_FNMATCH_H
#define GTM_WIN_FNMATCH_H

#define FNM_NOMATCH 1

int fnmatch(const char *pattern, const char *string, int flags);

#endif
