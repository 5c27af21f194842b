#include "sources/source.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct gtm_raw_use *raw_uses_add(struct gtm_raw_uses *u)
{
	/* each use is zeroed here: the slots beyond are not touched */
	u->v = grow_array_raw(u->v, sizeof *u->v, &u->cap, u->n);
	struct gtm_raw_use *r = &u->v[u->n++];
	memset(r, 0, sizeof *r);
	r->use.vram = r->use.spill = r->use.paged = GTM_U64_NA;
	r->use.sm_pct = r->use.enc_pct = r->use.dec_pct = GTM_F64_NA;
	r->use.gfx_pct = r->use.copy_pct = r->use.video_pct = GTM_F64_NA;
	return r;
}

void raw_uses_clear(struct gtm_raw_uses *u)
{
	for (size_t i = 0; i < u->n; i++)
		gpu_use_release(&u->v[i].use);
	u->n = 0;
}

void raw_uses_free(struct gtm_raw_uses *u)
{
	raw_uses_clear(u);
	free(u->v);
	memset(u, 0, sizeof *u);
}
