#include "sources/wddm/wddm_use.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

/* Which fixed field a driver's engine type fills, first prefix that
 * matches (case-insensitive). NVIDIA: 3D, Compute_0, Cuda, Copy,
 * VideoDecode, VideoEncode; Intel: Graphics_1, Video...; AMD's
 * "High Priority 3D" and the like stay in the vector only. */
static const struct {
	const char *prefix;
	size_t field; /* offset of a gtm_f64 in gtm_gpu_use */
} type_fields[] = {
	{"3D", offsetof(struct gtm_gpu_use, gfx_pct)},
	{"Graphics", offsetof(struct gtm_gpu_use, gfx_pct)},
	{"Compute", offsetof(struct gtm_gpu_use, sm_pct)},
	{"Cuda", offsetof(struct gtm_gpu_use, sm_pct)},
	{"Copy", offsetof(struct gtm_gpu_use, copy_pct)},
	{"VideoEncode", offsetof(struct gtm_gpu_use, enc_pct)},
	{"VideoDecode", offsetof(struct gtm_gpu_use, dec_pct)},
	{"Video", offsetof(struct gtm_gpu_use, video_pct)},
};

static void take_max(gtm_f64 *f, double v)
{
	if (!gtm_f64_ok(*f) || v > f->v)
		*f = gtm_f64_of(v, GTM_MEASURED);
}

void wddm_use_fill_engines(struct gtm_gpu_use *u, const struct wddm_load *l)
{
	struct gtm_engine engines[GTM_MAX_ENGINES];
	int n = 0;

	u->busy_pct = l->ok ? gtm_f64_of(l->busiest_pct, GTM_MEASURED) : GTM_F64_NA;
	for (int i = 0; i < l->n_types && n < GTM_MAX_ENGINES; i++) {
		const struct wddm_type_load *t = &l->types[i];
		struct gtm_engine *e = &engines[n++];
		str_copy(e->name, t->type, sizeof e->name);
		e->busy_pct = t->ok ? gtm_f64_of(t->pct, GTM_MEASURED) : GTM_F64_NA;
		if (!t->ok)
			continue;
		for (size_t k = 0; k < ARRAY_LEN(type_fields); k++)
			if (strncasecmp(t->type, type_fields[k].prefix, strlen(type_fields[k].prefix)) == 0) {
				take_max((gtm_f64 *)((char *)u + type_fields[k].field), t->pct);
				break;
			}
	}
	gpu_use_set_engines(u, engines, n);
}

void wddm_use_fill_memory(struct gtm_gpu_use *u, const struct wddm_mem_use *m)
{
	u->vram = m->vram;
	u->spill = m->spill;
	u->paged = m->paged;
	if (!gtm_u64_ok(u->vram))
		str_copy(u->na_reason, "no valid sample (PDH CStatus)", sizeof u->na_reason);
	if (m->vram_fallback || m->spill_fallback)
		str_copy(u->mem_note,
			 m->vram_fallback && m->spill_fallback
				 ? "from Dedicated/Shared Usage: no Local/Non Local instance (counts shared surfaces)"
			 : m->vram_fallback ? "VRAM from Dedicated Usage: no Local Usage instance (counts shared surfaces)"
					    : "spill from Shared Usage: no Non Local Usage instance",
			 sizeof u->mem_note);
}

void wddm_device_fill_engines(struct gtm_device *d, const struct wddm_load *l)
{
	d->n_engines = 0;
	d->util_gpu_pct = l->ok ? gtm_f64_of(l->busiest_pct, GTM_MEASURED) : GTM_F64_NA;
	for (int i = 0; i < l->n_types && d->n_engines < GTM_MAX_ENGINES; i++) {
		struct gtm_engine *e = &d->engines[d->n_engines++];
		str_copy(e->name, l->types[i].type, sizeof e->name);
		e->busy_pct = l->types[i].ok ? gtm_f64_of(l->types[i].pct, GTM_MEASURED) : GTM_F64_NA;
	}
}
