/* The matcher's tick (rules in wsl_match.h): processes, reset, then per
 * adapter alignment, exits, revision of ambiguous matches, new matches, and
 * the rows. */
#include "sources/wsl_match_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct wsl_matcher *wsl_matcher_new(void)
{
	struct wsl_matcher *m = xcalloc(1, sizeof *m);
	return m;
}

void wsl_matcher_free(struct wsl_matcher *m)
{
	free(m);
}

size_t wsl_hints(const struct wsl_matcher *m, const uint64_t **sizes, const char **boot_id)
{
	*sizes = m->hints;
	*boot_id = m->hints_boot;
	return m->n_hints;
}

void wsl_hints_load(struct wsl_matcher *m, const char *boot_id, const uint64_t *sizes, size_t n)
{
	str_copy(m->hints_boot, boot_id, sizeof m->hints_boot);
	m->n_hints = n < WSL_MAX_HINTS ? n : WSL_MAX_HINTS;
	memcpy(m->hints, sizes, m->n_hints * sizeof *sizes);
}

bool wsl_hints_dirty(struct wsl_matcher *m)
{
	bool d = m->hints_dirty;
	m->hints_dirty = false;
	return d;
}

static void hint_add(struct wsl_matcher *m, uint64_t size)
{
	if (m->n_hints == WSL_MAX_HINTS) /* oldest out */
		memmove(m->hints, m->hints + 1, (WSL_MAX_HINTS - 1) * sizeof *m->hints);
	else
		m->n_hints++;
	m->hints[m->n_hints - 1] = size;
	m->hints_dirty = true;
}

/* VM restarted (or first tick): nothing tracked survives; a new boot drops the hints. */
static bool maybe_reset(struct wsl_matcher *m, const struct wsl_tick *t)
{
	bool boot = strcmp(m->boot_id, t->boot_id) != 0;

	if (m->started && !boot && m->vmwp_pid == t->vmwp_pid)
		return false;
	memset(m->ad, 0, sizeof m->ad);
	memset(m->groups, 0, sizeof m->groups);
	if (boot)
		memset(m->procs, 0, sizeof m->procs);
	if (strcmp(m->hints_boot, t->boot_id) != 0) {
		m->n_hints = 0;
		str_copy(m->hints_boot, t->boot_id, sizeof m->hints_boot);
	}
	str_copy(m->boot_id, t->boot_id, sizeof m->boot_id);
	m->vmwp_pid = t->vmwp_pid;
	m->started = true;
	return true;
}

static int find_proc(const struct wsl_matcher *m, uint32_t pid, uint64_t start)
{
	for (int i = 0; i < WSL_PROC_SLOTS; i++)
		if (m->procs[i].used && m->procs[i].alive && m->procs[i].pid == pid && m->procs[i].start == start)
			return i;
	return -1;
}

static int new_proc(struct wsl_matcher *m)
{
	for (int i = 0; i < WSL_PROC_SLOTS; i++)
		if (!m->procs[i].used)
			return i;
	return -1;
}

/* Marks who is alive this tick; a new (pid, start) is a new process (PID reuse included). */
static void update_procs(struct wsl_matcher *m, const struct wsl_tick *t)
{
	bool seen[WSL_PROC_SLOTS] = {false};

	for (int k = 0; k < t->n_procs && k < WSL_MAX_PROCS; k++) {
		const struct wsl_proc *p = &t->procs[k];
		int i = find_proc(m, p->pid, p->start);
		if (i < 0 && (i = new_proc(m)) >= 0) {
			m->procs[i] = (struct wsl_pslot){.used = true, .alive = true, .pid = p->pid, .start = p->start,
							 .first_tick = m->tick};
			str_copy(m->procs[i].comm, p->comm, sizeof m->procs[i].comm);
		}
		if (i < 0)
			continue;
		struct wsl_pslot *q = &m->procs[i];
		q->nvml_only = p->nvml_only;
		/* first seen, not read, or a thread ran (or left): it may have called the GPU now */
		if (q->first_tick == m->tick || !p->run_known || p->run_ns != q->run_ns || p->n_tasks != q->n_tasks)
			q->ran_tick = m->tick;
		q->run_ns = p->run_known ? p->run_ns : 0;
		q->n_tasks = p->run_known ? p->n_tasks : 0;
		seen[i] = true;
	}
	for (int i = 0; i < WSL_PROC_SLOTS; i++)
		if (m->procs[i].used && !seen[i] && m->procs[i].alive) {
			m->procs[i].alive = false;
			m->procs[i].gone_tick = m->tick;
		}
}

