/* identify_process: runtimes → model files → installed candidates → llama.cpp
 * flags → category, for one snapshot row. */
#include "identify/ident.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "identify/category.h"
#include "identify/ident_internal.h"
#include "identify/magic_cache.h"
#include "identify/model_files.h"
#include "identify/runtimes.h"
#include "identify/stores.h"

/* Installed candidates listed per process; the rest are counted. */
#define IDENT_MAX_INSTALLED 8

/* What identify_process concluded for one (PID, start time, detail) with a
 * given shape of GPU use. A steady refresh hands out a copy of it: the maps
 * scan and the category rules run again only when one of these changes. */
struct ident_memo {
	uint32_t pid;
	uint64_t start_time;
	struct gtm_proc_detail *detail; /* held: its address is not reused while kept */
	unsigned use_shape;
	uint64_t seen_gen;
	struct gtm_ident *ident;
};

struct identify_ctx {
	struct magic_cache *magic;
	struct runtime_maps_memo *maps_memo;
	identify_environ_fn load_environ;
	void *load_environ_arg;
	struct ident_memo *memo;  /* open addressing by pid; ident NULL = empty */
	size_t n_memo, cap_memo;
	uint64_t gen;
	bool one_shot;            /* no memo: there is no next refresh */
};

static const struct {
	const char *name, *text;
} category_names[IDENT_CAT_COUNT] = {
	[IDENT_CAT_OTHER] = {"other", "other"},
	[IDENT_CAT_AI] = {"ai", "AI"},
	[IDENT_CAT_COMPOSITOR] = {"compositor", "compositor"},
	[IDENT_CAT_BROWSER] = {"browser", "browser"},
	[IDENT_CAT_3D] = {"3d", "3D/game"},
	[IDENT_CAT_VIDEO] = {"video", "video"},
	[IDENT_CAT_COMPUTE] = {"compute", "compute"},
};

const char *ident_category_name(enum ident_category c)
{
	return (unsigned)c < IDENT_CAT_COUNT ? category_names[c].name : "other";
}

const char *ident_category_text(enum ident_category c)
{
	return (unsigned)c < IDENT_CAT_COUNT ? category_names[c].text : "other";
}

struct identify_ctx *identify_ctx_new(void)
{
	struct identify_ctx *c = xcalloc(1, sizeof *c);
	c->magic = magic_cache_new();
	c->maps_memo = runtime_maps_memo_new();
	return c;
}

void identify_set_environ_loader(struct identify_ctx *c, identify_environ_fn fn, void *arg)
{
	c->load_environ = fn;
	c->load_environ_arg = arg;
}

void identify_set_one_shot(struct identify_ctx *c)
{
	c->one_shot = true;
}

static void memo_clear(struct ident_memo *m)
{
	ident_free(m->ident);
	proc_detail_unref(m->detail);
	*m = (struct ident_memo){0};
}

void identify_ctx_free(struct identify_ctx *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap_memo; i++)
		memo_clear(&c->memo[i]);
	free(c->memo);
	magic_cache_free(c->magic);
	runtime_maps_memo_free(c->maps_memo);
	free(c);
}

