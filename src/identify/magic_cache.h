/* Which mapped files are GGUF, by magic ("GGUF" in the first 4 bytes, not the
 * file name), remembered by file identity so a refresh re-reads nothing that
 * did not change. Bounded: the table is emptied when it fills. */
#ifndef GTM_MAGIC_CACHE_H
#define GTM_MAGIC_CACHE_H

#include <stdbool.h>
#include <sys/stat.h>

#define MAGIC_CACHE_SLOTS 4096

struct magic_cache;

struct magic_cache *magic_cache_new(void);
void magic_cache_free(struct magic_cache *mc);
/* Whether path is a regular file starting with the GGUF magic; *st receives
 * its stat when it could be stat'ed (st may be NULL). */
bool magic_cache_is_gguf(struct magic_cache *mc, const char *path, struct stat *st);
/* A new refresh: files are stat'ed again (within one refresh a path found not
 * to be GGUF is answered without a stat, and *st is then not filled). */
void magic_cache_next_refresh(struct magic_cache *mc);

#endif
