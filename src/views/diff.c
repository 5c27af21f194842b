/* Comparing two snapshots: devices by UUID, processes by the pairing rules
 * (diff_pair.c), measured counters as deltas, everything else listed beside. */
#include "views/diff.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "views/diff_internal.h"

static const char *const rule_names[] = {
	[DIFF_RULE_NONE] = NULL,
	[DIFF_RULE_PID_START] = "pid+start_time",
	[DIFF_RULE_PID] = "pid",
	[DIFF_RULE_HOST_PID] = "host_pid",
	[DIFF_RULE_UNATTRIBUTED] = "unattributed",
	[DIFF_RULE_NAME_PORTS] = "name+ports",
	[DIFF_RULE_UNIQUE_NAME] = "unique_name",
};

const char *diff_rule_name(enum diff_rule r)
{
	return (size_t)r < ARRAY_LEN(rule_names) ? rule_names[r] : NULL;
}

bool diff_rule_is_restart(enum diff_rule r)
{
	return r == DIFF_RULE_NAME_PORTS || r == DIFF_RULE_UNIQUE_NAME;
}

static void warn(struct diff_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct diff_result *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	r->warnings = xrealloc(r->warnings, ((size_t)r->n_warnings + 1) * sizeof *r->warnings);
	r->warnings[r->n_warnings++] = xstrdup(buf);
}

struct diff_delta diff_delta_of(bool b_listed, struct snap_val b, bool a_listed, struct snap_val a)
{
	struct diff_delta d = {b_listed, a_listed, b, a, false, 0};

	if (!b_listed)
		d.b = (struct snap_val){0};
	if (!a_listed)
		d.a = (struct snap_val){0};
	/* Values come from JSON integers >= 0, so both fit int64 and the difference cannot overflow. */
	if (b_listed && a_listed && b.known && a.known && b.v <= INT64_MAX && a.v <= INT64_MAX) {
		d.known = true;
		d.delta = (int64_t)a.v - (int64_t)b.v;
	}
	return d;
}

static const struct snap_val NONE;

/* --- devices ---------------------------------------------------------------- */

/* UUID first; the PCI address only where a UUID is missing (a different UUID in the
 * same slot is a different GPU); the index only where neither says anything. */
static const char *dev_match(const struct snap_dev *b, const struct snap_dev *a)
{
	if (b->uuid && a->uuid)
		return strcmp(b->uuid, a->uuid) ? NULL : "uuid";
	if (b->pci_bus_id && a->pci_bus_id)
		return strcmp(b->pci_bus_id, a->pci_bus_id) ? NULL : "pci_bus_id";
	return b->index == a->index ? "index" : NULL;
}

static void fill_dev_row(struct diff_dev_row *row)
{
	const struct snap_dev *b = row->b, *a = row->a;
#define DEV_DELTA(f) diff_delta_of(b != NULL, b ? b->f : NONE, a != NULL, a ? a->f : NONE)
	row->total = DEV_DELTA(total);
	row->used = DEV_DELTA(used);
	row->free = DEV_DELTA(free);
	row->reserved = DEV_DELTA(reserved);
	row->shared_used = DEV_DELTA(shared_used);
	row->processes_listed = DEV_DELTA(processes_listed);
#undef DEV_DELTA
}

static void dev_label(char *buf, size_t n, const struct snap_dev *d)
{
	snprintf(buf, n, "GPU %d (%s, %s)", d->index, d->name ? d->name : "unnamed",
		 d->uuid ? d->uuid : d->pci_bus_id ? d->pci_bus_id : "no UUID");
}

static void compare_devices(struct diff_result *r)
{
	const struct snap_rows *b = r->before, *a = r->after;
	bool *used = xcalloc((size_t)a->n_devs + 1, sizeof *used);
	char label[256];

	r->devs = xcalloc((size_t)b->n_devs + (size_t)a->n_devs + 1, sizeof *r->devs);
	for (int i = 0; i < b->n_devs; i++) {
		struct diff_dev_row *row = &r->devs[r->n_devs++];
		row->b = &b->devs[i];
		for (int j = 0; j < a->n_devs && !row->a; j++)
			if (!used[j] && (row->paired_by = dev_match(row->b, &a->devs[j]))) {
				row->a = &a->devs[j];
				used[j] = true;
			}
		if (!row->a) {
			dev_label(label, sizeof label, row->b);
			warn(r, "%s is in the before snapshot only: the snapshots are of different GPUs", label);
		}
	}
	for (int j = 0; j < a->n_devs; j++)
		if (!used[j]) {
			r->devs[r->n_devs++].a = &a->devs[j];
			dev_label(label, sizeof label, &a->devs[j]);
			warn(r, "%s is in the after snapshot only: the snapshots are of different GPUs", label);
		}
	for (int i = 0; i < r->n_devs; i++)
		fill_dev_row(&r->devs[i]);
	free(used);
}

