/* What is not measured, compared: runtime-reported and estimated segments by
 * label, model files by path, and the KV estimate beside the measured growth. */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "views/diff_internal.h"

static const struct snap_val NONE;

static void compare_segments(struct diff_proc_row *row)
{
	const struct snap_proc *b = row->b, *a = row->a;
	int nb = b ? b->n_segs : 0, na = a ? a->n_segs : 0;
	bool *used = xcalloc((size_t)na + 1, sizeof *used);

	row->segs = xcalloc((size_t)nb + (size_t)na + 1, sizeof *row->segs);
	for (int i = 0; i < nb; i++) {
		struct diff_seg_row *s = &row->segs[row->n_segs++];
		s->b = &b->segs[i];
		for (int j = 0; j < na && !s->a; j++)
			if (!used[j] && !strcmp(a->segs[j].label, s->b->label) && !strcmp(a->segs[j].source, s->b->source)) {
				s->a = &a->segs[j];
				used[j] = true;
			}
	}
	for (int j = 0; j < na; j++)
		if (!used[j])
			row->segs[row->n_segs++].a = &a->segs[j];
	for (int i = 0; i < row->n_segs; i++) {
		struct diff_seg_row *s = &row->segs[i];
		s->bytes = diff_delta_of(s->b != NULL, s->b ? s->b->bytes : NONE, s->a != NULL,
					 s->a ? s->a->bytes : NONE);
	}
	free(used);
}

static void compare_models(struct diff_proc_row *row)
{
	const struct snap_proc *b = row->b, *a = row->a;
	int nb = b ? b->n_models : 0, na = a ? a->n_models : 0;
	bool *used = xcalloc((size_t)na + 1, sizeof *used);

	row->models = xcalloc((size_t)nb + (size_t)na + 1, sizeof *row->models);
	for (int i = 0; i < nb; i++) {
		struct diff_model_row *m = &row->models[row->n_models++];
		m->b = &b->models[i];
		m->change = DIFF_MODEL_REMOVED;
		for (int j = 0; j < na && !m->a; j++)
			if (!used[j] && !strcmp(a->models[j].key, m->b->key)) {
				m->a = &a->models[j];
				m->change = DIFF_MODEL_KEPT;
				used[j] = true;
			}
	}
	for (int j = 0; j < na; j++)
		if (!used[j])
			row->models[row->n_models++] = (struct diff_model_row){NULL, &a->models[j], DIFF_MODEL_ADDED};
	free(used);
}

/* A GPU KV estimate known on both sides; with `breakdown_only`, only explain's
 * per-device breakdown, which would otherwise be counted twice beside any
 * per-model estimate a writer adds. */
static bool kv_counts(const struct diff_seg_row *s, bool breakdown_only)
{
	return s->b && s->a && s->b->is_kv && !s->b->host && s->bytes.known &&
	       (!breakdown_only || str_starts(s->b->label, "breakdown "));
}

/* The KV estimate's change: the sum over GPU KV estimate segments (one per
 * device). Measured: the process's VRAM change. */
static void kv_check(struct diff_proc_row *row)
{
	struct diff_kv_check *kv = &row->kv;
	bool any = false, breakdown = false;
	int64_t est = 0;

	for (int i = 0; i < row->n_segs; i++)
		breakdown |= kv_counts(&row->segs[i], true);
	for (int i = 0; i < row->n_segs; i++) {
		const struct diff_seg_row *s = &row->segs[i];
		if (!kv_counts(s, breakdown))
			continue;
		any = true;
		est += s->bytes.delta;
	}
	if (!any || est == 0 || !row->vram_total.known)
		return;
	kv->present = true;
	kv->estimate_delta = est;
	kv->measured_delta = row->vram_total.delta;
	kv->direction = kv->measured_delta < est   ? DIFF_KV_MEASURED_SMALLER
			: kv->measured_delta > est ? DIFF_KV_MEASURED_LARGER
						   : DIFF_KV_AS_ESTIMATED;
	/* A ratio of changes in opposite directions ("-528x the estimate") means nothing. */
	kv->has_ratio = (kv->measured_delta < 0) == (est < 0) || kv->measured_delta == 0;
	if (kv->has_ratio)
		kv->ratio = (double)kv->measured_delta / (double)est;
}

const char *diff_kv_note(enum diff_kv_direction d)
{
	/* Why the two can differ, by direction (docs/diff.md, "KV estimate beside measurement"). */
	static const char *const notes[] = {
		[DIFF_KV_AS_ESTIMATED] = NULL,
		[DIFF_KV_MEASURED_SMALLER] = "Lazy allocation, allocator caching and sliding-window attention can make "
					     "the measured growth smaller",
		[DIFF_KV_MEASURED_LARGER] = "Other allocations in the process (compute buffers, a second model) or the "
					    "allocator holding freed memory can make the measured growth larger",
	};
	return (unsigned)d < sizeof notes / sizeof notes[0] ? notes[d] : NULL;
}

static void compare_flags(struct diff_proc_row *row)
{
	if (!row->b || !row->a || !row->b->has_flags || !row->a->has_flags)
		return;
	for (int i = 0; i < SNAP_N_FLAGS; i++) {
		const json_t *b = row->b->flags[i], *a = row->a->flags[i];
		if ((!b && !a) || (b && a && json_equal((json_t *)b, (json_t *)a)))
			continue;
		row->flags[row->n_flags++] = (struct diff_flag_change){i, b, a};
	}
}

void diff_compare_reported(struct diff_proc_row *row)
{
	compare_segments(row);
	compare_models(row);
	compare_flags(row);
	kv_check(row);
}