static struct wsl_adapter_state *adapter_for(struct wsl_matcher *m, const char *luid)
{
	struct wsl_adapter_state *free_slot = NULL;

	for (int i = 0; i < WSL_MAX_ADAPTERS; i++) {
		if (m->ad[i].used && !strcmp(m->ad[i].luid, luid))
			return &m->ad[i];
		if (!m->ad[i].used && !free_slot)
			free_slot = &m->ad[i];
	}
	if (free_slot) {
		memset(free_slot, 0, sizeof *free_slot);
		free_slot->used = true;
		str_copy(free_slot->luid, luid, sizeof free_slot->luid);
	}
	return free_slot;
}

/* ---- ambiguous matches ---- */

int wsl_group_col(const struct wsl_group *g, uint32_t uid)
{
	for (int c = 0; c < g->n_ctx; c++)
		if (g->uid[c] == uid)
			return c;
	return -1;
}

/* A context of an ambiguous match vanished: the assignments in which it was
 * a live process's lose (a live process keeps its context), unless all do, or
 * the alignment was not clearly sure that this context is the one that went.
 * leaver: the one process that left just before (exit_leaver), whose context
 * this is when some assignment says it may be: it vanished with that process. */
static void group_vanished(struct wsl_matcher *m, int gi, uint32_t uid, bool evidence, int leaver)
{
	struct wsl_group *g = &m->groups[gi];
	int col = wsl_group_col(g, uid), w = 0;

	if (col < 0)
		return;
	if (!evidence) /* not sure which context went: nothing learned, ever again */
		g->frozen = true;
	for (int a = 0; a < g->n_alts && evidence && leaver >= 0; a++)
		if (g->own[a][col] == leaver)
			memmove(g->own[w++], g->own[a], sizeof g->own[a]);
	bool by_exit = w > 0;
	for (int a = 0; a < g->n_alts && evidence && !by_exit; a++) {
		int o = g->own[a][col];
		if (o == WSL_FOREIGN || !m->procs[o].alive)
			memmove(g->own[w++], g->own[a], sizeof g->own[a]);
	}
	if (w == 0)
		g->frozen = true;
	else if (evidence)
		g->n_alts = w;
	for (int a = 0; a < g->n_alts; a++)
		memmove(&g->own[a][col], &g->own[a][col + 1], (size_t)(g->n_ctx - col - 1) * sizeof g->own[a][0]);
	memmove(&g->uid[col], &g->uid[col + 1], (size_t)(g->n_ctx - col - 1) * sizeof g->uid[0]);
	g->n_ctx--;
	if (g->n_ctx == 0)
		g->used = false;
}

/* Drops the assignments of a match in which slot owns one of its contexts;
 * none left: the match learns nothing more. */
static void group_without(struct wsl_group *g, int slot)
{
	int w = 0;

	for (int a = 0; a < g->n_alts; a++) {
		bool owns = false;
		for (int c = 0; c < g->n_ctx; c++)
			owns |= g->own[a][c] == slot;
		if (!owns)
			memmove(g->own[w++], g->own[a], sizeof g->own[a]);
	}
	if (w == 0)
		g->frozen = true;
	else
		g->n_alts = w;
}

static struct wsl_tracked *tracked_by_uid(struct wsl_adapter_state *a, uint32_t uid)
{
	for (int i = 0; i < a->n; i++)
		if (a->t[i].uid == uid)
			return &a->t[i];
	return NULL;
}

static void set_owner(struct wsl_matcher *m, struct wsl_tracked *t, int slot, bool matched)
{
	int old = t->owner == WSL_OWNER_FOREIGN ? WSL_FOREIGN : t->proc;
	if (old != slot || !matched)
		t->star_ticks = 0;
	t->proc = slot;
	t->owner = slot == WSL_FOREIGN ? WSL_OWNER_FOREIGN
					: m->procs[slot].alive ? WSL_OWNER_PROC : WSL_OWNER_EXITED;
	t->matched = matched;
}

