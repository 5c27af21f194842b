/* Aligning the tracked contexts to this tick's host list. The host prepends
 * new contexts and removes old ones but never reorders them (the seed's
 * observation, platforms.md 2.4), so walking both lists from the oldest end,
 * each tracked entry either vanished or continues as the next host entry, and
 * what is left at the head is new: an edit distance with deletions on one side,
 * solved forwards and backwards so that for every entry the cost of the best
 * alignment giving it another fate is known: within NEAR of the best, the entry
 * is unsure; only a margin of WSL_EVIDENCE makes its vanishing evidence for
 * revising a '?' match. */
#include "sources/wsl_match_internal.h"

#include <string.h>

#define GROWTH_DIV 4            /* growth is common (allocations, weights): a quarter of its bytes */
#define SHRINK_DIV 2            /* shrinking (frees) rarer: half */
#define NEW_CTX WSL_VANISH      /* a new context nobody new explains (foreign, late): as rare as a vanishing */
#define JUMP_CAP (1ull << 48)
#define NEAR WSL_VANISH /* an alignment this close to the best is as good: as much as
                        * a foreign context vanishing instead weighs */
#define INF UINT64_MAX

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > INF - b ? INF : a + b;
}

static uint64_t cost_vanish(const struct wsl_tracked *t)
{
	return t->vanish_cost;
}

/* A context may grow by gigabytes in one tick (weights uploading) and shrink
 * by some (frees): the jump weighs a fraction of its bytes. */
static uint64_t cost_map(const struct wsl_tracked *t, const struct wsl_ctx *h)
{
	uint64_t a = wsl_ctx_size(&t->v), b = wsl_ctx_size(h);
	if (t->zero_only && b != 0)
		return 2 * WSL_VANISH; /* an NVML-only owner's context does not grow */
	uint64_t d = a > b ? (a - b) / SHRINK_DIV : (b - a) / GROWTH_DIV;
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

static void backward(struct wsl_matcher *mt, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
		     int n_fresh)
{
	int m = a->n, n = h->n;

	for (int j = 0; j <= n; j++) /* the rest of the host list is new */
		mt->dp_b[m][j] = n - j > n_fresh ? (uint64_t)(n - j - n_fresh) * NEW_CTX : 0;
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

/* For each entry, how much more the best alignment giving it another fate
 * costs (fate: vanished, or the host index it continues as). */
static void find_margins(struct wsl_matcher *mt, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
			 uint64_t opt, struct wsl_align *out)
{
	int m = a->n, n = h->n;

	for (int i = 0; i < m; i++) {
		int chosen = out->fate[m - 1 - i] < 0 ? -1 : n - 1 - out->fate[m - 1 - i];
		uint64_t best = INF;
		for (int j = 0; j <= n; j++) {
			uint64_t f = mt->dp_f[i][j];
			if (f == INF)
				continue;
			if (chosen != -1) {
				uint64_t v = add_sat(f, add_sat(cost_vanish(T_OLD(i)), mt->dp_b[i + 1][j]));
				best = v < best ? v : best;
			}
			if (j < n && j != chosen) {
				uint64_t c = add_sat(f, add_sat(cost_map(T_OLD(i), H_OLD(j)), mt->dp_b[i + 1][j + 1]));
				best = c < best ? c : best;
			}
		}
		out->margin[m - 1 - i] = best == INF ? INF : best - opt;
		if (out->margin[m - 1 - i] <= NEAR)
			out->unsure[m - 1 - i] = out->any_unsure = true;
	}
}

void wsl_align(struct wsl_matcher *mt, const struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h, int n_fresh,
	       struct wsl_align *out)
{
	int m = a->n, n = h->n, j = 0;

	memset(out, 0, sizeof *out);
	forward(mt, a, h);
	backward(mt, a, h, n_fresh);
	uint64_t opt = mt->dp_b[0][0];
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
			out->n_vanished++;
		}
	}
	out->n_new = n - j;
	find_margins(mt, a, h, opt, out);
}
