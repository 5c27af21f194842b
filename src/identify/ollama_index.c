/* Ollama's store: manifests/<registry>/<namespace>/<model>/<tag> are JSON
 * image manifests whose layers name blobs by digest; the GGUF is the layer of
 * mediaType application/vnd.ollama.image.model, its file blobs/sha256-<hex>
 * (ollama manifest/paths.go; llm-memory.md §7). One index per models folder,
 * shared and rebuilt when a folder it read changes. */
#include "identify/ollama_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "identify/dir_stamps.h"

#define OLLAMA_MAX_INDEXES 8
#define OLLAMA_MAX_LAYERS 16

static const struct {
	const char *media_type;
	enum model_role role;
} layer_roles[] = {
	{"application/vnd.ollama.image.model", MODEL_ROLE_MODEL},
	{"application/vnd.ollama.image.projector", MODEL_ROLE_MMPROJ},
	{"application/vnd.ollama.image.adapter", MODEL_ROLE_LORA},
};

struct ollama_entry {
	char hex[65];
	char *name;
	enum model_role role;
};

struct ollama_index {
	char *dir;
	struct ollama_entry *e;
	size_t n, cap;
	struct dir_stamps dirs;
	size_t budget;          /* directory entries and manifests left to read */
	uint64_t checked_ns;
};

static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ollama_index *indexes[OLLAMA_MAX_INDEXES];
static int n_indexes;

bool ollama_digest_hex(const char *s, char out[65])
{
	for (int i = 0; i < 64; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
		out[i] = c;
	}
	if (s[64] != '\0')
		return false;
	out[64] = '\0';
	return true;
}

/* "qwen3:14b" for registry.ollama.ai/library, "user/model:tag" for other
 * namespaces there, "registry/namespace/model:tag" elsewhere (Ollama's own display). */
void ollama_model_name(const char *registry, const char *ns, const char *model, const char *tag, char *out,
		       size_t n)
{
	if (!strcmp(registry, "registry.ollama.ai") && !strcmp(ns, "library"))
		snprintf(out, n, "%s:%s", model, tag);
	else if (!strcmp(registry, "registry.ollama.ai"))
		snprintf(out, n, "%s/%s:%s", ns, model, tag);
	else
		snprintf(out, n, "%s/%s/%s:%s", registry, ns, model, tag);
}

static char *read_small(const char *path, size_t cap, size_t *len)
{
	int fd = sysroot_open(O_RDONLY | O_NONBLOCK | O_NOCTTY, "%s", path);
	struct stat st;
	char *buf;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > cap) {
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

static void index_add(struct ollama_index *ix, const char hex[65], const char *name, enum model_role role)
{
	ix->e = grow_array(ix->e, sizeof *ix->e, &ix->cap, ix->n);
	struct ollama_entry *e = &ix->e[ix->n++];
	memcpy(e->hex, hex, 65);
	e->name = xstrdup(name);
	e->role = role;
}

size_t ollama_manifest_layers(const char *buf, size_t len, struct ollama_layer *out, size_t max)
{
	json_t *root = json_loadb(buf, len, 0, NULL), *layer;
	size_t i, n = 0;

	json_array_foreach(json_object_get(root, "layers"), i, layer) {
		const char *mt = json_string_value(json_object_get(layer, "mediaType"));
		const char *dg = json_string_value(json_object_get(layer, "digest"));
		if (n >= max)
			break;
		if (!mt || !dg || strncmp(dg, "sha256:", 7) != 0 || !ollama_digest_hex(dg + 7, out[n].hex))
			continue;
		for (size_t k = 0; k < ARRAY_LEN(layer_roles); k++)
			if (!strcmp(mt, layer_roles[k].media_type)) {
				out[n++].role = layer_roles[k].role;
				break;
			}
	}
	json_decref(root);
	return n;
}

static void index_manifest(struct ollama_index *ix, const char *path, const char *name)
{
	struct ollama_layer layers[OLLAMA_MAX_LAYERS];
	size_t len, n;
	char *buf = read_small(path, STORES_MAX_MANIFEST_BYTES, &len);

	if (!buf)
		return;
	n = ollama_manifest_layers(buf, len, layers, OLLAMA_MAX_LAYERS);
	free(buf);
	for (size_t i = 0; i < n; i++)
		index_add(ix, layers[i].hex, name, layers[i].role);
}

/* Walks manifests/<registry>/<namespace>/<model>/<tag>: level 0 is the
 * manifests folder, names[] holds the components so far. */
static void walk(struct ollama_index *ix, const char *path, int level, const char *names[4])
{
	DIR *dir;
	struct dirent *de;
	char child[4096];

	dir_stamps_add(&ix->dirs, path);
	if (!(dir = sysroot_opendir("%s", path)))
		return;
	while ((de = readdir(dir)) && ix->budget > 0) {
		if (de->d_name[0] == '.')
			continue;
		ix->budget--;
		if (snprintf(child, sizeof child, "%s/%s", path, de->d_name) >= (int)sizeof child)
			continue;
		names[level] = de->d_name;
		if (level < 3) {
			walk(ix, child, level + 1, names);
		} else {
			char name[512];
			ollama_model_name(names[0], names[1], names[2], names[3], name, sizeof name);
			index_manifest(ix, child, name);
		}
	}
	closedir(dir);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct ollama_entry *x = a, *y = b;
	return strcmp(x->name, y->name);
}

static void index_clear(struct ollama_index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->e[i].name);
	dir_stamps_clear(&ix->dirs);
	ix->n = 0;
}