static bool shown_outside(const struct wsl_adapter_state *a, int gi, int slot)
{
	for (int i = 0; i < a->n; i++)
		if (a->t[i].group != gi && a->t[i].owner != WSL_OWNER_FOREIGN && a->t[i].proc == slot)
			return true;
	return false;
}

/* Shows the assignment that fits the hints best and marks '*' what all agree on. */
static void group_show(struct wsl_matcher *m, struct wsl_adapter_state *a, int gi)
{
	struct wsl_group *g = &m->groups[gi];
	struct wsl_ctx v[WSL_GROUP_CTX];
	int best = 0, best_fit = -100000;

	for (int c = 0; c < g->n_ctx; c++) {
		const struct wsl_tracked *t = tracked_by_uid(a, g->uid[c]);
		v[c] = t ? t->v : (struct wsl_ctx){0};
	}
	for (int k = 0; k < g->n_alts; k++) {
		int own[WSL_GROUP_CTX];
		bool clash = false;
		for (int c = 0; c < g->n_ctx; c++) {
			own[c] = g->own[k][c];
			clash |= own[c] >= 0 && shown_outside(a, gi, own[c]);
		}
		/* one shown owner per process: an assignment clashing with another match's shown one loses */
		int fit = wsl_hint_fit(v, own, g->n_ctx, m->hints, m->n_hints) - (clash ? 1000 : 0);
		if (fit > best_fit)
			best = k, best_fit = fit;
	}
	for (int c = 0; c < g->n_ctx; c++) {
		struct wsl_tracked *t = tracked_by_uid(a, g->uid[c]);
		bool agree = !g->frozen;
		for (int k = 1; k < g->n_alts && agree; k++)
			agree = g->own[k][c] == g->own[0][c];
		if (t)
			set_owner(m, t, g->own[best][c], agree);
	}
}

/* ---- one adapter ---- */

/* The one process of this distro that left within WSL_EXIT_WINDOW ticks and
 * has had no context vanish on this adapter since; -1 when none or several. */
static int exit_leaver(const struct wsl_matcher *m, int ad)
{
	int who = -1;

	for (int i = 0; i < WSL_PROC_SLOTS; i++) {
		const struct wsl_pslot *p = &m->procs[i];
		if (!p->used || p->alive || p->gone_tick + WSL_EXIT_WINDOW < m->tick || (p->vanished_on & (1u << ad)))
			continue;
		if (who >= 0)
			return -1;
		who = i;
	}
	return who;
}

/* Whether what is known of this context lets slot own it: a '*' owner, the
 * kept assignments of its match, rule (c). */
static bool may_be(const struct wsl_matcher *m, const struct wsl_tracked *t, int slot)
{
	if (t->matched)
		return t->owner != WSL_OWNER_FOREIGN && t->proc == slot;
	if (m->procs[slot].nvml_only && wsl_ctx_size(&t->v) != 0)
		return false;
	if (t->group < 0 || !m->groups[t->group].used || m->groups[t->group].frozen)
		return true;
	const struct wsl_group *g = &m->groups[t->group];
	int col = wsl_group_col(g, t->uid);
	for (int k = 0; col >= 0 && k < g->n_alts; k++)
		if (g->own[k][col] == slot)
			return true;
	return false;
}

/* The leaver whose context this tick's one vanishing is (rule: a context that
 * vanishes with one process is that process's), or -1: no single vanishing the
 * alignment is sure of, no single leaver, or evidence that the context was
 * another's (a '*' owner) or that the leaver's context is still listed. */
static int exit_evidence(const struct wsl_matcher *m, const struct wsl_adapter_state *a, const struct wsl_align *al)
{
	int leaver = al->n_vanished == 1 && al->n_new == 0 ? exit_leaver(m, (int)(a - m->ad)) : -1;

	for (int i = 0; i < a->n && leaver >= 0; i++) {
		const struct wsl_tracked *t = &a->t[i];
		bool mine = t->owner != WSL_OWNER_FOREIGN && t->proc == leaver;
		if (al->fate[i] < 0 && (al->margin[i] < WSL_EVIDENCE || !may_be(m, t, leaver)))
			return -1;
		if (al->fate[i] >= 0 && t->matched && mine)
			return -1;
	}
	return leaver;
}

/* After the leaver's context vanished: it owned no other here (rule b), so a
 * context shown as its by a guess is nobody's known any more ('?' foreign),
 * and no kept assignment may give it one. */
