/* A file of ../shared/fixtures/macos read whole, or NULL when the folder is
 * absent (the case then skips). */
#ifndef GTM_DARWIN_FIXTURE_H
#define GTM_DARWIN_FIXTURE_H

#include <stdio.h>

#include "testutil.h"

static inline char *fixture(const char *name, size_t *len)
{
	const char *dir = tu_shared_fixture("macos");
	char path[1024];
	if (!dir)
		return NULL;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return tu_read_file(path, len);
}

#endif
