/* Friendly names from store layouts (llm-memory.md §7):
 *   Ollama       <models>/blobs/sha256-<hex>, named by manifests (ollama_index.c)
 *   LM Studio    ~/.lmstudio/models/<publisher>/<repo>/<file> (exactly two levels),
 *                older ~/.cache/lm-studio/models
 *   HF cache     <root>/models--<org>--<repo>/snapshots/<rev>/<file> → blobs/<hash>
 * and llama.cpp's -hf resolution in the HF cache (common/hf-cache.cpp:37-65). */
#include "identify/stores.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "identify/app_folders.h"
#include "identify/lmstudio_index.h"
#include "identify/ollama_index.h"
#include "llm/gguf.h"

static const char *const lmstudio_markers[] = {"/.lmstudio/models/", "/.cache/lm-studio/models/"};

static bool is_dir(const char *path)
{
	struct stat st;
	return sysroot_stat(&st, "%s", path) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;
	return sysroot_stat(&st, "%s", path) == 0 && S_ISREG(st.st_mode);
}

static bool name_ollama(const char *path, char **name, enum model_role *role)
{
	const char *b = NULL;
	char hex[65], dir[4096];

	for (const char *p = path_find(path, "/blobs/sha256-"); p; p = path_find(p + 1, "/blobs/sha256-"))
		b = p;
	if (!b || !ollama_digest_hex(b + strlen("/blobs/sha256-"), hex) || (size_t)(b - path) >= sizeof dir)
		return false;
	memcpy(dir, path, (size_t)(b - path));
	dir[b - path] = '\0';
	*name = ollama_blob_name(dir, hex, role);
	if (!*name) {
		char short_name[32];
		snprintf(short_name, sizeof short_name, "sha256-%.12s", hex);
		*name = xstrdup(short_name);
	}
	return true;
}

/* "models--org--repo" → "org/repo" ("models--gpt2" → "gpt2"). */
static bool name_hf(const char *path, char **name)
{
	const char *c = path_find(path, "/models--");
	if (!c)
		return false;
	c += strlen("/models--");
	const char *end = path_next_sep(c);
	size_t len = end ? (size_t)(end - c) : strlen(c);
	if (len == 0)
		return false;
	char *n = xstrndup(c, len);
	char *sep = strstr(n, "--");
	if (sep) {
		*sep = '/';
		memmove(sep + 1, sep + 2, strlen(sep + 2) + 1);
	}
	*name = n;
	return true;
}

bool stores_name_lmstudio(const char *path, char **name)
{
	for (size_t i = 0; i < ARRAY_LEN(lmstudio_markers); i++) {
		const char *m = path_find(path, lmstudio_markers[i]);
		if (!m)
			continue;
		const char *rest = m + strlen(lmstudio_markers[i]);
		const char *s1 = path_next_sep(rest);
		const char *s2 = s1 ? path_next_sep(s1 + 1) : NULL;
		/* publisher/repo/file: exactly two levels below the models folder */
		if (!s1 || !s2 || s1 == rest || s2 == s1 + 1 || path_next_sep(s2 + 1) || !s2[1])
			continue;
		/* "publisher/repo" whichever separator the path has */
		char *n = xstrndup(rest, (size_t)(s2 - rest));
		n[s1 - rest] = '/';
		*name = n;
		return true;
	}
	return false;
}

void stores_name_model(const char *path, char **name, enum model_store *store, enum model_role *role)
{
	*name = NULL;
	if (name_ollama(path, name, role))
		*store = MODEL_STORE_OLLAMA;
	else if (stores_name_lmstudio(path, name))
		*store = MODEL_STORE_LMSTUDIO;
	else if (name_hf(path, name))
		*store = MODEL_STORE_HF;
	else {
		*store = MODEL_STORE_NONE;
		*name = xstrdup(path_base(path));
	}
}

bool stores_ollama_dir(const struct gtm_proc_detail *d, char *out, size_t n)
{
	return app_folder_existing(d, PLATFORM_FOLDER_OLLAMA_MODELS, out, n);
}

int stores_installed(const struct gtm_proc_detail *d, unsigned traits, struct store_candidate *out, int max,
		     int *n_more)
{
	char dir[4096];

	*n_more = 0;
	if ((traits & RT_T_STORE_OLLAMA) && stores_ollama_dir(d, dir, sizeof dir))
		return ollama_list_models(dir, out, max, n_more);
	if (traits & RT_T_STORE_LMSTUDIO) {
		char roots[APP_FOLDERS_MAX_RULES][APP_FOLDER_MAX];
		int nr = app_folders(d, PLATFORM_FOLDER_LMSTUDIO_MODELS, roots, APP_FOLDERS_MAX_RULES);
		return nr ? lmstudio_list_models(roots, nr, out, max, n_more) : 0;
	}
	return 0;
}

