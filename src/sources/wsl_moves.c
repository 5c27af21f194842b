/* A size that moves with one process (wsl_match.h's rules): Total Committed
 * grows only by the owner's own allocation calls, so a process that ran no
 * thread over the window in which a context grew is not its owner. The
 * window reaches WSL_QUIET_TICKS ticks before the first tick of the sample
 * before, since the helper may have taken that sample before the tick before
 * it (the host sample is read before /proc in each tick, so the tick's own is
 * older than its run times). Local and Non Local Usage are not used: the video memory manager
 * moves memory between them by itself (eviction), and a shrink may be a free
 * the driver finishes later; only growth of what is committed counts. */
#include "sources/wsl_match_internal.h"

#include <string.h>

uint64_t wsl_sample_note(struct wsl_matcher *m, uint64_t seq)
{
	if (seq == 0 || seq == m->sample_seq) {
		m->sample_seq = seq;
		return 0;
	}
	m->prev_sample_tick = m->sample_tick;
	m->sample_tick = m->tick;
	m->sample_seq = seq;
	return m->prev_sample_tick;
}

/* Alive, its run time read, and no thread ran since before the window. */
static bool quiet(const struct wsl_matcher *m, int slot, uint64_t since_tick)
{
	const struct wsl_pslot *p = &m->procs[slot];
	return p->alive && p->ran_tick + WSL_QUIET_TICKS <= since_tick;
}

static bool grew(const struct wsl_ctx *was, const struct wsl_ctx *now)
{
	return !was->committed_na && !now->committed_na && now->committed >= was->committed &&
	       now->committed - was->committed >= WSL_MOVE_MIN;
}

void wsl_moves(struct wsl_matcher *m, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
	       const struct wsl_align *al, uint64_t since_tick)
{
	if (since_tick == 0)
		return;
	for (int i = 0; i < a->n; i++) {
		const struct wsl_tracked *t = &a->t[i];
		/* only a context the alignment is sure of: else the "growth" may be another's size */
		if (al->fate[i] < 0 || al->unsure[i] || al->margin[i] < WSL_EVIDENCE || t->group < 0)
			continue;
		struct wsl_group *g = &m->groups[t->group];
		int col = g->used && !g->frozen ? wsl_group_col(g, t->uid) : -1;
		if (col < 0 || !grew(&t->v, &h->ctx[al->fate[i]]))
			continue;
		int w = 0;
		for (int k = 0; k < g->n_alts; k++) {
			int o = g->own[k][col];
			if (o == WSL_FOREIGN || !quiet(m, o, since_tick))
				memmove(g->own[w++], g->own[k], sizeof g->own[k]);
		}
		if (w == 0) /* evidence that fits no assignment: the match learns nothing more */
			g->frozen = true;
		else
			g->n_alts = w;
	}
}