struct gtm_ident *ident_new(void)
{
	return xcalloc(1, sizeof(struct gtm_ident));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct gtm_ident *ident_clone(const struct gtm_ident *src)
{
	struct gtm_ident *id = ident_new();

	*id = *src;
	id->runtimes = src->n_runtimes ? xcalloc((size_t)src->n_runtimes, sizeof *id->runtimes) : NULL;
	for (int i = 0; i < src->n_runtimes; i++) {
		id->runtimes[i] = src->runtimes[i];
		for (int k = 0; k < src->runtimes[i].n_evidence; k++)
			id->runtimes[i].evidence[k] = dup_or_null(src->runtimes[i].evidence[k]);
	}
	id->cap_models = src->n_models;
	id->models = src->n_models ? xcalloc((size_t)src->n_models, sizeof *id->models) : NULL;
	for (int i = 0; i < src->n_models; i++) {
		struct ident_model *m = &id->models[i];
		*m = src->models[i];
		m->path = dup_or_null(m->path);
		m->name = dup_or_null(m->name);
		m->error = dup_or_null(m->error);
		for (int e = 0; e < MODEL_EV_COUNT; e++)
			m->evidence_detail[e] = dup_or_null(m->evidence_detail[e]);
	}
	if (src->flags) {
		id->flags = xmalloc(sizeof *id->flags);
		llama_flags_copy(id->flags, src->flags);
	}
	return id;
}

/* The facts of GPU use that the category rules read. */
static unsigned use_shape(const struct gtm_process *p)
{
	unsigned s = p->n_uses > 0 ? 1u : 0u;
	for (int i = 0; i < p->n_uses; i++) {
		const struct gtm_gpu_use *u = &p->uses[i];
		s |= (u->compute ? 2u : 0u) | (u->graphics ? 4u : 0u);
		s |= gtm_f64_ok(u->enc_pct) && u->enc_pct.v > 0 ? 8u : 0u;
		s |= gtm_f64_ok(u->dec_pct) && u->dec_pct.v > 0 ? 16u : 0u;
		s |= gtm_f64_ok(u->gfx_pct) && u->gfx_pct.v > 0 ? 32u : 0u;
	}
	return s;
}

static struct ident_memo *memo_slot(struct identify_ctx *c, uint32_t pid)
{
	if (c->cap_memo == 0 || (c->n_memo + 1) * 2 > c->cap_memo) {
		/* grow: rehash the live entries */
		struct ident_memo *old = c->memo;
		size_t old_cap = c->cap_memo;
		c->cap_memo = old_cap ? old_cap * 2 : 64;
		c->memo = xcalloc(c->cap_memo, sizeof *c->memo);
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].ident) {
				size_t h = (old[i].pid * 2654435761u) & (c->cap_memo - 1);
				while (c->memo[h].ident)
					h = (h + 1) & (c->cap_memo - 1);
				c->memo[h] = old[i];
			}
		free(old);
	}
	size_t h = (pid * 2654435761u) & (c->cap_memo - 1);
	while (c->memo[h].ident && c->memo[h].pid != pid)
		h = (h + 1) & (c->cap_memo - 1);
	return &c->memo[h];
}

void ident_free(struct gtm_ident *id)
{
	if (!id)
		return;
	for (int i = 0; i < id->n_runtimes; i++)
		for (int k = 0; k < id->runtimes[i].n_evidence; k++)
			free(id->runtimes[i].evidence[k]);
	free(id->runtimes);
	for (int i = 0; i < id->n_models; i++)
		ident_model_clear(&id->models[i]);
	free(id->models);
	if (id->flags)
		llama_flags_free(id->flags);
	free(id->flags);
	free(id);
}

const struct ident_runtime *ident_find_trait(const struct gtm_ident *id, unsigned trait)
{
	for (int i = 0; id && i < id->n_runtimes; i++)
		if (id->runtimes[i].traits & trait)
			return &id->runtimes[i];
	return NULL;
}

const struct ident_runtime *ident_find_runtime(const struct gtm_ident *id, const char *rt_id)
{
	for (int i = 0; id && i < id->n_runtimes; i++)
		if (!strcmp(id->runtimes[i].id, rt_id))
			return &id->runtimes[i];
	return NULL;
}

bool ident_is_ai(const struct gtm_ident *id)
{
	return id && id->category == IDENT_CAT_AI;
}

static unsigned ident_traits(const struct gtm_ident *id)
{
	unsigned traits = 0;
	for (int i = 0; i < id->n_runtimes; i++)
		traits |= id->runtimes[i].traits;
	return traits;
}

/* Store models with no other evidence, as candidates "not proven loaded". */
static void add_installed(const struct gtm_process *p, struct gtm_ident *id)
{
	struct store_candidate cand[IDENT_MAX_INSTALLED];
	unsigned traits = ident_traits(id);
	int more = 0, n;

	if (!p->detail || !(traits & (RT_T_STORE_OLLAMA | RT_T_STORE_LMSTUDIO)))
		return;
	n = stores_installed(p->detail, traits, cand, IDENT_MAX_INSTALLED, &more);
	id->n_installed_omitted = more;
	for (int i = 0; i < n; i++) {
		struct stat st;
		bool have_st = sysroot_stat(&st, "%s", cand[i].path) == 0;
		if (have_st && !ident_find_model(id, cand[i].path, &st) && id->n_models < IDENT_MAX_MODELS) {
			struct ident_model *m = ident_new_model(id);
			m->path = cand[i].path;
			m->name = cand[i].name;
			m->store = cand[i].store;
			m->role = cand[i].role;
			/* no header read: a candidate proves nothing and costs nothing */
			model_file_describe(m, false);
			ident_model_set_evidence(m, MODEL_EV_INSTALLED, NULL);
		} else {
			if (!have_st)
				id->n_installed_omitted++;
			free(cand[i].path);
			free(cand[i].name);
		}
	}
}

