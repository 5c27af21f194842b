#include "views/tui/tui_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/util.h"
#include "views/json.h"
#include "views/tui/tui_ident.h"

const char *tui_sort_name(enum tui_sort s)
{
	static const char *const names[TUI_SORT_COUNT] = {"VRAM", "GPU %", "spill", "paged", "name"};
	return (unsigned)s < TUI_SORT_COUNT ? names[s] : names[0];
}

static void add_u64(gtm_u64 *acc, gtm_u64 r)
{
	if (!gtm_u64_ok(r))
		return;
	if (!gtm_u64_ok(*acc))
		*acc = gtm_u64_of(0, r.prov);
	acc->v += r.v;
	/* A sum is only as certain as its least certain part. */
	if (r.prov > acc->prov)
		acc->prov = r.prov;
}

static void max_f64(gtm_f64 *acc, gtm_f64 r)
{
	if (!gtm_f64_ok(r))
		return;
	if (!gtm_f64_ok(*acc) || r.v > acc->v)
		*acc = r;
}

void tui_row_metrics(const struct gtm_process *p, struct tui_row_metrics *m)
{
	*m = (struct tui_row_metrics){GTM_U64_NA, GTM_U64_NA, GTM_U64_NA, GTM_F64_NA, GTM_F64_NA,
				      GTM_F64_NA, GTM_F64_NA, GTM_F64_NA, GTM_F64_NA};
	for (int i = 0; i < p->n_uses; i++) {
		const struct gtm_gpu_use *u = &p->uses[i];
		add_u64(&m->vram, u->vram);
		add_u64(&m->spill, u->spill);
		add_u64(&m->paged, u->paged);
		/* NVML reports SM; DRM engines report graphics. GPU % is the busiest. */
		max_f64(&m->gpu, u->sm_pct);
		max_f64(&m->gpu, u->gfx_pct);
		max_f64(&m->gpu, u->busy_pct); /* WDDM: the busiest engine (Task Manager's GPU %) */
		max_f64(&m->enc, u->enc_pct);
		max_f64(&m->dec, u->dec_pct);
		max_f64(&m->gfx, u->gfx_pct);
		max_f64(&m->copy, u->copy_pct);
		max_f64(&m->video, u->video_pct);
	}
}

struct sort_key {
	int idx;
	bool ok;
	double v;
	const struct gtm_process *p;
};

