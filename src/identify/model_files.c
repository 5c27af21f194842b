/* Model files from the command line and the maps. Paths are the process's
 * view, read through core/sysroot: as they are under "/", inside the tree
 * under GPUTASKMAN_ROOT (a replay never reads the host's models). A file counts as
 * a model by its GGUF magic, never its name: a readable file that is not GGUF
 * is dropped. A command-line model the runtime reads but we cannot (another
 * mount namespace, permissions) is kept with the reason. */
#include "identify/model_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "portable.h"
#include "identify/hf_cache.h"
#include "identify/ident_internal.h"
#include "identify/runtimes.h"
#include "identify/stores.h"
#include "llm/gguf.h"
#include "llm/safetensors.h"

enum flag_kind {
	MF_PATH,      /* one path */
	MF_PATH_LIST, /* comma-separated paths (--lora a.gguf,b.gguf) */
	MF_HF_REPO,   /* org/repo[:quant] in the HF cache */
	MF_HF_FILE,   /* the file within the -hf repo */
	MF_NO_MMPROJ, /* no value: -hf loads no projector */
};

/* llama.cpp common/arg.cpp and stable-diffusion.cpp's CLI; ollama's runner takes --model. */
static const struct model_flag {
	const char *flag;
	enum model_role role;
	enum flag_kind kind;
} model_flags[] = {
	{"-m", MODEL_ROLE_MODEL, MF_PATH},
	{"--model", MODEL_ROLE_MODEL, MF_PATH},
	{"-md", MODEL_ROLE_DRAFT, MF_PATH},
	{"--model-draft", MODEL_ROLE_DRAFT, MF_PATH},
	{"-mm", MODEL_ROLE_MMPROJ, MF_PATH},
	{"--mmproj", MODEL_ROLE_MMPROJ, MF_PATH},
	{"--lora", MODEL_ROLE_LORA, MF_PATH_LIST},
	{"--lora-scaled", MODEL_ROLE_LORA, MF_PATH},
	{"--diffusion-model", MODEL_ROLE_DIFFUSION, MF_PATH},
	{"--vae", MODEL_ROLE_VAE, MF_PATH},
	{"--clip_l", MODEL_ROLE_CLIP_L, MF_PATH},
	{"--t5xxl", MODEL_ROLE_T5XXL, MF_PATH},
	{"-hf", MODEL_ROLE_MODEL, MF_HF_REPO},
	{"-hfr", MODEL_ROLE_MODEL, MF_HF_REPO},
	{"--hf-repo", MODEL_ROLE_MODEL, MF_HF_REPO},
	{"-hfd", MODEL_ROLE_DRAFT, MF_HF_REPO},
	{"-hfrd", MODEL_ROLE_DRAFT, MF_HF_REPO},
	{"--hf-repo-draft", MODEL_ROLE_DRAFT, MF_HF_REPO},
	{"-hff", MODEL_ROLE_MODEL, MF_HF_FILE},
	{"--hf-file", MODEL_ROLE_MODEL, MF_HF_FILE},
	{"--no-mmproj", MODEL_ROLE_MMPROJ, MF_NO_MMPROJ},
};

struct cmdline_scan {
	struct magic_cache *mc;
	const struct gtm_process *p;
	struct gtm_ident *id;
	bool gguf_runtime;   /* the process runs a runtime that reads GGUF */
	const char *hf_repo[2]; /* model, draft */
	const char *hf_file;
	bool no_mmproj;
};

/* A file of the Hugging Face cache: which repo, revision, file and shard. */
static void describe_hf(struct ident_model *m)
{
	struct hf_cache_file f;
	if (m->hf_label[0] || !path_find(m->path, "/models--") || !hf_cache_identify(m->path, &f))
		return;
	hf_cache_label(&f, m->hf_label, sizeof m->hf_label);
	str_copy(m->hf_file, f.file, sizeof m->hf_file);
	m->hf_shard = f.shard;
	m->hf_shards = f.n_shards;
}

/* A safetensors header's summary: parameters, bytes, the main dtype. */
static void describe_safetensors(struct ident_model *m)
{
	struct st_header *h;
	char err[256];
	if (st_read_file(m->path, true, &h, err, sizeof err) != ST_OK) {
		free(m->error);
		m->error = xstrdup(err);
		return;
	}
	m->have_st = true;
	m->st_params = h->n_params;
	m->st_tensor_bytes = h->data_len;
	m->st_incomplete = !st_header_complete(h);
	uint64_t best = 0;
	for (int d = 0; d < ST_DTYPE_COUNT; d++)
		if (h->by_dtype[d].bytes > best) {
			best = h->by_dtype[d].bytes;
			str_copy(m->st_dtype, st_dtype_name((enum st_dtype)d), sizeof m->st_dtype);
		}
	st_header_free(h);
}

/* A mapped file worth sniffing for the safetensors magic: by name, or a
 * nameless blob of the Hugging Face cache. */
static bool may_be_safetensors(const char *path)
{
	return str_ends(path, ".safetensors") || (path_find(path, "/models--") && path_find(path, "/blobs/"));
}

