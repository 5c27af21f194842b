#include "ident_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "gguf_writer.h"
#include "llm/ggml_types.h"

static char **dup_list(const char *const *l, int *n)
{
	int k = 0;
	while (l && l[k])
		k++;
	char **v = xcalloc((size_t)k + 1, sizeof *v);
	for (int i = 0; i < k; i++)
		v[i] = xstrdup(l[i]);
	*n = k;
	return v;
}

struct gtm_process *tf_process(const char *comm, const char *const *argv, const char *exe, const char *cwd,
			       const char *const *maps, const char *const *env)
{
	struct gtm_process *p = xcalloc(1, sizeof *p);
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	int n;

	atomic_init(&d->refs, 1);
	str_copy(p->name, comm ? comm : "", sizeof p->name);
	p->pid = 4242;
	d->argv = dup_list(argv, &d->argc);
	d->exe = exe ? xstrdup(exe) : NULL;
	d->cwd = cwd ? xstrdup(cwd) : NULL;
	d->maps = dup_list(maps, &n);
	d->n_maps = (size_t)n;
	if (env) {
		size_t len = 0;
		for (int i = 0; env[i]; i++)
			len += strlen(env[i]) + 1;
		char *blob = xmalloc(len + 1);
		len = 0;
		for (int i = 0; env[i]; i++) {
			memcpy(blob + len, env[i], strlen(env[i]) + 1);
			len += strlen(env[i]) + 1;
		}
		proc_detail_set_environ(d, blob, len);
		free(blob);
	}
	p->detail = d;
	return p;
}

struct gtm_process *tf_process_cmdline(const char *comm, const char *cmdline, const char *exe, const char *cwd,
				       const char *const *maps, const char *const *env)
{
	char *copy = xstrdup(cmdline), *save = NULL;
	const char *argv[128];
	int n = 0;
	for (char *t = strtok_r(copy, " \n", &save); t && n < 127; t = strtok_r(NULL, " \n", &save))
		argv[n++] = t;
	argv[n] = NULL;
	struct gtm_process *p = tf_process(comm, argv, exe, cwd, maps, env);
	free(copy);
	return p;
}

void tf_add_map(struct gtm_process *p, const char *path)
{
	struct gtm_proc_detail *d = p->detail;
	d->maps = xrealloc(d->maps, (d->n_maps + 2) * sizeof *d->maps);
	d->maps[d->n_maps++] = xstrdup(path);
	d->maps[d->n_maps] = NULL;
}

void tf_process_free(struct gtm_process *p)
{
	if (!p)
		return;
	proc_detail_unref(p->detail);
	if (p->ident)
		ident_free(p->ident);
	free(p->uses);
	free(p);
}

const struct gtm_ident *tf_identify(struct gtm_process *p)
{
	struct identify_ctx *c = identify_ctx_new();
	identify_process(c, p);
	identify_ctx_free(c);
	return p->ident;
}

void tf_write_gguf(const char *path, const char *arch)
{
	struct gw *w = gw_new();
	char key[96];

	gw_str(w, "general.architecture", arch);
	gw_str(w, "general.name", "tiny test model");
	gw_u32(w, "general.file_type", 1);
	snprintf(key, sizeof key, "%s.block_count", arch);
	gw_u32(w, key, 2);
	snprintf(key, sizeof key, "%s.context_length", arch);
	gw_u32(w, key, 4096);
	snprintf(key, sizeof key, "%s.embedding_length", arch);
	gw_u32(w, key, 64);
	snprintf(key, sizeof key, "%s.attention.head_count", arch);
	gw_u32(w, key, 4);
	snprintf(key, sizeof key, "%s.attention.head_count_kv", arch);
	gw_u32(w, key, 2);
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 64, 256);
	gw_tensor2(w, "blk.0.attn_q.weight", GGML_T_F16, 64, 64);
	gw_tensor2(w, "blk.1.attn_q.weight", GGML_T_F16, 64, 64);
	if (gw_write_file(w, path) != 0)
		abort();
	gw_free(w);
}

void tf_write_mmproj(const char *path)
{
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "clip");
	gw_bool(w, "clip.has_vision_encoder", true);
	gw_tensor2(w, "v.patch_embd.weight", GGML_T_F16, 16, 16);
	if (gw_write_file(w, path) != 0)
		abort();
	gw_free(w);
}

const struct ident_runtime *tf_runtime(const struct gtm_ident *id, const char *rt_id)
{
	return ident_find_runtime(id, rt_id);
}

const struct ident_model *tf_model(const struct gtm_ident *id, const char *suffix)
{
	for (int i = 0; i < id->n_models; i++) {
		const char *s = id->models[i].path ? id->models[i].path : id->models[i].name;
		if (s && str_ends(s, suffix))
			return &id->models[i];
	}
	return NULL;
}
