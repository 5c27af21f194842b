/* A file in the Hugging Face hub cache back to what it is. The cache
 * (https://huggingface.co/docs/hub/local-cache) keeps each repo as
 * models--ORG--NAME/{blobs,refs,snapshots}: blobs/<hash> holds the bytes,
 * snapshots/<commit>/<file> is a relative link to ../../blobs/<hash>, and
 * refs/<ref> holds a commit. A process that maps a model through the
 * snapshot link shows only the blob in its maps (no name, no extension), so
 * the blob is looked up in the snapshots' links and the refs.
 * Reads go through core/sysroot; bounded (HF_CACHE_MAX_ENTRIES per folder). */
#ifndef GTM_HF_CACHE_H
#define GTM_HF_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#define HF_CACHE_MAX_ENTRIES 1024
#define HF_CACHE_MAX_REVISIONS 64

struct hf_cache_file {
	char repo[256];       /* "org/name" ("gpt2" for a repo without an org) */
	char revision[64];    /* the snapshot folder: a commit */
	char ref[64];         /* the ref naming that commit ("main"), or "" */
	char file[512];       /* the file inside the snapshot ("model-00001-of-00002.safetensors") */
	unsigned shard, n_shards; /* from "-00001-of-00002"; 0 when not a shard */
	char snapshot[4096];  /* path of snapshots/<revision>: its config.json and siblings */
	bool is_blob;         /* the path was the blob itself */
};

/* Whether path lies in a repo folder of the cache (models--*, datasets--*),
 * and as what: fills out and returns true for a blob some snapshot links to
 * or a file inside a snapshot. Prefers a revision a ref names (main first). */
bool hf_cache_identify(const char *path, struct hf_cache_file *out);
/* "model-00002-of-00005.safetensors" → 2, 5 (pure); false when no such part. */
bool hf_shard_of(const char *name, unsigned *shard, unsigned *n_shards);
/* "org/name@main" or "org/name@<first 12 of the commit>" into buf. */
const char *hf_cache_label(const struct hf_cache_file *f, char *buf, size_t n);

#endif