/* The llama.cpp flags of a llama.cpp-family process (its own command line). */
static void parse_flags(const struct gtm_process *p, struct gtm_ident *id)
{
	const char *cmd = NULL;
	int ci;

	if (!p->detail || !ident_find_trait(id, RT_T_LLAMA_FLAGS))
		return;
	if ((ci = runtimes_command(p->detail, &cmd)) < 0)
		return;
	id->flags = xmalloc(sizeof *id->flags);
	llama_flags_init(id->flags);
	llama_flags_parse(id->flags, p->detail->argc, p->detail->argv, ci + 1);
}

/* Every fresh identification's number: collectors may run on several threads. */
static _Atomic uint64_t ident_stamps;

static struct gtm_ident *identify_fresh(struct identify_ctx *c, struct gtm_process *p)
{
	struct gtm_ident *id = ident_new();

	runtimes_detect_memo(c->maps_memo, p, id);
	/* stores and caches are found through the environment: a store's
	 * runtime's (OLLAMA_MODELS, LM Studio's folders), and the HF cache of a
	 * command line that names a repo (a renamed server); nothing else here
	 * reads it (explain loads it for the rows it explains) */
	if (c->load_environ && p->detail && (ident_traits(id) & (RT_T_STORE_OLLAMA | RT_T_STORE_LMSTUDIO) ||
					     model_files_names_hf(p->detail)))
		c->load_environ(c->load_environ_arg, p);
	model_files_collect(c->magic, p, id);
	add_installed(p, id);
	parse_flags(p, id);
	category_assign(p, id);
	ident_sort_models(id);
	id->stamp = atomic_fetch_add(&ident_stamps, 1) + 1;
	return id;
}

void identify_process(struct identify_ctx *c, struct gtm_process *p)
{
	struct gtm_ident *id;
	struct ident_memo *m = p->pid && p->detail && !c->one_shot ? memo_slot(c, p->pid) : NULL;
	unsigned shape = use_shape(p);

	if (!gtm_ident_free_hook)
		gtm_ident_free_hook = ident_free;
	if (m && m->ident && m->start_time == p->start_time && m->detail == p->detail && m->use_shape == shape) {
		id = ident_clone(m->ident);
		m->seen_gen = c->gen;
	} else {
		id = identify_fresh(c, p);
		if (m) {
			if (!m->ident)
				c->n_memo++;
			memo_clear(m);
			*m = (struct ident_memo){p->pid, p->start_time, proc_detail_ref(p->detail), shape, c->gen,
						 ident_clone(id)};
		}
	}
	if (p->ident)
		ident_free(p->ident);
	p->ident = id;
}

void identify_refresh_done(struct identify_ctx *c)
{
	magic_cache_next_refresh(c->magic);
	/* Forget processes this refresh did not see; rebuild when too few slots are free. */
	struct ident_memo *old = c->memo;
	size_t old_cap = c->cap_memo, live = 0;

	for (size_t i = 0; i < old_cap; i++)
		if (old[i].ident && old[i].seen_gen == c->gen)
			live++;
	c->gen++;
	if (live == c->n_memo && c->n_memo * 2 < c->cap_memo)
		return;
	c->cap_memo = 64;
	while (c->cap_memo < live * 4)
		c->cap_memo *= 2;
	c->memo = xcalloc(c->cap_memo, sizeof *c->memo);
	c->n_memo = 0;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].ident)
			continue;
		if (old[i].seen_gen != c->gen - 1) {
			memo_clear(&old[i]);
			continue;
		}
		*memo_slot(c, old[i].pid) = old[i];
		c->n_memo++;
	}
	free(old);
}
