#include "identify/glob.h"

#include <fnmatch.h>
#include <string.h>

int glob_match(const char *glob, const char *s)
{
	/* Name tables are tried against every process's names: almost every
	 * pair differs in its first byte, which settles it for the price of a
	 * compare. Then a literal prefix, or the first literal run after a
	 * leading '*', decides most of the rest without fnmatch. */
	if (glob[0] != '*' && glob[0] != '?' && glob[0] != '[' && glob[0] != s[0])
		return 0;
	size_t lit = strcspn(glob, "*?[");
	if (lit && strncmp(glob, s, lit) != 0)
		return 0;
	if (!lit) {
		const char *g = glob + strspn(glob, "*");
		size_t n = strcspn(g, "*?[");
		if (n && !memmem(s, strlen(s), g, n))
			return 0;
	}
	return fnmatch(glob, s, 0) == 0;
}
