#include "identify/glob.h"

#include <fnmatch.h>
#include <string.h>

int glob_match(const char *glob, const char *s)
{
	/* A literal prefix, or the first literal run after a leading '*',
	 * decides most candidates without fnmatch. */
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
