/* The folders an index read, with their modification times: the index is
 * stale when any of them changed (an entry added, removed or renamed). */
#ifndef GTM_DIR_STAMPS_H
#define GTM_DIR_STAMPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dir_stamps {
	char **path;
	int64_t *mtime_ns;  /* -1 when the folder did not exist */
	size_t n, cap;
};

void dir_stamps_add(struct dir_stamps *s, const char *path);
bool dir_stamps_changed(const struct dir_stamps *s);
void dir_stamps_clear(struct dir_stamps *s);
void dir_stamps_free(struct dir_stamps *s);

#endif
