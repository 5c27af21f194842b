/* testutil's OS half on Linux: rm -rf for the test folders under /tmp/gtm-
 * only, and native paths by realpath(3). */
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tu_rmrf(const char *path)
{
	char cmd[PATH_MAX + 16];
	if (!path || strncmp(path, "/tmp/gtm-", 9) != 0)
		return;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "rm -rf %s failed\n", path);
}


char *tu_native_path(const char *path)
{
	char *p = realpath(path, NULL);
	if (!p)
		abort();
	return p;
}
