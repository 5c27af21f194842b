#include "record/rec_seek.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/util.h"

static const struct gtm_device *dev_by_index(const struct gtm_snapshot *s, int index)
{
	for (int i = 0; i < s->n_devices; i++)
		if (s->devices[i].index == index)
			return &s->devices[i];
	return NULL;
}

static bool same_process(const struct gtm_process *a, const struct gtm_process *b)
{
	return a->start_time == b->start_time && !strcmp(a->label, b->label);
}

static bool still_listed(const struct gtm_snapshot *s, const struct gtm_process *p)
{
	for (int i = 0; i < s->n_processes; i++)
		if (same_process(&s->processes[i], p))
			return true;
	return false;
}

static bool sharp_rise(const struct gtm_device *before, const struct gtm_device *after, struct rec_change *out)
{
	uint64_t min;

	if (!gtm_u64_ok(before->mem_used) || !gtm_u64_ok(after->mem_used) || after->mem_used.v <= before->mem_used.v)
		return false;
	min = REC_RISE_NO_TOTAL_BYTES;
	if (gtm_u64_ok(after->mem_total) && after->mem_total.v) {
		/* REC_RISE_PCT % of the total, rounded down, without overflowing */
		min = after->mem_total.v / 100 * REC_RISE_PCT + after->mem_total.v % 100 * REC_RISE_PCT / 100;
		if (min < REC_RISE_MIN_BYTES)
			min = REC_RISE_MIN_BYTES;
	}
	if (after->mem_used.v - before->mem_used.v < min)
		return false;
	*out = (struct rec_change){REC_CHANGE_RISE, after->index, after->mem_used.v - before->mem_used.v,
				   after->mem_used.v, gtm_u64_ok(after->mem_total) ? after->mem_total.v : 0, "", ""};
	return true;
}

static bool nearly_full(const struct gtm_device *d)
{
	return d && gtm_u64_ok(d->mem_used) && gtm_u64_ok(d->mem_total) && d->mem_total.v &&
	       d->mem_used.v / (double)d->mem_total.v * 100.0 >= REC_FULL_PCT;
}

static bool vanished(const struct gtm_snapshot *prev, const struct gtm_snapshot *cur, struct rec_change *out)
{
	for (int i = 0; i < prev->n_processes; i++) {
		const struct gtm_process *p = &prev->processes[i];
		for (int k = 0; k < p->n_uses; k++) {
			const struct gtm_gpu_use *u = &p->uses[k];
			const struct gtm_device *d = dev_by_index(prev, u->dev_index);
			if (!gtm_u64_ok(u->vram) || u->vram.v < REC_VANISH_MIN_BYTES || !nearly_full(d) || still_listed(cur, p))
				continue;
			*out = (struct rec_change){REC_CHANGE_VANISH, d->index, u->vram.v, d->mem_used.v, d->mem_total.v, "", ""};
			str_copy(out->label, p->label, sizeof out->label);
			str_copy(out->name, p->name, sizeof out->name);
			return true;
		}
	}
	return false;
}

bool rec_vram_change(const struct gtm_snapshot *prev, const struct gtm_snapshot *cur, struct rec_change *out)
{
	*out = (struct rec_change){0};
	if (!prev || !cur)
		return false;
	for (int i = 0; i < cur->n_devices; i++) {
		const struct gtm_device *before = dev_by_index(prev, cur->devices[i].index);
		if (before && sharp_rise(before, &cur->devices[i], out))
			return true;
	}
	return vanished(prev, cur, out);
}

void rec_change_text(const struct rec_change *c, char *buf, size_t n)
{
	char b[32], used[32], total[32];

	fmt_bytes(b, sizeof b, gtm_u64_of(c->bytes, GTM_MEASURED));
	fmt_bytes(used, sizeof used, gtm_u64_of(c->used, GTM_MEASURED));
	fmt_bytes(total, sizeof total, c->total ? gtm_u64_of(c->total, GTM_MEASURED) : GTM_U64_NA);
	if (c->kind == REC_CHANGE_RISE)
		snprintf(buf, n, "+%s on GPU %d (%s of %s)", b, c->dev_index, used, total);
	else if (c->kind == REC_CHANGE_VANISH)
		snprintf(buf, n, "%s %s vanished from GPU %d (held %s; %s of %s used)", c->label, c->name, c->dev_index, b,
			 used, total);
	else
		str_copy(buf, "", n);
}

