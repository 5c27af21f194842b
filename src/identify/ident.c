/* identify_process: runtimes → model files → installed candidates → llama.cpp
 * flags → category, for one snapshot row. */
#include "identify/ident.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "identify/category.h"
#include "identify/ident_internal.h"
#include "identify/magic_cache.h"
#include "identify/model_files.h"
#include "identify/runtimes.h"
#include "identify/stores.h"

/* Installed candidates listed per process; the rest are counted. */
#define IDENT_MAX_INSTALLED 8

struct identify_ctx {
	struct magic_cache *magic;
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
	return c;
}

void identify_ctx_free(struct identify_ctx *c)
{
	if (!c)
		return;
	magic_cache_free(c->magic);
	free(c);
}

struct gtm_ident *ident_new(void)
{
	return xcalloc(1, sizeof(struct gtm_ident));
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
	if (id->has_flags)
		llama_flags_free(&id->flags);
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

/* Store models with no other evidence, as candidates "not proven loaded". */
static void add_installed(const struct gtm_process *p, struct gtm_ident *id)
{
	struct store_candidate cand[IDENT_MAX_INSTALLED];
	unsigned traits = 0;
	int more = 0, n;

	for (int i = 0; i < id->n_runtimes; i++)
		traits |= id->runtimes[i].traits;
	if (!p->detail || !(traits & (RT_T_STORE_OLLAMA | RT_T_STORE_LMSTUDIO)))
		return;
	n = stores_installed(p->detail, traits, cand, IDENT_MAX_INSTALLED, &more);
	id->n_installed_omitted = more;
	for (int i = 0; i < n; i++) {
		struct stat st;
		bool have_st = stat(cand[i].path, &st) == 0;
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
	llama_flags_init(&id->flags);
	llama_flags_parse(&id->flags, p->detail->argc, p->detail->argv, ci + 1);
	id->has_flags = true;
}

void identify_process(struct identify_ctx *c, struct gtm_process *p)
{
	struct gtm_ident *id = ident_new();

	if (!gtm_ident_free_hook)
		gtm_ident_free_hook = ident_free;
	runtimes_detect(p, id);
	model_files_collect(c->magic, p, id);
	add_installed(p, id);
	parse_flags(p, id);
	category_assign(p, id);
	ident_sort_models(id);
	if (p->ident)
		ident_free(p->ident);
	p->ident = id;
}