/* --- processes: measured ------------------------------------------------------ */

static const struct snap_dev *use_dev(const struct snap_rows *s, const struct snap_use *u)
{
	return u ? snap_rows_dev(s, u->index) : NULL;
}

/* The after-snapshot device paired with a before device (NULL when none). */
static const struct snap_dev *paired_after(const struct diff_result *r, const struct snap_dev *db)
{
	for (int i = 0; db && i < r->n_devs; i++)
		if (r->devs[i].b == db)
			return r->devs[i].a;
	return NULL;
}

static struct snap_val sum_of(const struct snap_proc *p, size_t offset)
{
	struct snap_val s = {0};
	for (int i = 0; p && i < p->n_uses; i++) {
		const struct snap_val *v = (const struct snap_val *)((const char *)&p->uses[i] + offset);
		if (v->known) {
			/* a sum past what a JSON integer holds is no byte count: N/A */
			if (v->v > (uint64_t)INT64_MAX - s.v)
				return (struct snap_val){0};
			s.known = true;
			s.v += v->v;
		}
	}
	return s;
}

static void fill_use(struct diff_use_row *u, const struct snap_use *ub, const struct snap_use *ua)
{
	u->index_b = ub ? ub->index : -1;
	u->index_a = ua ? ua->index : -1;
	u->vram = diff_delta_of(ub != NULL, ub ? ub->vram : NONE, ua != NULL, ua ? ua->vram : NONE);
	u->spill = diff_delta_of(ub != NULL, ub ? ub->spill : NONE, ua != NULL, ua ? ua->spill : NONE);
	u->paged = diff_delta_of(ub != NULL, ub ? ub->paged : NONE, ua != NULL, ua ? ua->paged : NONE);
}

/* Per-device rows follow the device pairing (UUID), not the index; devices
 * neither snapshot describes pair by index. Lookups are made once per use. */
static void compare_uses(const struct diff_result *r, struct diff_proc_row *row)
{
	const struct snap_proc *b = row->b, *a = row->a;
	int nb = b ? b->n_uses : 0, na = a ? a->n_uses : 0;
	bool *used = xcalloc((size_t)na + 1, sizeof *used);
	const struct snap_dev **dev_a = xcalloc((size_t)na + 1, sizeof *dev_a);

	for (int j = 0; j < na; j++)
		dev_a[j] = use_dev(r->after, &a->uses[j]);
	row->uses = xcalloc((size_t)nb + (size_t)na + 1, sizeof *row->uses);
	for (int i = 0; i < nb; i++) {
		const struct snap_use *ub = &b->uses[i], *ua = NULL;
		const struct snap_dev *db = use_dev(r->before, ub), *want = paired_after(r, db);
		for (int j = 0; j < na && !ua; j++)
			if (!used[j] && (db ? dev_a[j] == want && want : !dev_a[j] && a->uses[j].index == ub->index)) {
				ua = &a->uses[j];
				used[j] = true;
			}
		struct diff_use_row *u = &row->uses[row->n_uses++];
		u->dev_b = db;
		u->dev_a = use_dev(r->after, ua);
		fill_use(u, ub, ua);
	}
	for (int j = 0; j < na; j++)
		if (!used[j]) {
			struct diff_use_row *u = &row->uses[row->n_uses++];
			u->dev_a = dev_a[j];
			fill_use(u, NULL, &a->uses[j]);
		}
	free(dev_a);
	free(used);
}

static void compare_measured(const struct diff_result *r, struct diff_proc_row *row)
{
	const struct snap_proc *b = row->b, *a = row->a;

	row->vram_total = diff_delta_of(b != NULL, b ? b->vram_total : NONE, a != NULL, a ? a->vram_total : NONE);
	row->rss = diff_delta_of(b != NULL, b ? b->rss : NONE, a != NULL, a ? a->rss : NONE);
	row->spill_total = diff_delta_of(b != NULL, sum_of(b, offsetof(struct snap_use, spill)), a != NULL,
				    sum_of(a, offsetof(struct snap_use, spill)));
	row->paged_total = diff_delta_of(b != NULL, sum_of(b, offsetof(struct snap_use, paged)), a != NULL,
				    sum_of(a, offsetof(struct snap_use, paged)));
	compare_uses(r, row);
}