static int cmp_name(const struct gtm_process *a, const struct gtm_process *b)
{
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static int cmp_keys(const void *va, const void *vb)
{
	const struct sort_key *a = va, *b = vb;

	if (a->ok != b->ok)
		return a->ok ? -1 : 1;
	if (a->ok && a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return cmp_name(a->p, b->p);
}

static int cmp_names(const void *va, const void *vb)
{
	const struct sort_key *a = va, *b = vb;
	return cmp_name(a->p, b->p);
}

static void key_of(const struct gtm_process *p, enum tui_sort sort, struct sort_key *k)
{
	struct tui_row_metrics m;
	tui_row_metrics(p, &m);
	k->p = p;
	switch (sort) {
	case TUI_SORT_GPU: k->ok = gtm_f64_ok(m.gpu); k->v = m.gpu.v; break;
	case TUI_SORT_SPILL: k->ok = gtm_u64_ok(m.spill); k->v = (double)m.spill.v; break;
	case TUI_SORT_PAGED: k->ok = gtm_u64_ok(m.paged); k->v = (double)m.paged.v; break;
	case TUI_SORT_NAME: k->ok = true; k->v = 0; break;
	default: k->ok = gtm_u64_ok(m.vram); k->v = (double)m.vram.v; break;
	}
}

void tui_rows_scratch_free(struct tui_rows_scratch *sc)
{
	free(sc->keys);
	sc->keys = NULL;
	sc->cap = 0;
}

int tui_rows_select(const struct gtm_snapshot *s, bool all, enum tui_sort sort, int *idx,
		    struct tui_rows_scratch *scratch)
{
	struct tui_rows_scratch local = {0}, *sc = scratch ? scratch : &local;
	struct sort_key *keys;
	int n = 0;

	if (s->n_processes <= 0)
		return 0;
	sc->keys = grow_array(sc->keys, sizeof *keys, &sc->cap, (size_t)s->n_processes - 1);
	keys = sc->keys;
	for (int i = 0; i < s->n_processes; i++) {
		if (!view_lists_process(s, i, all))
			continue;
		keys[n].idx = i;
		key_of(&s->processes[i], sort, &keys[n++]);
	}
	qsort(keys, (size_t)n, sizeof *keys, sort == TUI_SORT_NAME ? cmp_names : cmp_keys);
	for (int i = 0; i < n; i++)
		idx[i] = keys[i].idx;
	tui_rows_scratch_free(&local);
	return n;
}

int tui_rows_find(const struct gtm_snapshot *s, const int *idx, int n, uint32_t pid, uint64_t start_time,
		  const char *label)
{
	for (int i = 0; i < n; i++) {
		const struct gtm_process *p = &s->processes[idx[i]];
		if (p->pid == pid && p->start_time == start_time && !strcmp(p->label, label))
			return i;
	}
	return -1;
}

/* VRAM through video: the columns a process without GPU use has no figure for. */
static bool per_gpu_col(enum tui_col c)
{
	return c >= TUI_COL_VRAM && c <= TUI_COL_VIDEO;
}

void tui_row_cell_text(const struct gtm_process *p, const struct tui_row_metrics *m, enum tui_col c, char *buf,
		       size_t n)
{
	char e[256];

	if (p->n_uses == 0 && per_gpu_col(c)) {
		str_copy(buf, "-", n);
		return;
	}
	switch (c) {
	case TUI_COL_PID: str_copy(buf, p->label[0] ? fmt_safe(e, sizeof e, p->label) : "?", n); break;
	case TUI_COL_NAME: str_copy(buf, fmt_safe(e, sizeof e, p->name), n); break;
	case TUI_COL_CAT: str_copy(buf, tui_process_cat_text(p), n); break;
	case TUI_COL_RUNTIMES: tui_process_runtimes(p, buf, n); break;
	case TUI_COL_VRAM: fmt_bytes(buf, n, m->vram); break;
	case TUI_COL_SPILL: fmt_bytes(buf, n, m->spill); break;
	case TUI_COL_PAGED:
		/* '~': estimated (Windows: Total Committed - Local - Non Local Usage) */
		if (gtm_u64_ok(m->paged) && m->paged.prov == GTM_ESTIMATED) {
			buf[0] = '~';
			fmt_bytes(buf + 1, n - 1, m->paged);
		} else {
			fmt_bytes(buf, n, m->paged);
		}
		break;
	case TUI_COL_GPU: fmt_f64(buf, n, m->gpu, 0, ""); break;
	case TUI_COL_ENC: fmt_f64(buf, n, m->enc, 0, ""); break;
	case TUI_COL_DEC: fmt_f64(buf, n, m->dec, 0, ""); break;
	case TUI_COL_GFX: fmt_f64(buf, n, m->gfx, 0, ""); break;
	case TUI_COL_COPY: fmt_f64(buf, n, m->copy, 0, ""); break;
	case TUI_COL_VIDEO: fmt_f64(buf, n, m->video, 0, ""); break;
	case TUI_COL_INSIDE: tui_process_inside(p, buf, n); break;
	default: buf[0] = '\0';
	}
	/* runtimes and what's inside carry model names and paths */
	if ((c == TUI_COL_RUNTIMES || c == TUI_COL_INSIDE) && !fmt_is_safe(buf, strlen(buf))) {
		char raw[256];
		snprintf(raw, sizeof raw, "%s", buf);
		snprintf(buf, n, "%s", fmt_safe(e, sizeof e, raw));
	}
}
