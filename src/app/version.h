/* gputaskman --version: the version, the git commit it was built from, the
 * optional parts built in and the run-time libraries found. */
#ifndef GTM_VERSION_H
#define GTM_VERSION_H

#include <stdio.h>

void version_print(FILE *out);

#endif
