/* The bounded table of opens (open_table.h). */
#include "open_table.h"

#include <string.h>

static bool same(const struct platform_open *a, const struct platform_open *b)
{
	return a->pid == b->pid && a->start_time == b->start_time && !strcmp(a->path, b->path);
}

void open_table_put(struct open_table *t, const struct platform_open *o)
{
	size_t oldest = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct platform_open *e = &t->v[i];
		if (same(e, o)) {
			e->last_unix_ns = o->first_unix_ns;
			if (e->count < UINT32_MAX)
				e->count++;
			return;
		}
		if (e->last_unix_ns < t->v[oldest].last_unix_ns)
			oldest = i;
	}
	struct platform_open *slot = t->n < OPEN_TABLE_CAP ? &t->v[t->n++] : &t->v[oldest];
	*slot = *o;
	slot->last_unix_ns = o->first_unix_ns;
	slot->count = 1;
}
