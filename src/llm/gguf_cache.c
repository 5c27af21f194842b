/* Parsed GGUF headers shared by (device, inode, size, mtime), so scanning the
 * same model every refresh costs one stat (design.md: caches are keyed by
 * what invalidates them). Bounded; least recently used entries go first. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "portable.h"
#include "llm/gguf.h"

#define GGUF_CACHE_SLOTS 64

struct cache_slot {
	struct gguf_header *h;  /* the cache's own reference */
	uint64_t last_use;
};

static struct cache_slot slots[GGUF_CACHE_SLOTS];
static uint64_t use_clock;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool same_file(const struct gguf_header *h, const struct stat *st)
{
	return h->dev == (uint64_t)st->st_dev && h->ino == (uint64_t)st->st_ino &&
	       h->file_size == (uint64_t)st->st_size &&
	       h->mtime_ns == stat_mtime_ns(st);
}

static struct gguf_header *cache_lookup(const struct stat *st)
{
	struct gguf_header *found = NULL;
	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < GGUF_CACHE_SLOTS; i++) {
		if (slots[i].h && same_file(slots[i].h, st)) {
			found = slots[i].h;
			slots[i].last_use = ++use_clock;
			gguf_header_ref(found);
			break;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	return found;
}

static void cache_insert(struct gguf_header *h)
{
	size_t victim = 0;
	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < GGUF_CACHE_SLOTS; i++) {
		if (!slots[i].h) {
			victim = i;
			break;
		}
		if (slots[i].last_use < slots[victim].last_use)
			victim = i;
	}
	gguf_header_unref(slots[victim].h);
	gguf_header_ref(h);
	slots[victim].h = h;
	slots[victim].last_use = ++use_clock;
	pthread_mutex_unlock(&cache_lock);
}

struct gguf_header *gguf_cache_get(const char *path, char *err, size_t errlen)
{
	struct stat st;
	struct gguf_header *h;
	if (os_stat(path, &st) != 0) {
		snprintf(err, errlen, "cannot stat: %m");
		return NULL;
	}
	h = cache_lookup(&st);
	if (h)
		return h;
	if (gguf_read_file(path, &h, err, errlen) != GGUF_OK)
		return NULL;
	cache_insert(h);
	return h;
}

struct gguf_header *gguf_cache_get_observed(const char *path, char *err, size_t errlen)
{
	struct stat st;
	struct gguf_header *h;

	if (!sysroot_prefix()[0])
		return gguf_cache_get(path, err, errlen);
	int fd = sysroot_open(O_RDONLY | O_NOCTTY | O_NONBLOCK, "%s", path);
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	h = cache_lookup(&st);
	if (!h) {
		if (gguf_read_fd(fd, path, &h, err, errlen) == GGUF_OK)
			cache_insert(h);
		else
			h = NULL;
	}
	close(fd);
	return h;
}

void gguf_cache_clear(void)
{
	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < GGUF_CACHE_SLOTS; i++) {
		gguf_header_unref(slots[i].h);
		slots[i].h = NULL;
	}
	pthread_mutex_unlock(&cache_lock);
}
