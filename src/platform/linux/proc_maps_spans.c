/* Learned runs of mapped files (proc_maps_spans.h). An ELF object is mapped
 * by its loader as one reserved span of its file, then its segments over it
 * (glibc's _dl_map_segments, musl's map_library): four or five ranges in a
 * row, the holes between them kept as PROT_NONE ranges of the same file or
 * anonymous ones. Every process that loads the same file lays it out the
 * same way relative to where it starts. A walk of maps that meets the file's
 * range at offset 0 asks for the range where the learned run's last one
 * should be; when that range is this file's, with the same length, offset
 * and protection, the ranges between are taken as the object's own and not
 * asked for one by one.
 *
 * What that assumes: that nothing else was mapped with MAP_FIXED inside a
 * loaded object's span, over its own code and data (the kernel places no
 * new mapping there by itself: the span is occupied). A program that does
 * so would have another file's range missed in between; its first and last
 * ranges are checked, not the inner ones. */
#include "proc_maps_spans.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static size_t slot_of(uint64_t inode, uint32_t major, uint32_t minor, size_t n_slots)
{
	uint64_t h = (inode ^ ((uint64_t)major << 40 | (uint64_t)minor << 20)) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 32) & (n_slots - 1);
}

struct maps_spans *maps_spans_new(void)
{
	/* calloc'd: its pages are touched as slots fill, not up front */
	struct maps_spans *s = xcalloc(1, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
	return s; /* its slots come with the first run learned */
}

void maps_spans_free(struct maps_spans *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s->slot);
	free(s);
}

/* The slot of r's file, or the empty slot where it would go (the table is
 * never full: it grows first). Under s->lock, with slots. */
static struct maps_span *find(const struct maps_spans *s, uint64_t inode, uint32_t major, uint32_t minor)
{
	size_t i = slot_of(inode, major, minor, s->n_slots);
	for (;; i = (i + 1) & (s->n_slots - 1)) {
		struct maps_span *e = &s->slot[i];
		if (!e->ranges || (e->inode == inode && e->dev_major == major && e->dev_minor == minor))
			return e;
	}
}

/* Room for one more run: the table doubled (its runs moved over), or begun
 * again at its largest. Under s->lock. */
static void make_room(struct maps_spans *s)
{
	if (s->slot && (s->n + 1) * 4 <= s->n_slots * 3)
		return;
	size_t n = s->n_slots ? s->n_slots * 2 : MAPS_SPANS_MIN_SLOTS;
	struct maps_span *old = s->slot;
	size_t old_n = s->n_slots;
	if (n > MAPS_SPANS_MAX_SLOTS) {
		/* past the largest (a long live view over many processes' files) */
		n = MAPS_SPANS_MAX_SLOTS;
		old_n = 0;
		s->n = 0;
	}
	s->slot = xcalloc(n, sizeof *s->slot);
	s->n_slots = n;
	for (size_t i = 0; i < old_n; i++)
		if (old[i].ranges)
			*find(s, old[i].inode, old[i].dev_major, old[i].dev_minor) = old[i];
	free(old);
}

void maps_spans_learn(struct maps_spans *s, const struct maps_range *first, const struct maps_range *last,
		      uint32_t n)
{
	if (n < MAPS_SPAN_MIN_RANGES || first->offset != 0 || last->start < first->start || last->end <= last->start)
		return;
	pthread_mutex_lock(&s->lock);
	make_room(s);
	struct maps_span *e = find(s, first->inode, first->dev_major, first->dev_minor);
	if (!e->ranges) {
		*e = (struct maps_span){.inode = first->inode, .dev_major = first->dev_major,
					.dev_minor = first->dev_minor, .first_len = first->end - first->start,
					.first_flags = first->flags, .last_rel = last->start - first->start,
					.last_len = last->end - last->start, .last_offset = last->offset,
					.last_flags = last->flags, .ranges = n};
		s->n++;
		s->learned++;
	}
	pthread_mutex_unlock(&s->lock);
}

bool maps_spans_predict(struct maps_spans *s, const struct maps_range *first, struct maps_range *want)
{
	bool ok = false;

	if (first->offset != 0)
		return false;
	pthread_mutex_lock(&s->lock);
	const struct maps_span *e = s->n ? find(s, first->inode, first->dev_major, first->dev_minor) : NULL;
	if (e && e->ranges && e->first_len == first->end - first->start && e->first_flags == first->flags &&
	    first->start <= UINT64_MAX - e->last_rel - e->last_len) {
		*want = (struct maps_range){.start = first->start + e->last_rel,
					    .end = first->start + e->last_rel + e->last_len,
					    .offset = e->last_offset, .flags = e->last_flags, .inode = e->inode,
					    .dev_major = e->dev_major, .dev_minor = e->dev_minor};
		ok = true;
	}
	pthread_mutex_unlock(&s->lock);
	return ok;
}

void maps_spans_stepped(struct maps_spans *s)
{
	pthread_mutex_lock(&s->lock);
	s->stepped++;
	pthread_mutex_unlock(&s->lock);
}
