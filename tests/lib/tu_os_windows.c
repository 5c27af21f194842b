/* testutil's OS half on Windows (run under Wine, where no rm is on the
 * path): tu_rmrf walks with the C runtime's dirent, for the test folders
 * under /tmp/gtm- only; native paths by _fullpath. */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void remove_tree(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		for (struct dirent *e; d && (e = readdir(d));) {
			char sub[1024];
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < sizeof sub)
				remove_tree(sub);
		}
		if (d)
			closedir(d);
		if (rmdir(path) != 0)
			fprintf(stderr, "tu_rmrf: cannot remove %s\n", path);
	} else if (remove(path) != 0) {
		fprintf(stderr, "tu_rmrf: cannot remove %s\n", path);
	}
}

void tu_rmrf(const char *path)
{
	if (!path || strncmp(path, "/tmp/gtm-", 9) != 0)
		return;
	remove_tree(path);
}

char *tu_native_path(const char *path)
{
	char *p = _fullpath(NULL, path, 0);
	if (!p)
		abort();
	return p;
}
