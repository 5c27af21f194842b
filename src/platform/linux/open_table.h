/* The bounded table of recorded opens (platform_api.h: struct platform_open),
 * one entry per (PID, start time, path): a repeated open updates its entry,
 * a new one past the bound replaces the entry seen longest ago. Pure; the
 * tracer holds its lock around it. */
#ifndef GTM_OPEN_TABLE_H
#define GTM_OPEN_TABLE_H

#include <stddef.h>

#include "platform.h"

#define OPEN_TABLE_CAP PLATFORM_OPENS_MAX

struct open_table {
	struct platform_open v[OPEN_TABLE_CAP];
	size_t n;
};

/* Records one open of o->path by (o->pid, o->start_time) at o's first_* times. */
void open_table_put(struct open_table *t, const struct platform_open *o);

#endif