void model_file_describe(struct ident_model *m, bool read_header)
{
	struct stat st;
	char err[256];

	if (!m->path)
		return;
	if (sysroot_stat(&st, "%s", m->path) == 0) {
		m->have_file_id = true;
		m->dev = (uint64_t)st.st_dev;
		m->ino = (uint64_t)st.st_ino;
		m->file_size = gtm_u64_of((uint64_t)st.st_size, GTM_MEASURED);
	} else if (!m->error) {
		snprintf(err, sizeof err, "cannot read %s: %s", m->path, strerror(errno));
		m->error = xstrdup(err);
	}
	if (!m->name) {
		enum model_role role = m->role;
		stores_name_model(m->path, &m->name, &m->store, &role);
		if (m->role == MODEL_ROLE_MODEL)
			m->role = role;
	}
	describe_hf(m);
	if (!read_header || m->have_info || m->have_st || !m->have_file_id)
		return;
	if (m->format == MODEL_FORMAT_SAFETENSORS) {
		describe_safetensors(m);
		return;
	}
	struct gguf_header *h = gguf_cache_get_observed(m->path, err, sizeof err);
	if (!h) {
		free(m->error);
		m->error = xstrdup(err);
		return;
	}
	gguf_model_info_get(h, m->path, m->store != MODEL_STORE_NONE ? m->name : NULL, &m->info);
	m->have_info = true;
	gguf_header_unref(h);
}

/* cwd + separator + path for a relative path; NULL when it cannot be resolved. */
static char *resolve_path(const struct gtm_proc_detail *d, const char *path)
{
	char buf[4096];
	if (os_path_absolute(path))
		return xstrdup(path);
	if (!d->cwd || (size_t)snprintf(buf, sizeof buf, "%s%c%s", d->cwd, OS_PATH_SEP, path) >= sizeof buf)
		return NULL;
	return xstrdup(buf);
}

static void add_named_file(struct cmdline_scan *s, const char *raw, enum model_role role, const char *flag)
{
	struct stat st;
	char *path = resolve_path(s->p->detail, raw);
	bool readable;

	if (!path || s->id->n_models >= IDENT_MAX_MODELS) {
		free(path);
		return;
	}
	readable = sysroot_stat(&st, "%s", path) == 0;
	/* by magic, not name: a readable file that is not GGUF is no model here */
	if ((readable && !magic_cache_is_gguf(s->mc, path, NULL)) || (!readable && !s->gguf_runtime)) {
		free(path);
		return;
	}
	struct ident_model *m = ident_find_model(s->id, path, readable ? &st : NULL);
	if (!m) {
		m = ident_new_model(s->id);
		m->path = path;
		m->role = role;
		model_file_describe(m, true);
	} else {
		free(path);
	}
	ident_model_set_evidence(m, MODEL_EV_CMDLINE, flag);
}

static void add_flag_value(struct cmdline_scan *s, const struct model_flag *f, const char *v)
{
	switch (f->kind) {
	case MF_PATH:
		add_named_file(s, v, f->role, f->flag);
		break;
	case MF_PATH_LIST: {
		char *list = xstrdup(v), *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			add_named_file(s, tok, f->role, f->flag);
		free(list);
		break;
	}
	case MF_HF_REPO:
		s->hf_repo[f->role == MODEL_ROLE_DRAFT] = v;
		break;
	case MF_HF_FILE:
		s->hf_file = v;
		break;
	case MF_NO_MMPROJ:
		break;
	}
}

static const struct model_flag *flag_lookup(const char *arg, const char **inline_value)
{
	*inline_value = NULL;
	for (size_t i = 0; i < ARRAY_LEN(model_flags); i++) {
		size_t n = strlen(model_flags[i].flag);
		if (strncmp(arg, model_flags[i].flag, n) != 0)
			continue;
		if (arg[n] == '\0')
			return &model_flags[i];
		if (arg[n] == '=' && model_flags[i].kind != MF_NO_MMPROJ) {
			*inline_value = arg + n + 1;
			return &model_flags[i];
		}
	}
	return NULL;
}

bool model_files_names_hf(const struct gtm_proc_detail *d)
{
	const char *cmd = NULL, *v;
	int start = runtimes_command(d, &cmd) + 1;

	for (int i = start; i > 0 && i < d->argc; i++) {
		const struct model_flag *f = flag_lookup(d->argv[i], &v);
		if (f && f->kind == MF_HF_REPO)
			return true;
	}
	return false;
}

static void resolve_hf(struct cmdline_scan *s)
{
	char path[4096], detail[300];
	const struct gtm_proc_detail *d = s->p->detail;

	for (int draft = 0; draft < 2; draft++) {
		const char *spec = s->hf_repo[draft];
		if (!spec)
			continue;
		snprintf(detail, sizeof detail, "%s %s", draft ? "-hfd" : "-hf", spec);
		if (stores_hf_resolve(d, spec, draft ? NULL : s->hf_file, false, path, sizeof path))
			add_named_file(s, path, draft ? MODEL_ROLE_DRAFT : MODEL_ROLE_MODEL, detail);
		/* llama.cpp fetches the repo's projector with -hf unless --no-mmproj */
		if (!draft && !s->no_mmproj && stores_hf_resolve(d, spec, NULL, true, path, sizeof path))
			add_named_file(s, path, MODEL_ROLE_MMPROJ, detail);
	}
}