static void leaver_settled(struct wsl_matcher *m, struct wsl_adapter_state *a, int leaver)
{
	m->procs[leaver].vanished_on |= (uint8_t)(1u << (a - m->ad));
	for (int i = 0; i < a->n; i++) {
		struct wsl_tracked *t = &a->t[i];
		if (t->group >= 0 && m->groups[t->group].used)
			group_without(&m->groups[t->group], leaver);
		if (t->owner != WSL_OWNER_FOREIGN && t->proc == leaver && !t->matched)
			set_owner(m, t, WSL_FOREIGN, false);
	}
}

static void apply_alignment(struct wsl_matcher *m, struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
			    const struct wsl_align *al)
{
	struct wsl_tracked next[WSL_MAX_CTX];
	int n = h->n, leaver = exit_evidence(m, a, al);

	for (int k = 0; k < n; k++)
		next[k] = (struct wsl_tracked){.v = h->ctx[k], .owner = WSL_OWNER_FOREIGN, .proc = WSL_FOREIGN,
					       .group = -1, .uid = 0};
	for (int i = 0; i < a->n; i++) /* a match whose contexts were lost track of learns nothing more */
		if (al->unsure[i] && a->t[i].group >= 0)
			m->groups[a->t[i].group].frozen = true;
	for (int i = 0; i < a->n; i++) {
		struct wsl_tracked *t = &a->t[i];
		if (al->fate[i] < 0) {
			if (t->group >= 0 && m->groups[t->group].used)
				group_vanished(m, t->group, t->uid,
					       al->margin[i] >= WSL_EVIDENCE && al->n_vanished == 1 && al->n_new == 0, leaver);
			continue; /* a live owner is pending again */
		}
		struct wsl_tracked *d = &next[al->fate[i]];
		struct wsl_ctx v = d->v;
		*d = *t;
		d->v = v;
		if (al->unsure[i]) {
			d->matched = false;
			d->established = false;
			d->star_ticks = 0;
		}
	}
	memcpy(a->t, next, (size_t)n * sizeof *next);
	a->n = n;
	if (leaver >= 0)
		leaver_settled(m, a, leaver);
}

static bool owns_here(const struct wsl_adapter_state *a, int slot)
{
	for (int i = 0; i < a->n; i++)
		if (a->t[i].owner == WSL_OWNER_PROC && a->t[i].proc == slot)
			return true;
	return false;
}

static bool exited_here(const struct wsl_adapter_state *a, int slot)
{
	for (int i = 0; i < a->n; i++)
		if (a->t[i].owner == WSL_OWNER_EXITED && a->t[i].proc == slot)
			return true;
	return false;
}

/* Shown owning a context only by a guess ('?'), or by a '?' match of which some
 * assignment gives it none. */
static bool may_own_none(const struct wsl_matcher *m, const struct wsl_adapter_state *a, int slot)
{
	for (int i = 0; i < a->n; i++) {
		const struct wsl_tracked *t = &a->t[i];
		if (t->owner == WSL_OWNER_FOREIGN || t->proc != slot)
			continue;
		if (!t->matched)
			return true; /* a guess: the context may be another's, and this one's still to come */
		if (t->group < 0 || !m->groups[t->group].used)
			continue;
		const struct wsl_group *g = &m->groups[t->group];
		for (int k = 0; k < g->n_alts; k++) {
			bool owns = false;
			for (int c = 0; c < g->n_ctx; c++)
				owns |= g->own[k][c] == slot;
			if (!owns)
				return true;
		}
		if (g->frozen)
			return true;
	}
	return false;
}

static int collect_pending(const struct wsl_matcher *m, const struct wsl_adapter_state *a, bool startup,
			   struct wsl_pending *pend)
{
	int np = 0;

	for (int i = 0; i < WSL_PROC_SLOTS && np < WSL_MAX_PROCS; i++) {
		const struct wsl_pslot *p = &m->procs[i];
		/* one that left since the last tick may have made a context just before */
		bool just_gone = p->used && !p->alive && p->gone_tick == m->tick;
		bool shadow = p->used && (p->alive || just_gone) && may_own_none(m, a, i);
		if (!p->used || (!p->alive && !just_gone) || ((owns_here(a, i) || exited_here(a, i)) && !shadow))
			continue;
		/* at start-up nothing pins: a job may have no context yet, a context may be foreign */
		bool fresh = p->alive && !shadow && !startup && p->first_tick == m->tick;
		pend[np++] = (struct wsl_pending){.slot = i, .fresh = fresh, .key = startup ? p->start : 0,
						  .nvml_only = p->nvml_only, .shadow = shadow};
	}
	return np;
}

