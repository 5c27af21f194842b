/* Busy folders' tally and the mute rule (opens_mute.h). */
#include "opens_mute.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a over the fsid and the handle: most lookups end at the hash */
static uint32_t key_hash(const struct mute_key *k)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < sizeof k->fsid; i++)
		h = (h ^ k->fsid[i]) * 16777619u;
	for (uint32_t i = 0; i < k->handle_bytes; i++)
		h = (h ^ k->handle[i]) * 16777619u;
	return h;
}

bool mute_key_same(const struct mute_key *a, const struct mute_key *b)
{
	return a->hash == b->hash && a->handle_bytes == b->handle_bytes && a->handle_type == b->handle_type &&
	       !memcmp(a->fsid, b->fsid, sizeof a->fsid) && !memcmp(a->handle, b->handle, a->handle_bytes);
}

void mute_tally_add(struct mute_tally *t, const struct fan_event *ev, bool model)
{
	if (!t || !ev->has_dfid_name || ev->handle_bytes > FAN_PARSE_HANDLE_MAX)
		return;
	struct mute_key k = {.handle_bytes = ev->handle_bytes, .handle_type = ev->handle_type};
	memcpy(k.fsid, ev->fsid, sizeof k.fsid);
	memcpy(k.handle, ev->handle, ev->handle_bytes);
	k.hash = key_hash(&k);
	struct mute_count *c = NULL;
	for (size_t i = 0; i < t->n && !c; i++)
		if (mute_key_same(&t->v[i].key, &k))
			c = &t->v[i];
	if (!c) {
		if (t->n >= MUTE_TALLY_MAX)
			return;
		c = &t->v[t->n++];
		*c = (struct mute_count){.key = k};
	}
	if (model)
		c->model = true;
	else if (c->non_model < UINT32_MAX)
		c->non_model++;
}

bool mute_rule(uint32_t non_model, bool model_seen, bool known_model_folder, size_t n_muted)
{
	return non_model >= MUTE_MIN_EVENTS && !model_seen && !known_model_folder && n_muted < MUTE_MAX;
}

bool mute_path_known(const char *path, const char *const *folders, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(folders[i]);
		while (l > 1 && folders[i][l - 1] == '/')
			l--;
		if (!strncmp(path, folders[i], l) && (path[l] == '\0' || path[l] == '/' || l == 1))
			return true;
	}
	return false;
}

unsigned mute_seconds(const char *env)
{
	if (!env || !*env)
		return MUTE_DEFAULT_S;
	char *end;
	unsigned long v = strtoul(env, &end, 10);
	if (*end || v < 1 || v > 3600)
		return MUTE_DEFAULT_S;
	return (unsigned)v;
}