static void index_free(struct ollama_index *ix)
{
	index_clear(ix);
	free(ix->e);
	dir_stamps_free(&ix->dirs);
	free(ix->dir);
	free(ix);
}

static void index_build(struct ollama_index *ix)
{
	char root[4096];
	const char *names[4] = {NULL, NULL, NULL, NULL};

	index_clear(ix);
	ix->budget = STORES_MAX_DIR_ENTRIES + STORES_MAX_MANIFESTS;
	snprintf(root, sizeof root, "%s/manifests", ix->dir);
	walk(ix, root, 0, names);
	if (ix->n > 1)
		qsort(ix->e, ix->n, sizeof *ix->e, entry_cmp);
}

/* The index of dir, built or refreshed as needed. Called with index_lock held. */
static struct ollama_index *index_get(const char *dir)
{
	struct ollama_index *ix = NULL;
	uint64_t now = now_monotonic_ns();

	for (int i = 0; i < n_indexes; i++)
		if (!strcmp(indexes[i]->dir, dir))
			ix = indexes[i];
	if (ix) {
		if (now - ix->checked_ns >= stores_recheck_ns() && dir_stamps_changed(&ix->dirs))
			index_build(ix);
		ix->checked_ns = now;
		return ix;
	}
	if (n_indexes == OLLAMA_MAX_INDEXES) {
		/* Oldest out: a machine with more stores than this is unusual. */
		index_free(indexes[0]);
		memmove(indexes, indexes + 1, sizeof indexes[0] * (OLLAMA_MAX_INDEXES - 1));
		n_indexes--;
	}
	ix = xcalloc(1, sizeof *ix);
	ix->dir = xstrdup(dir);
	index_build(ix);
	ix->checked_ns = now;
	indexes[n_indexes++] = ix;
	return ix;
}

char *ollama_blob_name(const char *models_dir, const char *hex, enum model_role *role)
{
	char *name = NULL;

	pthread_mutex_lock(&index_lock);
	struct ollama_index *ix = index_get(models_dir);
	/* Entries are in name order: the first match is the alphabetically first tag. */
	for (size_t i = 0; i < ix->n && !name; i++)
		if (!strcmp(ix->e[i].hex, hex)) {
			name = xstrdup(ix->e[i].name);
			if (role)
				*role = ix->e[i].role;
		}
	pthread_mutex_unlock(&index_lock);
	return name;
}

int ollama_list_models(const char *models_dir, struct store_candidate *out, int max, int *n_more)
{
	int n = 0;
	char path[4096];

	*n_more = 0;
	pthread_mutex_lock(&index_lock);
	struct ollama_index *ix = index_get(models_dir);
	for (size_t i = 0; i < ix->n; i++) {
		const struct ollama_entry *e = &ix->e[i];
		if (e->role != MODEL_ROLE_MODEL)
			continue;
		if (n >= max) {
			(*n_more)++;
			continue;
		}
		snprintf(path, sizeof path, "%s/blobs/sha256-%s", models_dir, e->hex);
		path_to_native(path);
		out[n].path = xstrdup(path);
		out[n].name = xstrdup(e->name);
		out[n].store = MODEL_STORE_OLLAMA;
		out[n].role = e->role;
		n++;
	}
	pthread_mutex_unlock(&index_lock);
	return n;
}

void ollama_index_clear(void)
{
	pthread_mutex_lock(&index_lock);
	for (int i = 0; i < n_indexes; i++)
		index_free(indexes[i]);
	n_indexes = 0;
	pthread_mutex_unlock(&index_lock);
}