static int new_group(struct wsl_matcher *m)
{
	for (int i = 0; i < WSL_MAX_GROUPS; i++)
		if (!m->groups[i].used)
			return i;
	return -1;
}

static void keep_group(struct wsl_matcher *m, struct wsl_adapter_state *a, int q, const struct wsl_pending *pend,
		       const struct wsl_assign_out *o, bool certain)
{
	int gi = certain || o->overflow || q > WSL_GROUP_CTX || o->n_alts > WSL_GROUP_ALTS ? -1 : new_group(m);

	if (gi < 0)
		return;
	struct wsl_group *g = &m->groups[gi];
	*g = (struct wsl_group){.used = true, .n_ctx = q, .n_alts = o->n_kept};
	for (int c = 0; c < q; c++) {
		g->uid[c] = a->t[c].uid;
		a->t[c].group = gi;
		for (int k = 0; k < o->n_kept; k++)
			g->own[k][c] = (int16_t)(o->alts[k][c] == WSL_FOREIGN ? WSL_FOREIGN : pend[o->alts[k][c]].slot);
	}
}

static void match_new(struct wsl_matcher *m, struct wsl_adapter_state *a, int q, bool startup, bool unsure)
{
	struct wsl_pending *pend = m->pend;
	struct wsl_assign_out *o = xcalloc(1, sizeof *o);
	struct wsl_ctx ctx[WSL_MAX_CTX];
	int np = collect_pending(m, a, startup, pend);
	bool certain = true;

	for (int c = 0; c < q; c++) {
		ctx[c] = a->t[c].v;
		a->t[c].uid = ++m->next_uid;
	}
	wsl_assign(&(struct wsl_assign_in){.ctx = ctx, .q = q, .pend = pend, .np = np, .hints = m->hints,
					   .n_hints = m->n_hints},
		   o);
	for (int c = 0; c < q; c++) {
		bool sure = o->agree[c] && !unsure;
		set_owner(m, &a->t[c], o->shown[c] == WSL_FOREIGN ? WSL_FOREIGN : pend[o->shown[c]].slot, sure);
		certain &= sure;
		if (sure && o->shown[c] == WSL_FOREIGN)
			hint_add(m, wsl_ctx_size(&ctx[c])); /* only a certain foreign size is a hint */
	}
	if (!unsure)
		keep_group(m, a, q, pend, o, certain);
	free(o);
}

/* What the alignment pays if this context vanished (the classes of WSL_VANISH).
 * A '?' owner is only one of the possibilities: the cheapest class of all its
 * match's kept assignments counts, so that a wrong guess steers nothing. */
static uint64_t vanish_cost(const struct wsl_matcher *m, const struct wsl_tracked *t)
{
	bool dead = t->proc >= 0 && !m->procs[t->proc].alive;

	if (t->matched) {
		if (t->owner == WSL_OWNER_FOREIGN)
			return WSL_VANISH;
		if (dead || t->owner == WSL_OWNER_EXITED)
			return WSL_GONE;
		return t->established ? WSL_EST_LOST : WSL_LIVE_VANISH;
	}
	if (dead || t->owner == WSL_OWNER_EXITED)
		return WSL_MAYBE_GONE;
	if (t->group < 0 || !m->groups[t->group].used || m->groups[t->group].frozen)
		return WSL_VANISH;
	const struct wsl_group *g = &m->groups[t->group];
	int col = wsl_group_col(g, t->uid);
	uint64_t c = WSL_LIVE_VANISH;
	for (int k = 0; col >= 0 && k < g->n_alts; k++) {
		int o = g->own[k][col];
		if (o >= 0 && !m->procs[o].alive)
			return WSL_MAYBE_GONE;
		if (o == WSL_FOREIGN)
			c = WSL_VANISH;
	}
	return c;
}

