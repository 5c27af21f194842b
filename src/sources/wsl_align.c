/* Aligning the tracked contexts to this tick's host list. The host prepends
 * new contexts and removes old ones but never reorders them (the seed's
 * observation, platforms.md 2.4), so walking both lists from the oldest end,
 * each tracked entry either vanished or continues as the next host entry, and
 * what is left at the head is new: an edit distance with deletions on one side,
 * solved forwards and backwards so that every entry's fate in *all* best
 * alignments is known (two that differ make it unsure). */
#include "sources/wsl_match_internal.h"

#include <string.h>

#define EST_LOST (1ull << 56)   /* an established owner losing its context: only when nothing else fits */
#define VANISH (1ull << 40)     /* any other context vanishing while its owner lives: rare, weighs 1 TiB */
#define GONE 1                  /* an exited owner's context vanishing: expected, but not for free, so
                                 * that "nothing vanished" wins a tie */
#define GROWTH_DIV 1024         /* growth is common (allocations), shrinking rarer: growth weighs less */
#define JUMP_CAP (1ull << 48)
#define INF UINT64_MAX

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > INF - b ? INF : a + b;
}

static bool live_established(const struct wsl_tracked *t)
{
	return t->owner == WSL_OWNER_PROC && t->established;
}

static uint64_t cost_vanish(const struct wsl_tracked *t)
{
	if (t->owner_gone)
		return GONE;
	return live_established(t) ? EST_LOST : VANISH;
}

/* A context may grow by gigabytes in one tick (weights uploading): growth
 * weighs 1/GROWTH_DIV of a shrink of the same size. */
static uint64_t cost_map(const struct wsl_tracked *t, const struct wsl_ctx *h)
{
	uint64_t a = wsl_ctx_size(&t->v), b = wsl_ctx_size(h);
	uint64_t d = a > b ? a - b : (b - a) / GROWTH_DIV;
	return d > JUMP_CAP ? JUMP_CAP : d;
}

/* Oldest-first views: tracked entry i is a->t[m-1-i], host entry j is h->ctx[n-1-j]. */
#define T_OLD(i) (&a->t[m - 1 - (i)])
#define H_OLD(j) (&h->ctx[n - 1 - (j)])

static void forward(struct wsl_matcher *mt, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h)
{
	int m = a->n, n = h->n;

	for (int i = 0; i <= m; i++)
		for (int j = 0; j <= n; j++)
			mt->dp_f[i][j] = INF;
	mt->dp_f[0][0] = 0;
	for (int i = 0; i < m; i++)
		for (int j = 0; j <= n; j++) {
			uint64_t f = mt->dp_f[i][j];
			if (f == INF)
				continue;
			uint64_t v = add_sat(f, cost_vanish(T_OLD(i)));
			if (v < mt->dp_f[i + 1][j])
				mt->dp_f[i + 1][j] = v;
			if (j < n) {
				uint64_t c = add_sat(f, cost_map(T_OLD(i), H_OLD(j)));
				if (c < mt->dp_f[i + 1][j + 1])
					mt->dp_f[i + 1][j + 1] = c;
			}
		}
}

static void backward(struct wsl_matcher *mt, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h)
{
	int m = a->n, n = h->n;

	for (int j = 0; j <= n; j++)
		mt->dp_b[m][j] = 0; /* the rest of the host list is new */
	for (int i = m - 1; i >= 0; i--)
		for (int j = n; j >= 0; j--) {
			uint64_t best = add_sat(mt->dp_b[i + 1][j], cost_vanish(T_OLD(i)));
			if (j < n) {
				uint64_t c = add_sat(mt->dp_b[i + 1][j + 1], cost_map(T_OLD(i), H_OLD(j)));
				if (c < best)
					best = c;
			}
			mt->dp_b[i][j] = best;
		}
}

/* Marks entries whose fate differs between optimal edges. */
static void find_unsure(struct wsl_matcher *mt, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
			uint64_t opt, struct wsl_align *out)
{
	int m = a->n, n = h->n;

	for (int i = 0; i < m; i++) {
		int fate = -2;
		for (int j = 0; j <= n; j++) {
			uint64_t f = mt->dp_f[i][j];
			if (f == INF)
				continue;
			int fates[2] = {-1, j};
			uint64_t cost[2] = {add_sat(f, add_sat(cost_vanish(T_OLD(i)), mt->dp_b[i + 1][j])),
					    j < n ? add_sat(f, add_sat(cost_map(T_OLD(i), H_OLD(j)), mt->dp_b[i + 1][j + 1]))
						  : INF};
			for (int k = 0; k < 2; k++) {
				if (cost[k] != opt)
					continue;
				if (fate != -2 && fate != fates[k])
					out->unsure[m - 1 - i] = out->any_unsure = true;
				fate = fates[k];
			}
		}
	}
}

void wsl_align(struct wsl_matcher *mt, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
	       struct wsl_align *out)
{
	int m = a->n, n = h->n, j = 0;

	memset(out, 0, sizeof *out);
	forward(mt, a, h);
	backward(mt, a, h);
	uint64_t opt = mt->dp_b[0][0];
	find_unsure(mt, a, h, opt, out);
	/* one best path, continuing rather than vanishing when both are best */
	uint64_t acc = 0;
	for (int i = 0; i < m; i++) {
		const struct wsl_tracked *t = T_OLD(i);
		if (j < n && add_sat(acc, add_sat(cost_map(t, H_OLD(j)), mt->dp_b[i + 1][j + 1])) == opt) {
			acc = add_sat(acc, cost_map(t, H_OLD(j)));
			out->fate[m - 1 - i] = n - 1 - j;
			j++;
		} else {
			acc = add_sat(acc, cost_vanish(t));
			out->fate[m - 1 - i] = -1;
		}
	}
	out->n_new = n - j;
}
