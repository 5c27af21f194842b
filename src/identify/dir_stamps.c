#include "identify/dir_stamps.h"
#include "portable.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"

static int64_t dir_mtime(const char *path)
{
	struct stat st;
	if (sysroot_stat(&st, "%s", path) != 0)
		return -1;
	return stat_mtime_ns(&st);
}

void dir_stamps_add(struct dir_stamps *s, const char *path)
{
	size_t cap = s->cap;
	s->path = grow_array(s->path, sizeof *s->path, &cap, s->n);
	s->mtime_ns = grow_array(s->mtime_ns, sizeof *s->mtime_ns, &s->cap, s->n);
	s->path[s->n] = xstrdup(path);
	s->mtime_ns[s->n] = dir_mtime(path);
	s->n++;
}

bool dir_stamps_changed(const struct dir_stamps *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (dir_mtime(s->path[i]) != s->mtime_ns[i])
			return true;
	return false;
}

void dir_stamps_clear(struct dir_stamps *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->path[i]);
	s->n = 0;
}

void dir_stamps_free(struct dir_stamps *s)
{
	dir_stamps_clear(s);
	free(s->path);
	free(s->mtime_ns);
	s->path = NULL;
	s->mtime_ns = NULL;
	s->cap = 0;
}