void rec_cursor_init(struct rec_cursor *c, struct rec_file *f)
{
	memset(c, 0, sizeof *c);
	c->f = f;
	c->first = xcalloc(f->idx.n_frames + 1, sizeof *c->first);
	for (size_t i = 0; i < f->idx.n_frames; i++)
		c->first[i + 1] = c->first[i] + f->idx.frames[i].n_samples;
	c->n = c->first[f->idx.n_frames];
	for (size_t i = 0; i < ARRAY_LEN(c->cache); i++)
		c->cache[i].frame = -1;
}

void rec_cursor_free(struct rec_cursor *c)
{
	for (size_t i = 0; i < ARRAY_LEN(c->cache); i++)
		if (c->cache[i].frame >= 0)
			rec_frame_text_free(&c->cache[i].t);
	free(c->first);
	memset(c, 0, sizeof *c);
}

/* The frame holding ordinal ord: the last whose first ordinal is <= ord. */
static long frame_of(const struct rec_cursor *c, uint64_t ord)
{
	size_t lo = 0, hi = c->f->idx.n_frames;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->first[mid] <= ord)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

static struct rec_frame_text *frame_text(struct rec_cursor *c, long fi, char *err, size_t errn)
{
	struct rec_cursor_frame *slot = &c->cache[0];

	c->tick++;
	for (size_t i = 0; i < ARRAY_LEN(c->cache); i++) {
		if (c->cache[i].frame == fi) {
			c->cache[i].used = c->tick;
			return &c->cache[i].t;
		}
		if (c->cache[i].used < slot->used)
			slot = &c->cache[i];
	}
	if (slot->frame >= 0)
		rec_frame_text_free(&slot->t);
	slot->frame = -1;
	if (rec_frame_read(&c->f->src, &c->f->idx.frames[fi], &slot->t, err, errn) != 0)
		return NULL;
	slot->frame = fi;
	slot->used = c->tick;
	return &slot->t;
}

int rec_cursor_line(struct rec_cursor *c, uint64_t ord, const char **line, size_t *len, int64_t *taken_s, char *err,
		    size_t errn)
{
	struct rec_frame_text *t;
	long fi;
	uint64_t k;

	if (ord >= c->n) {
		snprintf(err, errn, "snapshot %llu is past the end (%llu)", (unsigned long long)ord, (unsigned long long)c->n);
		return -1;
	}
	fi = frame_of(c, ord);
	t = frame_text(c, fi, err, errn);
	if (!t)
		return -1;
	k = ord - c->first[fi];
	if (k >= t->n) {
		/* the entry counted more snapshots than the frame holds readable lines */
		if (!t->n) {
			snprintf(err, errn, "the frame at byte %llu holds no readable snapshot",
				 (unsigned long long)c->f->idx.frames[fi].data_off);
			return -1;
		}
		k = t->n - 1;
	}
	*line = t->text + t->samples[k].off;
	*len = t->samples[k].len;
	*taken_s = t->samples[k].taken_at_s;
	return 0;
}

uint64_t rec_cursor_next(struct rec_cursor *c, uint64_t ord)
{
	char err[256];
	long fi;
	struct rec_frame_text *t;

	if (ord + 1 >= c->n)
		return c->n;
	fi = frame_of(c, ord);
	t = frame_text(c, fi, err, sizeof err);
	if (t && ord - c->first[fi] + 1 < t->n)
		return ord + 1;
	return c->first[fi + 1] > ord ? c->first[fi + 1] : ord + 1;
}

uint64_t rec_cursor_find(struct rec_cursor *c, int64_t t_s)
{
	long fi = rec_index_find(&c->f->idx, t_s);
	struct rec_frame_text *t;
	char err[256];
	long si;

	if (fi < 0)
		return 0;
	t = frame_text(c, fi, err, sizeof err);
	si = t ? rec_frame_find(t, t_s) : -1;
	return c->first[fi] + (uint64_t)(si > 0 ? si : 0);
}
