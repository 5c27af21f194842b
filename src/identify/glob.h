/* fnmatch(3) with a literal pre-check: the identify tables hold hundreds of
 * patterns and every process offers several names and many mapped paths. */
#ifndef GTM_GLOB_H
#define GTM_GLOB_H

/* 1 when s matches the fnmatch pattern glob (flags 0), else 0. */
int glob_match(const char *glob, const char *s);

#endif
