/* LM Studio keeps models at ~/.lmstudio/models/<publisher>/<repo>/<file>,
 * the file exactly two levels deep, older versions at ~/.cache/lm-studio/models
 * (llm-memory.md §7; each OS's folders: platform_folder_rules). One index per
 * set of models folders, shared, rebuilt when a folder it read changed; the
 * walk and the magic checks are bounded. */
#include "identify/lmstudio_index.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "identify/dir_stamps.h"
#include "llm/gguf.h"

#define LMS_MAX_INDEXES 4
#define LMS_MAX_MODELS 256

struct lms_entry {
	char *path, *name;
};

struct lms_index {
	char *key; /* the models folders, one a line */
	struct lms_entry *e;
	size_t n, cap;
	struct dir_stamps dirs;
	size_t budget;        /* directory entries left to read */
	uint64_t checked_ns;
};

static pthread_mutex_t lms_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lms_index *indexes[LMS_MAX_INDEXES];
static int n_indexes;

static void add_file(struct lms_index *ix, const char *path)
{
	struct stat st;
	char *name = NULL;
	if (ix->n >= LMS_MAX_MODELS || sysroot_stat(&st, "%s", path) != 0 || !S_ISREG(st.st_mode) || !gguf_file_is_gguf(path) ||
	    !stores_name_lmstudio(path, &name))
		return;
	ix->e = grow_array(ix->e, sizeof *ix->e, &ix->cap, ix->n);
	ix->e[ix->n].path = xstrdup(path);
	path_to_native(ix->e[ix->n].path);
	ix->e[ix->n].name = name;
	ix->n++;
}

/* level 0: the models folder, 1: a publisher, 2: a repo whose files are models. */
static void walk(struct lms_index *ix, const char *path, int level)
{
	char child[4096];
	struct dirent *de;
	DIR *dir;

	dir_stamps_add(&ix->dirs, path); /* every level: a folder gains or loses entries */
	if (!(dir = sysroot_opendir("%s", path)))
		return;
	while ((de = readdir(dir)) && ix->budget > 0) {
		ix->budget--;
		if (de->d_name[0] == '.' || (size_t)snprintf(child, sizeof child, "%s/%s", path, de->d_name) >= sizeof child)
			continue;
		if (level < 2)
			walk(ix, child, level + 1);
		else
			add_file(ix, child);
	}
	closedir(dir);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct lms_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->path, y->path);
}

static void index_clear(struct lms_index *ix)
{
	for (size_t i = 0; i < ix->n; i++) {
		free(ix->e[i].path);
		free(ix->e[i].name);
	}
	ix->n = 0;
	dir_stamps_clear(&ix->dirs);
}

static void index_free(struct lms_index *ix)
{
	index_clear(ix);
	free(ix->e);
	dir_stamps_free(&ix->dirs);
	free(ix->key);
	free(ix);
}

static void index_build(struct lms_index *ix)
{
	index_clear(ix);
	ix->budget = STORES_MAX_DIR_ENTRIES;
	for (const char *root = ix->key, *end; *root; root = *end ? end + 1 : end) {
		end = root + strcspn(root, "\n");
		char *one = xstrndup(root, (size_t)(end - root));
		walk(ix, one, 0);
		free(one);
	}
	if (ix->n > 1)
		qsort(ix->e, ix->n, sizeof *ix->e, entry_cmp);
}

/* Called with lms_lock held. */
static struct lms_index *index_get(const char *key)
{
	uint64_t now = now_monotonic_ns();
	for (int i = 0; i < n_indexes; i++) {
		struct lms_index *ix = indexes[i];
		if (strcmp(ix->key, key) != 0)
			continue;
		if (now - ix->checked_ns >= stores_recheck_ns() && dir_stamps_changed(&ix->dirs))
			index_build(ix);
		ix->checked_ns = now;
		return ix;
	}
	if (n_indexes == LMS_MAX_INDEXES) {
		index_free(indexes[0]);
		memmove(indexes, indexes + 1, sizeof indexes[0] * (LMS_MAX_INDEXES - 1));
		n_indexes--;
	}
	struct lms_index *ix = xcalloc(1, sizeof *ix);
	ix->key = xstrdup(key);
	index_build(ix);
	ix->checked_ns = now;
	indexes[n_indexes++] = ix;
	return ix;
}

int lmstudio_list_models(char (*roots)[APP_FOLDER_MAX], int n_roots, struct store_candidate *out, int max,
			 int *n_more)
{
	int n = 0;
	*n_more = 0;
	char *key = xcalloc((size_t)n_roots, APP_FOLDER_MAX + 1);
	for (int i = 0; i < n_roots; i++) {
		strcat(key, roots[i]);
		strcat(key, i + 1 < n_roots ? "\n" : "");
	}
	pthread_mutex_lock(&lms_lock);
	struct lms_index *ix = index_get(key);
	free(key);
	for (size_t i = 0; i < ix->n; i++) {
		if (n >= max) {
			(*n_more)++;
			continue;
		}
		out[n].path = xstrdup(ix->e[i].path);
		out[n].name = xstrdup(ix->e[i].name);
		out[n].store = MODEL_STORE_LMSTUDIO;
		out[n].role = MODEL_ROLE_MODEL;
		n++;
	}
	pthread_mutex_unlock(&lms_lock);
	return n;
}

void lmstudio_index_clear(void)
{
	pthread_mutex_lock(&lms_lock);
	for (int i = 0; i < n_indexes; i++)
		index_free(indexes[i]);
	n_indexes = 0;
	pthread_mutex_unlock(&lms_lock);
}
