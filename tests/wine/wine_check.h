/* Check macros for the test programs that run under Wine (plain C, no cmocka:
 * they are cross-built with mingw-w64 without any library of ours). */
#ifndef GTM_WINE_CHECK_H
#define GTM_WINE_CHECK_H

#include <stdio.h>

static int wc_failed, wc_passed;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (cond) {                                               \
			wc_passed++;                                      \
		} else {                                                  \
			wc_failed++;                                      \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                              \
			printf("\n");                                     \
		}                                                         \
	} while (0)

/* The program's exit status: 0 when every check passed. */
static inline int wc_summary(const char *name)
{
	printf("%s: %d checks passed, %d failed\n", name, wc_passed, wc_failed);
	fflush(stdout);
	return wc_failed ? 1 : 0;
}

#endif
