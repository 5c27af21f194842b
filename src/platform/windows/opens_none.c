/* --trace-opens is Linux's (fanotify): here the platform interface's tracer
 * says it is unsupported (platform_api.h). */
#include <stdio.h>

#include "platform.h"

struct platform_opens *platform_opens_start(char *why, size_t cap)
{
	snprintf(why, cap, "--trace-opens is supported on Linux only (fanotify)");
	return NULL;
}

int platform_opens_watch(struct platform_opens *t, const char *dir, char *why, size_t cap)
{
	(void)t, (void)dir;
	snprintf(why, cap, "--trace-opens is supported on Linux only (fanotify)");
	return -1;
}

size_t platform_opens_copy(struct platform_opens *t, struct platform_open *out, size_t max,
			   struct platform_opens_status *st)
{
	(void)t, (void)out, (void)max;
	if (st)
		*st = (struct platform_opens_status){0};
	return 0;
}

void platform_opens_stop(struct platform_opens *t)
{
	(void)t;
}
