/* Evidence per model: adding and merging, strength order, "confirmed". */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "portable.h"
#include "identify/ident.h"
#include "identify/ident_internal.h"
#include "identify/model_files.h"

static const char *const evidence_names[MODEL_EV_COUNT] = {"api", "mapped", "opened", "cmdline", "installed", "log"};
static const char *const store_names[] = {"none", "ollama", "lmstudio", "hf"};
static const char *const role_names[MODEL_ROLE_COUNT] = {"model", "draft", "mmproj", "lora",
							 "diffusion", "vae", "clip_l", "t5xxl"};

const char *model_evidence_name(enum model_evidence e)
{
	return (unsigned)e < MODEL_EV_COUNT ? evidence_names[e] : "none";
}

const char *model_store_name(enum model_store s)
{
	return (unsigned)s < ARRAY_LEN(store_names) ? store_names[s] : "none";
}

const char *model_role_name(enum model_role r)
{
	return (unsigned)r < MODEL_ROLE_COUNT ? role_names[r] : "model";
}

static unsigned popcount(unsigned x)
{
	unsigned n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

bool ident_model_confirmed(const struct ident_model *m)
{
	unsigned strong = (1u << MODEL_EV_API) | (1u << MODEL_EV_MAPPED);
	return popcount(m->evidence) >= 2 && (m->evidence & strong);
}

bool ident_model_unproven(const struct ident_model *m)
{
	unsigned held = (1u << MODEL_EV_API) | (1u << MODEL_EV_MAPPED) | (1u << MODEL_EV_OPENED) | (1u << MODEL_EV_CMDLINE);
	return !(m->evidence & held);
}

const char *ident_model_alias(const struct gtm_ident *id, const struct ident_model *m)
{
	if (!id || !id->flags || !id->flags->alias || !id->flags->alias[0])
		return NULL;
	if (m->role != MODEL_ROLE_MODEL || !(m->evidence & (1u << MODEL_EV_CMDLINE)))
		return NULL;
	return id->flags->alias;
}

enum model_evidence ident_model_strongest(const struct ident_model *m)
{
	for (int e = 0; e < MODEL_EV_COUNT; e++)
		if (m->evidence & (1u << e))
			return (enum model_evidence)e;
	return MODEL_EV_COUNT;
}

/* Sort key: confirmed first, then by strongest evidence; unproven last. */
static int model_rank(const struct ident_model *m)
{
	int r = (int)ident_model_strongest(m) * 2 + (ident_model_confirmed(m) ? 0 : 1);
	return ident_model_unproven(m) ? r + 100 : r;
}

void ident_sort_models(struct gtm_ident *id)
{
	/* insertion sort: stable, and lists are short */
	for (int i = 1; i < id->n_models; i++) {
		struct ident_model m = id->models[i];
		int j = i;
		while (j > 0 && model_rank(&id->models[j - 1]) > model_rank(&m)) {
			id->models[j] = id->models[j - 1];
			j--;
		}
		id->models[j] = m;
	}
}

/* Names as runtimes report them: exact or differing in case (LM Studio
 * lower-cases keys), Ollama's implicit ":latest", a file name with or
 * without ".gguf". */
static bool name_matches(const struct ident_model *m, const char *name)
{
	size_t n = strlen(name);
	if (m->name && !strcasecmp(m->name, name))
		return true;
	if (m->name && !strncasecmp(m->name, name, n) && !strcmp(m->name + n, ":latest"))
		return true;
	if (m->path) {
		const char *b = path_base(m->path);
		if (!strcasecmp(b, name) || (!strncasecmp(b, name, n) && !strcasecmp(b + n, ".gguf")))
			return true;
	}
	return false;
}

struct ident_model *ident_find_model(struct gtm_ident *id, const char *path_or_name, const struct stat *st)
{
	bool is_path = os_path_has_sep(path_or_name);
	for (int i = 0; i < id->n_models; i++) {
		struct ident_model *m = &id->models[i];
		if (is_path && st && m->have_file_id && m->dev == (uint64_t)st->st_dev && m->ino == (uint64_t)st->st_ino)
			return m;
		if (is_path && m->path && !strcmp(m->path, path_or_name))
			return m;
		if (!is_path && name_matches(m, path_or_name))
			return m;
	}
	return NULL;
}

struct ident_model *ident_new_model(struct gtm_ident *id)
{
	size_t cap = (size_t)id->cap_models;
	id->models = grow_array(id->models, sizeof *id->models, &cap, (size_t)id->n_models);
	id->cap_models = (int)cap;
	struct ident_model *m = &id->models[id->n_models++];
	memset(m, 0, sizeof *m);
	m->file_size = GTM_U64_NA;
	return m;
}

void ident_model_set_evidence(struct ident_model *m, enum model_evidence ev, const char *detail)
{
	if ((unsigned)ev >= MODEL_EV_COUNT)
		return;
	m->evidence |= 1u << ev;
	if (detail && !m->evidence_detail[ev])
		m->evidence_detail[ev] = xstrdup(detail);
}

struct ident_model *ident_add_model_evidence_detail(struct gtm_ident *id, const char *path_or_name,
						    enum model_evidence ev, const char *detail)
{
	struct stat st;
	if (!id || !path_or_name || !path_or_name[0])
		return NULL;
	bool have_st = os_path_has_sep(path_or_name) && sysroot_stat(&st, "%s", path_or_name) == 0;
	struct ident_model *m = ident_find_model(id, path_or_name, have_st ? &st : NULL);
	if (!m && id->n_models >= IDENT_MAX_MODELS)
		return NULL;
	char *keep_detail = detail ? xstrdup(detail) : NULL; /* detail may point into a model we move */

	id->stamp = 0; /* no longer what its identification found */

	if (!m) {
		m = ident_new_model(id);
		if (os_path_has_sep(path_or_name)) {
			m->path = xstrdup(path_or_name);
			model_file_describe(m, true);
		} else {
			m->name = xstrdup(path_or_name);
		}
	}
	ident_model_set_evidence(m, ev, keep_detail);
	free(keep_detail);
	/* the list stays strongest-first; find the model again after sorting */
	char *key = xstrdup(m->path ? m->path : m->name);
	ident_sort_models(id);
	for (int i = 0; i < id->n_models; i++)
		if ((id->models[i].path && !strcmp(id->models[i].path, key)) ||
		    (!id->models[i].path && id->models[i].name && !strcmp(id->models[i].name, key)))
			m = &id->models[i];
	free(key);
	return m;
}

struct ident_model *ident_add_model_evidence(struct gtm_ident *id, const char *path_or_name,
					     enum model_evidence ev)
{
	return ident_add_model_evidence_detail(id, path_or_name, ev, NULL);
}

void ident_model_clear(struct ident_model *m)
{
	free(m->path);
	free(m->name);
	free(m->error);
	for (int e = 0; e < MODEL_EV_COUNT; e++)
		free(m->evidence_detail[e]);
}