/* Whether a repo file suits the request: its quant tag (case-insensitive),
 * projector or not, and the first part of a split model. */
static bool hf_file_fits(const char *file, const char *tag, bool mmproj)
{
	bool is_mmproj = strcasestr(file, "mmproj") != NULL;
	if (is_mmproj != mmproj || !str_ends(file, ".gguf"))
		return false;
	if (strstr(file, "-of-") && !strstr(file, "-00001-of-"))
		return false;
	return mmproj || !tag || strcasestr(file, tag);
}

#define HF_MAX_SNAPSHOT_ENTRIES 1024

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a folder, sorted, at most HF_MAX_SNAPSHOT_ENTRIES (a repo
 * snapshot holds a few dozen files). */
static size_t sorted_names(const char *dir, char **names)
{
	DIR *d = sysroot_opendir("%s", dir);
	struct dirent *de;
	size_t n = 0;
	while (d && n < HF_MAX_SNAPSHOT_ENTRIES && (de = readdir(d)))
		if (de->d_name[0] != '.')
			names[n++] = xstrdup(de->d_name);
	if (d)
		closedir(d);
	qsort(names, n, sizeof *names, name_cmp);
	return n;
}

/* Picks a file in the snapshot folder (and its subfolders one level down), by name order. */
static bool hf_pick(const char *snap, const char *tag, bool mmproj, int depth, char *out, size_t n)
{
	char **names = xcalloc(HF_MAX_SNAPSHOT_ENTRIES, sizeof *names);
	size_t ne = sorted_names(snap, names);
	bool found = false;
	char sub[4096];

	for (size_t i = 0; i < ne; i++) {
		const char *f = names[i];
		if (!found && (size_t)snprintf(sub, sizeof sub, "%s/%s", snap, f) < sizeof sub) {
			if (is_file(sub) && hf_file_fits(f, tag, mmproj) && (size_t)snprintf(out, n, "%s", sub) < n)
				found = true;
			else if (depth == 0 && is_dir(sub))
				found = hf_pick(sub, tag, mmproj, 1, out, n);
		}
		free(names[i]);
	}
	free(names);
	return found;
}

bool stores_hf_resolve(const struct gtm_proc_detail *d, const char *spec, const char *hf_file, bool mmproj,
		       char *out, size_t n)
{
	char roots[APP_FOLDERS_MAX_RULES][APP_FOLDER_MAX], repo[512], snap[4096], ref[128];
	const char *colon = strchr(spec, ':');
	const char *tag = colon ? colon + 1 : NULL;
	size_t rlen = colon ? (size_t)(colon - spec) : strlen(spec);
	/* the HF cache roots llama.cpp looks in, in its order */
	int nr = app_folders(d, PLATFORM_FOLDER_HF_HUB, roots, APP_FOLDERS_MAX_RULES);

	if (rlen == 0 || rlen >= sizeof repo || !memchr(spec, '/', rlen))
		return false;
	memcpy(repo, spec, rlen);
	repo[rlen] = '\0';
	*strchr(repo, '/') = '\0';
	/* org and repo are single path components: nothing climbs out of the cache */
	if (!repo[0] || strchr(repo + strlen(repo) + 1, '/') || strstr(spec, "..") || (hf_file && strstr(hf_file, "..")))
		return false;
	for (int i = 0; i < nr; i++) {
		if ((size_t)snprintf(snap, sizeof snap, "%s/models--%s--%s/refs/main", roots[i], repo,
				     repo + strlen(repo) + 1) >= sizeof snap)
			continue;
		if (sysroot_read(ref, sizeof ref, "%s", snap) < 0)
			continue;
		ref[strcspn(ref, "\r\n/")] = '\0';
		if (!ref[0] || (size_t)snprintf(snap, sizeof snap, "%s/models--%s--%s/snapshots/%s", roots[i], repo,
						repo + strlen(repo) + 1, ref) >= sizeof snap)
			continue;
		if (hf_file && !mmproj) {
			if ((size_t)snprintf(out, n, "%s/%s", snap, hf_file) < n && is_file(out)) {
				path_to_native(out);
				return true;
			}
			continue;
		}
		/* llama.cpp's default tag is Q4_K_M; without it any model file will do */
		if (hf_pick(snap, tag ? tag : "Q4_K_M", mmproj, 0, out, n) ||
		    (!tag && hf_pick(snap, NULL, mmproj, 0, out, n))) {
			path_to_native(out);
			return true;
		}
	}
	return false;
}

static _Atomic uint64_t recheck_ns = 2000000000ull;

void stores_set_recheck_ns(uint64_t ns)
{
	recheck_ns = ns;
}

uint64_t stores_recheck_ns(void)
{
	return recheck_ns;
}

void stores_cache_clear(void)
{
	ollama_index_clear();
	lmstudio_index_clear();
}