static int count_fresh(const struct wsl_matcher *m, const struct wsl_adapter_state *a, bool startup)
{
	int n = 0;
	for (int i = 0; i < WSL_PROC_SLOTS; i++)
		n += m->procs[i].used && m->procs[i].alive && !startup && m->procs[i].first_tick == m->tick &&
		     !owns_here(a, i);
	return n;
}

static void adapter_tick(struct wsl_matcher *m, struct wsl_adapter_state *a, const struct wsl_adapter_ctxs *h,
			 bool startup, uint64_t since)
{
	struct wsl_align al;
	int q;

	for (int i = 0; i < a->n; i++) {
		struct wsl_tracked *t = &a->t[i];
		t->vanish_cost = vanish_cost(m, t);
		t->zero_only = t->owner == WSL_OWNER_PROC && m->procs[t->proc].alive && m->procs[t->proc].nvml_only;
	}
	wsl_align(m, a, h, count_fresh(m, a, startup), &al);
	wsl_moves(m, a, h, &al, since);
	apply_alignment(m, a, h, &al);
	q = al.n_new;
	for (int i = q; i < a->n; i++) /* exits: held aside, never offered again */
		if (a->t[i].owner == WSL_OWNER_PROC && !m->procs[a->t[i].proc].alive)
			a->t[i].owner = WSL_OWNER_EXITED;
	for (int gi = 0; gi < WSL_MAX_GROUPS; gi++)
		if (m->groups[gi].used && !m->groups[gi].frozen)
			for (int i = q; i < a->n; i++)
				if (a->t[i].group == gi) {
					group_show(m, a, gi);
					break;
				}
	if (q > 0)
		match_new(m, a, q, startup, al.any_unsure);
	for (int i = 0; i < a->n; i++) {
		struct wsl_tracked *t = &a->t[i];
		t->star_ticks = t->matched && t->owner == WSL_OWNER_PROC ? t->star_ticks + 1 : 0;
		if (t->star_ticks >= 2)
			t->established = true;
		if (!t->matched || t->owner != WSL_OWNER_PROC)
			t->established = t->established && t->owner == WSL_OWNER_EXITED;
	}
}

/* Exited processes no context refers to any more are forgotten. */
static void forget_exited(struct wsl_matcher *m)
{
	bool ref[WSL_PROC_SLOTS] = {false};

	for (int k = 0; k < WSL_MAX_ADAPTERS; k++)
		for (int i = 0; i < m->ad[k].n; i++)
			if (m->ad[k].t[i].proc >= 0)
				ref[m->ad[k].t[i].proc] = true;
	for (int g = 0; g < WSL_MAX_GROUPS; g++)
		for (int a = 0; m->groups[g].used && a < m->groups[g].n_alts; a++)
			for (int c = 0; c < m->groups[g].n_ctx; c++)
				if (m->groups[g].own[a][c] >= 0)
					ref[m->groups[g].own[a][c]] = true;
	for (int i = 0; i < WSL_PROC_SLOTS; i++)
		if (m->procs[i].used && !m->procs[i].alive && !ref[i])
			m->procs[i].used = false;
}

void wsl_match_tick(struct wsl_matcher *m, const struct wsl_tick *t, struct wsl_result *out)
{
	int ad_of[WSL_MAX_ADAPTERS];
	bool used[WSL_MAX_ADAPTERS] = {false};
	bool startup;

	m->tick++;
	startup = maybe_reset(m, t);
	uint64_t since = wsl_sample_note(m, t->sample_seq);
	update_procs(m, t);
	for (int k = 0; k < WSL_MAX_ADAPTERS; k++)
		ad_of[k] = -1;
	for (int k = 0; k < t->n_adapters && k < WSL_MAX_ADAPTERS; k++) {
		struct wsl_adapter_state *a = adapter_for(m, t->adapters[k].luid);
		if (!a)
			continue;
		ad_of[k] = (int)(a - m->ad);
		used[ad_of[k]] = true;
		adapter_tick(m, a, &t->adapters[k], startup, since);
	}
	for (int k = 0; k < WSL_MAX_ADAPTERS; k++)
		if (!used[k])
			m->ad[k].used = false, m->ad[k].n = 0;
	forget_exited(m);
	wsl_match_emit(m, t, ad_of);
	out->rows = m->rows;
	out->n_rows = m->n_rows;
	out->reset = startup;
}
