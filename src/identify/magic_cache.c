/* Open-addressed table of path → (identity, is GGUF). A stat per lookup
 * detects a replaced or rewritten file; the 4-byte read happens once per
 * file version. */
#include "identify/magic_cache.h"
#include "portable.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "llm/gguf.h"

struct magic_slot {
	char *path;
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	bool gguf;
	uint64_t checked_gen;  /* the refresh that last stat'ed it */
};

/* The table grows by doubling up to MAGIC_CACHE_SLOTS: a one-shot run sees
 * a handful of candidate files, and a full-size table (230 KiB) cost it
 * 56 page faults just to be walked when freed. */
struct magic_cache {
	struct magic_slot *slot;
	uint32_t cap; /* 0, or a power of two <= MAGIC_CACHE_SLOTS */
	uint32_t used;
	uint64_t gen;
};

struct magic_cache *magic_cache_new(void)
{
	return xcalloc(1, sizeof(struct magic_cache));
}

static void magic_cache_empty(struct magic_cache *mc)
{
	for (uint32_t i = 0; i < mc->cap; i++) {
		free(mc->slot[i].path);
		mc->slot[i].path = NULL;
	}
	mc->used = 0;
}

void magic_cache_free(struct magic_cache *mc)
{
	if (!mc)
		return;
	magic_cache_empty(mc);
	free(mc->slot);
	free(mc);
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static bool same_version(const struct magic_slot *e, const struct stat *st)
{
	return e->dev == (uint64_t)st->st_dev && e->ino == (uint64_t)st->st_ino && e->size == (uint64_t)st->st_size &&
	       e->mtime_ns == stat_mtime_ns(st);
}

void magic_cache_next_refresh(struct magic_cache *mc)
{
	mc->gen++;
}

/* Every process maps libc, ld.so and the locale files: within one refresh a
 * path already found not to be GGUF is not stat'ed again. */
static bool known_not_gguf(const struct magic_cache *mc, const char *path)
{
	uint32_t mask = mc->cap - 1;
	for (uint32_t i = fnv1a(path) & mask; mc->cap && mc->slot[i].path; i = (i + 1) & mask)
		if (!strcmp(mc->slot[i].path, path))
			return mc->slot[i].checked_gen == mc->gen + 1 && !mc->slot[i].gguf;
	return false;
}

/* Room for one more path: doubled while under MAGIC_CACHE_SLOTS, emptied
 * once that is 3/4 full (the bound). */
static void make_room(struct magic_cache *mc)
{
	if (mc->cap && (mc->used + 1) * 4 <= mc->cap * 3)
		return;
	if (mc->cap >= MAGIC_CACHE_SLOTS) {
		magic_cache_empty(mc);
		return;
	}
	struct magic_slot *old = mc->slot;
	uint32_t old_cap = mc->cap;
	mc->cap = old_cap ? old_cap * 2 : 16;
	mc->slot = xcalloc(mc->cap, sizeof *mc->slot);
	for (uint32_t k = 0; k < old_cap; k++) {
		if (!old[k].path)
			continue;
		uint32_t i = fnv1a(old[k].path) & (mc->cap - 1);
		while (mc->slot[i].path)
			i = (i + 1) & (mc->cap - 1);
		mc->slot[i] = old[k];
	}
	free(old);
}

bool magic_cache_is_gguf(struct magic_cache *mc, const char *path, struct stat *out)
{
	struct stat st;
	uint32_t i;

	if (known_not_gguf(mc, path))
		return false;
	if (sysroot_stat(&st, "%s", path) != 0)
		return false;
	if (out)
		*out = st;
	if (!S_ISREG(st.st_mode) || st.st_size < 4)
		return false;
	make_room(mc);
	for (i = fnv1a(path) & (mc->cap - 1); mc->slot[i].path; i = (i + 1) & (mc->cap - 1))
		if (!strcmp(mc->slot[i].path, path))
			break;
	struct magic_slot *e = &mc->slot[i];
	e->checked_gen = mc->gen + 1; /* 0 never matches: a fresh slot is unchecked */
	if (e->path && same_version(e, &st))
		return e->gguf;
	if (!e->path) {
		e->path = xstrdup(path);
		mc->used++;
	}
	e->dev = (uint64_t)st.st_dev;
	e->ino = (uint64_t)st.st_ino;
	e->size = (uint64_t)st.st_size;
	e->mtime_ns = stat_mtime_ns(&st);
	e->gguf = gguf_file_is_gguf(path);
	return e->gguf;
}
