/* Model stores: friendly names for model files kept by Ollama (blobs named
 * from manifests), LM Studio (publisher/repo folders) and the Hugging Face
 * cache (models--org--repo), installed candidates for a store's app, and
 * resolution of llama.cpp's -hf repo names in the HF cache.
 *
 * Indexes are built lazily, bounded, shared by every caller (mutex), and
 * rebuilt only when a folder they read changed. */
#ifndef GTM_STORES_H
#define GTM_STORES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"
#include "identify/ident.h"

/* Bounds on what one index may read. */
#define STORES_MAX_MANIFESTS 4096
#define STORES_MAX_DIR_ENTRIES 4096
#define STORES_MAX_MANIFEST_BYTES (256u * 1024u)

/* The store a path belongs to and its friendly name ("qwen3:14b",
 * "lmstudio-community/Qwen3-8B-GGUF", "Qwen/Qwen3-0.6B-GGUF"); for a file in
 * no store, the file's base name. *name is malloc'd. */
void stores_name_model(const char *path, char **name, enum model_store *store, enum model_role *role);

/* "publisher/repo" for a file exactly two levels below an LM Studio models
 * folder (*name malloc'd); false for any other path. */
bool stores_name_lmstudio(const char *path, char **name);

/* The Ollama models folder of a process: OLLAMA_MODELS from its environment,
 * else $HOME/.ollama/models (its HOME), else /usr/share/ollama/.ollama/models;
 * the first that exists. Writes into out; false when none exists. */
bool stores_ollama_dir(const struct gtm_proc_detail *d, char *out, size_t n);

struct store_candidate {
	char *path;
	char *name;
	enum model_store store;
	enum model_role role;
};

/* Models installed in the process's store (Ollama when traits has
 * RT_T_STORE_OLLAMA, LM Studio for RT_T_STORE_LMSTUDIO), at most max, in name
 * order; *n_more counts the ones beyond max. The caller frees each path and
 * name. Returns the count. */
int stores_installed(const struct gtm_proc_detail *d, unsigned traits, struct store_candidate *out, int max,
		     int *n_more);

/* The file llama.cpp's `-hf org/repo[:quant]` (with `--hf-file FILE` when
 * given, which may be NULL) resolves to in the process's HF cache; mmproj
 * selects the repo's projector file instead. Writes the path into out and
 * returns true when such a file exists. */
bool stores_hf_resolve(const struct gtm_proc_detail *d, const char *spec, const char *hf_file, bool mmproj,
		       char *out, size_t n);

/* How long an index is trusted before its folders' times are checked again
 * (default 2 s; tests set 0). */
void stores_set_recheck_ns(uint64_t ns);
uint64_t stores_recheck_ns(void);

/* Drops every cached index (tests). */
void stores_cache_clear(void);

#endif
