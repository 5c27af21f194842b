/* model.safetensors.index.json, as transformers writes it for a sharded
 * checkpoint: {"metadata": {"total_size": N}, "weight_map": {"tensor":
 * "model-00001-of-00002.safetensors", ...}}. Pure over a bounded buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/util.h"
#include "llm/safetensors.h"

/* A shard must be a plain file name beside the index: nothing climbs out. */
static bool plain_name(const char *s, size_t n)
{
	if (n == 0 || n > ST_MAX_SHARD_NAME || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == '\\' || s[i] == '\0' || (unsigned char)s[i] < 0x20)
			return false;
	return true;
}

struct shard_acc {
	char *name[ST_MAX_SHARDS];
	uint64_t count[ST_MAX_SHARDS];
	size_t n;
	int32_t slot[2 * ST_MAX_SHARDS]; /* open addressing: index + 1, 0 = free */
};

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Adds a shard name (unique), counting its tensors; false when full. */
static bool add_shard(struct shard_acc *a, const char *s)
{
	uint32_t i = fnv1a(s) % (2 * ST_MAX_SHARDS);
	for (; a->slot[i]; i = (i + 1) % (2 * ST_MAX_SHARDS))
		if (!strcmp(a->name[a->slot[i] - 1], s)) {
			a->count[a->slot[i] - 1]++;
			return true;
		}
	if (a->n >= ST_MAX_SHARDS)
		return false;
	a->name[a->n] = xstrdup(s);
	a->count[a->n] = 1;
	a->slot[i] = (int32_t)++a->n;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names sorted, with their counts carried along. */
static void take_shards(struct st_index *ix, struct shard_acc *a)
{
	ix->shards = xcalloc(a->n + 1, sizeof *ix->shards);
	ix->shard_tensors = xcalloc(a->n + 1, sizeof *ix->shard_tensors);
	memcpy(ix->shards, a->name, a->n * sizeof *ix->shards);
	qsort(ix->shards, a->n, sizeof *ix->shards, cmp_str);
	for (size_t i = 0; i < a->n; i++) {
		uint32_t k = fnv1a(ix->shards[i]) % (2 * ST_MAX_SHARDS);
		while (strcmp(a->name[a->slot[k] - 1], ix->shards[i]))
			k = (k + 1) % (2 * ST_MAX_SHARDS);
		ix->shard_tensors[i] = a->count[a->slot[k] - 1];
	}
	ix->n_shards = a->n;
	a->n = 0;
}

static bool index_fail(struct st_index *ix, struct shard_acc *a, json_t *root, char *err, size_t en, const char *msg)
{
	for (size_t i = 0; a && i < a->n; i++)
		free(a->name[i]);
	free(a);
	json_decref(root);
	st_index_free(ix);
	snprintf(err, en, "%s", msg);
	return false;
}

bool st_index_parse(const char *buf, size_t n, struct st_index *ix, char *err, size_t en)
{
	json_error_t je;
	const char *k;
	json_t *v;

	memset(ix, 0, sizeof *ix);
	if (n > ST_MAX_INDEX_BYTES)
		return index_fail(ix, NULL, NULL, err, en, "index larger than 64 MiB");
	json_t *root = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
	json_t *map = json_object_get(root, "weight_map");
	json_t *total = json_object_get(json_object_get(root, "metadata"), "total_size");
	if (!json_is_object(map))
		return index_fail(ix, NULL, root, err, en, "not an index: no weight_map object");
	if (json_object_size(map) > ST_MAX_TENSORS)
		return index_fail(ix, NULL, root, err, en, "weight_map names more than 1048576 tensors");
	if (json_is_integer(total) && json_integer_value(total) >= 0) {
		ix->have_total_size = true;
		ix->total_size = (uint64_t)json_integer_value(total);
	}
	struct shard_acc *a = xcalloc(1, sizeof *a);
	json_object_foreach(map, k, v) {
		if (!json_is_string(v) || !plain_name(json_string_value(v), json_string_length(v)))
			return index_fail(ix, a, root, err, en, "a weight_map value is not a plain file name");
		if (!add_shard(a, json_string_value(v)))
			return index_fail(ix, a, root, err, en, "weight_map names more than 4096 shard files");
		ix->n_tensors++;
	}
	json_decref(root);
	take_shards(ix, a);
	free(a);
	return true;
}

void st_index_free(struct st_index *ix)
{
	for (size_t i = 0; ix->shards && i < ix->n_shards; i++)
		free(ix->shards[i]);
	free(ix->shards);
	free(ix->shard_tensors);
	memset(ix, 0, sizeof *ix);
}