static void scan_cmdline(struct cmdline_scan *s)
{
	const struct gtm_proc_detail *d = s->p->detail;
	const char *cmd = NULL;
	int start = runtimes_command(d, &cmd) + 1;

	/* `vllm serve MODEL`: a positional model, a file only when it is a GGUF */
	if (start > 0 && cmd && !strcmp(cmd, "vllm") && start + 1 < d->argc && !strcmp(d->argv[start], "serve") &&
	    d->argv[start + 1][0] != '-')
		add_named_file(s, d->argv[start + 1], MODEL_ROLE_MODEL, "vllm serve");
	for (int i = start; i > 0 && i < d->argc; i++) {
		const char *v;
		const struct model_flag *f = flag_lookup(d->argv[i], &v);
		if (!f)
			continue;
		if (f->kind == MF_NO_MMPROJ) {
			s->no_mmproj = true;
			continue;
		}
		if (!v && i + 1 < d->argc)
			v = d->argv[++i];
		if (v && v[0])
			add_flag_value(s, f, v);
	}
	resolve_hf(s);
}

static bool map_may_be_model(const struct gtm_proc_detail *d, const char *path)
{
	static const char *const skip_prefixes[] = {"/dev/", "/proc/", "/sys/", "/memfd:", "/SYSV"};
	if (!os_path_absolute(path) || str_ends(path, " (deleted)") || runtimes_is_shared_object(path_base(path)))
		return false;
	for (size_t i = 0; i < ARRAY_LEN(skip_prefixes); i++)
		if (str_starts(path, skip_prefixes[i]))
			return false;
	return !d->exe || strcmp(d->exe, path) != 0;
}

/* A model file deleted (or replaced) while mapped: its magic cannot be read,
 * so it counts only when the command line named that path or it is an Ollama
 * blob, and it keeps the reason. The kernel appends " (deleted)" (proc(5)). */
static void scan_deleted_map(const char *map, struct gtm_ident *id)
{
	static const char suffix[] = " (deleted)";
	char *path = xstrndup(map, strlen(map) - (sizeof suffix - 1));
	struct ident_model *m = ident_find_model(id, path, NULL);

	if (!m && strstr(path, "/blobs/sha256-") && id->n_models < IDENT_MAX_MODELS) {
		m = ident_new_model(id);
		m->path = xstrdup(path);
		model_file_describe(m, false);
	}
	if (m) {
		free(m->error);
		m->error = xstrdup("the file was deleted or replaced after it was mapped; its header is not read");
		ident_model_set_evidence(m, MODEL_EV_MAPPED, "deleted");
	}
	free(path);
}

static void scan_maps(struct magic_cache *mc, const struct gtm_proc_detail *d, struct gtm_ident *id)
{
	struct stat st;
	bool gguf_runtime = ident_find_trait(id, RT_T_GGUF) != NULL;
	for (size_t i = 0; i < d->n_maps && id->n_models < IDENT_MAX_MODELS; i++) {
		const char *path = d->maps[i];
		if (gguf_runtime && os_path_absolute(path) && str_ends(path, " (deleted)") &&
		    !runtimes_is_shared_object(path_base(path)))
			scan_deleted_map(path, id);
		if (!map_may_be_model(d, path))
			continue;
		enum model_format fmt = MODEL_FORMAT_GGUF;
		if (!magic_cache_is_gguf(mc, path, &st)) {
			if (!may_be_safetensors(path) || sysroot_stat(&st, "%s", path) != 0 || !st_file_is_safetensors(path, true))
				continue;
			fmt = MODEL_FORMAT_SAFETENSORS;
		}
		struct ident_model *m = ident_find_model(id, path, &st);
		if (!m) {
			m = ident_new_model(id);
			m->path = xstrdup(path);
			m->format = fmt;
			model_file_describe(m, true);
		}
		ident_model_set_evidence(m, MODEL_EV_MAPPED, NULL);
	}
}

void model_files_collect(struct magic_cache *mc, const struct gtm_process *p, struct gtm_ident *id)
{
	struct cmdline_scan s = {.mc = mc, .p = p, .id = id, .gguf_runtime = ident_find_trait(id, RT_T_GGUF) != NULL};

	if (!p->detail)
		return;
	scan_cmdline(&s);
	scan_maps(mc, p->detail, id);
	/* A projector the command line did not name is still a projector. */
	for (int i = 0; i < id->n_models; i++) {
		struct ident_model *m = &id->models[i];
		if (!(m->evidence & (1u << MODEL_EV_CMDLINE)) && m->have_info &&
		    m->info.kind == GGUF_KIND_VISION_PROJECTOR && m->role == MODEL_ROLE_MODEL)
			m->role = MODEL_ROLE_MMPROJ;
	}
}