/* --- movement, hiding, order --------------------------------------------------- */

struct movement {
	bool any, unknown;
	uint64_t max;
};

static uint64_t magnitude(int64_t d)
{
	return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
}

/* Paired: the largest |delta|; a counter known on one side only makes the movement
 * unknown. One-sided: the largest value on the listed side. */
static void move_by(struct movement *m, const struct diff_delta *d)
{
	if (d->b_listed && d->a_listed) {
		if (d->known) {
			m->any = true;
			m->max = magnitude(d->delta) > m->max ? magnitude(d->delta) : m->max;
		} else if (d->b.known != d->a.known) {
			m->unknown = true;
		}
		return;
	}
	const struct snap_val *v = d->b_listed ? &d->b : &d->a;
	if (v->known) {
		m->any = true;
		m->max = v->v > m->max ? v->v : m->max;
	}
}

static void movement_of(struct diff_proc_row *row, uint64_t hide_below)
{
	struct movement m = {0};

	move_by(&m, &row->vram_total);
	move_by(&m, &row->spill_total);
	move_by(&m, &row->paged_total);
	move_by(&m, &row->rss);
	for (int i = 0; i < row->n_uses; i++) {
		move_by(&m, &row->uses[i].vram);
		move_by(&m, &row->uses[i].spill);
		move_by(&m, &row->uses[i].paged);
	}
	row->movement_known = m.any && !m.unknown;
	row->movement = m.max;
	/* A restart is news in itself; a row we cannot size is never called small. */
	row->hidden = row->movement_known && m.max < hide_below && !diff_rule_is_restart(row->rule);
}

/* Largest movement first; rows whose movement is unknown after those that moved. */
static int cmp_rows(const void *x, const void *y)
{
	const struct diff_proc_row *a = x, *b = y;
	if (a->movement_known != b->movement_known)
		return a->movement_known ? -1 : 1;
	if (a->movement != b->movement)
		return a->movement > b->movement ? -1 : 1;
	return (a->n_order > b->n_order) - (a->n_order < b->n_order);
}

static void check_snapshots(struct diff_result *r)
{
	const struct snap_rows *b = r->before, *a = r->after;

	if (b->taken_at && a->taken_at && strcmp(a->taken_at, b->taken_at) < 0)
		warn(r, "the after snapshot (%s) was taken before the before snapshot (%s): are the files swapped?",
		     a->taken_at, b->taken_at);
	if (b->mode && a->mode && strcmp(b->mode, a->mode))
		warn(r, "the snapshots were taken in different modes (%s, %s): PIDs may not compare", b->mode, a->mode);
	if (b->hostname && a->hostname && strcmp(b->hostname, a->hostname))
		warn(r, "the snapshots are from different machines (%s, %s)", b->hostname, a->hostname);
	if (b->extras_truncated || a->extras_truncated)
		warn(r, "the %s snapshot holds more reported/estimated figures or models than are listed here",
		     b->extras_truncated ? "before" : "after");
}

struct diff_result *diff_compare(const struct snap_rows *before, const struct snap_rows *after,
				 const struct diff_opts *opts)
{
	struct diff_result *r = xcalloc(1, sizeof *r);

	r->before = before;
	r->after = after;
	r->hide_below = opts && opts->hide_below ? opts->hide_below : DIFF_HIDE_BELOW_BYTES;
	check_snapshots(r);
	compare_devices(r);
	r->procs = xcalloc((size_t)before->n_procs + (size_t)after->n_procs + 1, sizeof *r->procs);
	r->n_procs = diff_pair_processes(before, after, r->procs);
	for (int i = 0; i < r->n_procs; i++) {
		compare_measured(r, &r->procs[i]);
		diff_compare_reported(&r->procs[i]);
		movement_of(&r->procs[i], r->hide_below);
		r->n_hidden += r->procs[i].hidden;
	}
	/* Pairing order (before rows, then new after rows) breaks ties: keep it stable. */
	for (int i = 0; i < r->n_procs; i++)
		r->procs[i].n_order = i;
	qsort(r->procs, (size_t)r->n_procs, sizeof *r->procs, cmp_rows);
	return r;
}

void diff_result_free(struct diff_result *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n_procs; i++) {
		free(r->procs[i].uses);
		free(r->procs[i].segs);
		free(r->procs[i].models);
	}
	free(r->procs);
	free(r->devs);
	for (int i = 0; i < r->n_warnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r);
}
