/* Assigning this tick's new contexts to pending processes: every assignment
 * consistent with rules (b)-(d) of wsl_match.h is enumerated by a depth-first
 * search from the oldest new context to the newest, twice: the first pass
 * finds how many processes first seen in this tick can get a context at
 * most (they must: a new process and a new context pin each other), the
 * second walks the assignments that reach it, notes which contexts have the
 * same owner in all of them, keeps them for later revision and picks the one
 * shown. A search past NODE_CAP nodes is cut short and nothing it found is
 * certain. */
#include "sources/wsl_match_internal.h"

#include <string.h>

#define NODE_CAP 200000L
#define HINT_SLACK (1ull << 20) /* a foreign context within 1 MiB of a hinted size fits it */

struct search {
	const struct wsl_assign_in *in;
	struct wsl_assign_out *out;
	int cur[WSL_MAX_CTX];
	int first[WSL_MAX_CTX];   /* the first assignment found, for agreement */
	bool used[WSL_MAX_PROCS];
	long nodes;
	int target;               /* pass 2: fresh processes every assignment must match */
	int best_fresh;           /* pass 1 result */
	bool pass2;
	int shown_fit, shown_matched, shown_shadows, shown_inv;
};

int wsl_hint_fit(const struct wsl_ctx *ctx, const int *own, int q, const uint64_t *hints, size_t n_hints)
{
	bool taken[WSL_MAX_HINTS] = {false};
	int fit = 0;

	for (int c = 0; c < q; c++) {
		if (own[c] != WSL_FOREIGN)
			continue;
		uint64_t s = wsl_ctx_size(&ctx[c]);
		for (size_t k = 0; k < n_hints && k < WSL_MAX_HINTS; k++)
			if (!taken[k] && (s > hints[k] ? s - hints[k] : hints[k] - s) <= HINT_SLACK) {
				taken[k] = true;
				fit++;
				break;
			}
	}
	return fit;
}

/* Pairs of owners out of start order (an older context owned by a process
 * that started later): the start-up guess prefers fewer, and only among
 * assignments that are otherwise as good. Start order is no evidence of
 * context order (a job may open the GPU long after it starts), so it never
 * makes a '*'. Keys are 0 outside a start-up tick. */
static int inversions(const struct search *s)
{
	const struct wsl_assign_in *in = s->in;
	int n = 0;

	for (int c = 0; c < in->q; c++)
		for (int o = c + 1; o < in->q; o++) /* o is older than c */
			n += s->cur[c] != WSL_FOREIGN && s->cur[o] != WSL_FOREIGN &&
			     in->pend[s->cur[o]].key > in->pend[s->cur[c]].key;
	return n;
}

static void record(struct search *s, int fresh)
{
	struct wsl_assign_out *o = s->out;
	const struct wsl_assign_in *in = s->in;
	int q = in->q, matched = 0;

	if (!s->pass2) {
		if (fresh > s->best_fresh)
			s->best_fresh = fresh;
		return;
	}
	if (fresh != s->target)
		return;
	if (o->n_alts == 0)
		memcpy(s->first, s->cur, (size_t)q * sizeof *s->cur);
	for (int c = 0; c < q; c++) {
		matched += s->cur[c] != WSL_FOREIGN;
		if (s->first[c] != s->cur[c])
			o->agree[c] = false;
	}
	if (o->n_kept < WSL_GROUP_ALTS) {
		for (int c = 0; c < q && c < WSL_GROUP_CTX; c++)
			o->alts[o->n_kept][c] = (int16_t)s->cur[c];
		o->n_kept++;
	}
	int fit = wsl_hint_fit(in->ctx, s->cur, q, in->hints, in->n_hints), shadows = 0, inv = inversions(s);
	for (int c = 0; c < q; c++)
		shadows += s->cur[c] != WSL_FOREIGN && in->pend[s->cur[c]].shadow;
	if (o->n_alts == 0 || shadows < s->shown_shadows ||
	    (shadows == s->shown_shadows &&
	     (fit > s->shown_fit ||
	      (fit == s->shown_fit &&
	       (matched > s->shown_matched || (matched == s->shown_matched && inv < s->shown_inv)))))) {
		memcpy(o->shown, s->cur, (size_t)q * sizeof *s->cur);
		s->shown_fit = fit;
		s->shown_matched = matched;
		s->shown_shadows = shadows;
		s->shown_inv = inv;
	}
	o->n_alts++;
}

/* May pending process p own new context c, given the owners of the older ones? */
static bool allowed(const struct search *s, int c, int p)
{
	const struct wsl_assign_in *in = s->in;
	const struct wsl_pending *pp = &in->pend[p];

	if (s->used[p])
		return false;
	if (pp->nvml_only && wsl_ctx_size(&in->ctx[c]) != 0)
		return false; /* rule (c): NVML alone allocates nothing */
	return true;
}

static void dfs(struct search *s, int c, int fresh, int fresh_left)
{
	if (++s->nodes > NODE_CAP) {
		s->out->overflow = true;
		return;
	}
	if (fresh + fresh_left < (s->pass2 ? s->target : s->best_fresh + 1) && (s->pass2 || s->best_fresh >= 0))
		return; /* cannot reach the fresh count this pass needs */
	if (c < 0) {
		record(s, fresh);
		return;
	}
	for (int p = 0; p < s->in->np && !s->out->overflow; p++) {
		if (!allowed(s, c, p))
			continue;
		bool f = s->in->pend[p].fresh;
		s->used[p] = true;
		s->cur[c] = p;
		dfs(s, c - 1, fresh + f, fresh_left - f);
		s->used[p] = false;
	}
	if (s->out->overflow)
		return;
	s->cur[c] = WSL_FOREIGN;
	dfs(s, c - 1, fresh, fresh_left);
}

void wsl_assign(const struct wsl_assign_in *in, struct wsl_assign_out *out)
{
	struct search s = {.in = in, .out = out, .best_fresh = -1};
	int n_fresh = 0;

	memset(out, 0, sizeof *out);
	for (int c = 0; c < in->q; c++) {
		out->shown[c] = WSL_FOREIGN;
		out->agree[c] = true;
	}
	for (int p = 0; p < in->np; p++)
		n_fresh += in->pend[p].fresh;
	dfs(&s, in->q - 1, 0, n_fresh);
	if (out->overflow || s.best_fresh < 0) {
		out->overflow = true;
		for (int c = 0; c < in->q; c++)
			out->agree[c] = false;
		return;
	}
	s.pass2 = true;
	s.target = s.best_fresh;
	s.nodes = 0;
	dfs(&s, in->q - 1, 0, n_fresh);
	if (out->overflow)
		for (int c = 0; c < in->q; c++)
			out->agree[c] = false;
}
