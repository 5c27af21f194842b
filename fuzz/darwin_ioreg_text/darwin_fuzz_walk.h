/* What the two ioreg fuzz targets share: parse, check, walk, sample. */
#ifndef GTM_DARWIN_FUZZ_WALK_H
#define GTM_DARWIN_FUZZ_WALK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/darwin/agx.h"

static inline int darwin_fuzz_walk(const uint8_t *data, size_t size,
				   int (*parse)(const char *, size_t, struct ioreg_list *))
{
	char *buf = malloc(size ? size : 1); /* exactly size bytes: ASan sees a read past them */
	memcpy(buf, data, size);
	struct ioreg_list l;
	ioreg_list_init(&l);
	int n = parse(buf, size, &l);
	if ((n < 0 && l.n) || (n >= 0 && (size_t)n != l.n))
		abort();
	for (size_t i = 0; i < l.n; i++)
		if (!l.v[i].props || l.v[i].props->kind != PT_DICT)
			abort();
	struct agx_device devs[4];
	struct agx_client *c;
	size_t nc;
	agx_walk(&l, devs, 4, &c, &nc);
	struct agx_tracker t;
	memset(&t, 0, sizeof t);
	struct agx_proc out[16];
	agx_tracker_update(&t, c, nc, 1000, NULL, NULL, out, 16);
	for (size_t i = 0; i < nc; i++)
		c[i].gpu_ns += i * 7;
	size_t nr = agx_tracker_update(&t, c, nc, 2000, NULL, NULL, out, 16);
	for (size_t i = 0; i < nr; i++)
		if (gtm_f64_ok(out[i].gpu_pct) && (out[i].gpu_pct.v < 0 || out[i].gpu_pct.v > 100))
			abort();
	agx_tracker_free(&t);
	free(c);
	ioreg_list_free(&l);
	free(buf);
	return 0;
}

#endif
