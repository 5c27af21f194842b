/* The matcher's answer for one tick: a row per tracked context, then the
 * pending processes (holding /dev/dxg, no context: their values are N/A). */
#include "sources/wsl_match_internal.h"

#include <string.h>

#include "core/util.h"

static struct wsl_row *add_row(struct wsl_matcher *m)
{
	struct wsl_row *r = &m->rows[m->n_rows++];
	memset(r, 0, sizeof *r);
	return r;
}

static void fill_proc(struct wsl_row *r, const struct wsl_pslot *p)
{
	r->pid = p->pid;
	r->start = p->start;
	str_copy(r->comm, p->comm, sizeof r->comm);
}

static bool owns_any(const struct wsl_matcher *m, int slot)
{
	for (int k = 0; k < WSL_MAX_ADAPTERS; k++)
		for (int i = 0; m->ad[k].used && i < m->ad[k].n; i++)
			if (m->ad[k].t[i].owner == WSL_OWNER_PROC && m->ad[k].t[i].proc == slot)
				return true;
	return false;
}

void wsl_match_emit(struct wsl_matcher *m, const struct wsl_tick *t, const int *ad_of)
{
	m->n_rows = 0;
	for (int k = 0; k < t->n_adapters && k < WSL_MAX_ADAPTERS; k++) {
		if (ad_of[k] < 0)
			continue;
		const struct wsl_adapter_state *a = &m->ad[ad_of[k]];
		for (int i = 0; i < a->n; i++) {
			const struct wsl_tracked *tr = &a->t[i];
			struct wsl_row *r = add_row(m);
			r->adapter = k;
			r->ctx = i;
			r->owner = tr->owner;
			r->matched = tr->matched;
			r->established = tr->established;
			r->v = tr->v;
			if (tr->owner != WSL_OWNER_FOREIGN && tr->proc >= 0)
				fill_proc(r, &m->procs[tr->proc]);
		}
	}
	for (int i = 0; i < WSL_PROC_SLOTS; i++) {
		const struct wsl_pslot *p = &m->procs[i];
		if (!p->used || !p->alive || owns_any(m, i))
			continue;
		struct wsl_row *r = add_row(m);
		r->adapter = r->ctx = -1;
		r->owner = WSL_OWNER_PENDING;
		fill_proc(r, p);
	}
}
