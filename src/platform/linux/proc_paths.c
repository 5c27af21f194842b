/* The distinct file paths of a process's maps, in map order. A big process
 * maps the same library in four or five consecutive ranges and may have tens
 * of thousands of ranges, so duplicates are dropped through a small hash
 * index instead of a scan of the list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "proc_internal.h"

/* FNV-1a, 32-bit (http://www.isthe.com/chongo/tech/comp/fnv/). */
static uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static void index_insert(uint32_t *slots, size_t n_slots, uint32_t h, uint32_t value)
{
	size_t mask = n_slots - 1, i = h & mask;
	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = value;
}

static void index_grow(struct proc_path_list *l)
{
	size_t n = l->n_slots ? l->n_slots * 2 : 64;
	uint32_t *slots = xcalloc(n, sizeof *slots);

	for (size_t k = 0; k < l->n; k++)
		index_insert(slots, n, hash_bytes(l->v[k], strlen(l->v[k])), (uint32_t)k + 1);
	free(l->slots);
	l->slots = slots;
	l->n_slots = n;
}

/* The index of s in the list, or SIZE_MAX. */
static size_t list_find(const struct proc_path_list *l, const char *s, size_t n, uint32_t h)
{
	size_t mask = l->n_slots - 1;
	for (size_t i = h & mask; l->slots[i]; i = (i + 1) & mask) {
		const char *t = l->v[l->slots[i] - 1];
		if (strncmp(t, s, n) == 0 && t[n] == '\0')
			return l->slots[i] - 1;
	}
	return SIZE_MAX;
}

void proc_path_list_add_maps_line(struct proc_path_list *l, const char *line, size_t len)
{
	size_t n;
	const char *path = proc_maps_line_path(line, len, &n);

	if (path)
		proc_path_list_add(l, path, n);
}

size_t proc_path_list_add(struct proc_path_list *l, const char *path, size_t n)
{
	uint32_t h;

	if (memchr(path, '\0', n))
		return SIZE_MAX;
	/* consecutive ranges of one file: the common case, no hashing needed */
	if (l->n > 0 && strncmp(l->v[l->n - 1], path, n) == 0 && l->v[l->n - 1][n] == '\0')
		return l->n - 1;
	if (l->n >= PROC_MAPS_MAX_PATHS)
		return SIZE_MAX;
	if ((l->n + 1) * 2 > l->n_slots)
		index_grow(l);
	h = hash_bytes(path, n);
	size_t at = list_find(l, path, n, h);
	if (at != SIZE_MAX)
		return at;
	l->v = grow_array(l->v, sizeof *l->v, &l->cap, l->n);
	l->v[l->n] = xstrndup(path, n);
	index_insert(l->slots, l->n_slots, h, (uint32_t)++l->n);
	return l->n - 1;
}

static void add_line(const char *line, size_t len, void *ctx)
{
	proc_path_list_add_maps_line(ctx, line, len);
}

void proc_maps_parse(const char *buf, size_t len, struct proc_path_list *l)
{
	proc_for_each_line(buf, len, add_line, l);
}

char **proc_path_list_take(struct proc_path_list *l, size_t *n)
{
	char **v = l->v;

	*n = l->n;
	free(l->slots);
	memset(l, 0, sizeof *l);
	return v;
}

void proc_path_list_free(struct proc_path_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->slots);
	memset(l, 0, sizeof *l);
}
