#include "views/tui/tui_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "platform/platform_time.h"
#include "record/rec_seek.h"
#include "record/rec_time.h"
#include "snapread/snap_model.h"
#include "views/replay_keys.h"
#include "views/tui/tui_inspect.h"
#include "views/tui/tui_view.h"


static const double speeds[] = TUI_REPLAY_SPEEDS;
#define N_SPEEDS ((int)ARRAY_LEN(speeds))

/* What the UI asks for, done in order by the collection thread. */
enum op_kind { OP_STEP, OP_TIME_REL, OP_TIME_ABS, OP_NEXT_CHANGE };
struct op {
	enum op_kind kind;
	int64_t arg;
};
#define MAX_OPS 32

/* A snapshot collect returned, with what the view needs alongside it. */
struct delivery {
	struct gtm_snapshot *snap;   /* compared only, never dereferenced */
	struct tui_history hist;     /* the samples before it, oldest first */
	uint64_t ord;
	int64_t taken_s;
	char status[160];
};
#define N_DELIVERIES 4

/* Device-only copies of recent snapshots, for the charts' history. */
#define HIST_CACHE 512
struct hist_slot {
	bool used;
	uint64_t ord;
	struct gtm_snapshot *devs;
};

struct tui_replay {
	struct tui_feed feed;
	struct tui_feed_ctl ctl;
	struct rec_file *file;

	struct os_monitor *mon;      /* guards everything below up to the collection thread's part */
	struct op ops[MAX_OPS];
	int n_ops;
	bool playing;
	int speed;                   /* index into speeds */
	struct delivery del[N_DELIVERIES];
	int n_del;

	/* The UI thread's own. */
	uint64_t ui_ord;
	int64_t ui_taken_s;
	char ui_status[160];
	bool prompting;
	char prompt[48];

	/* The collection thread's own. */
	struct rec_cursor cur;
	uint64_t pos;
	uint64_t last_step_ns;
	struct hist_slot cache[HIST_CACHE];
};

/* ---- the collection thread ---- */

static struct gtm_snapshot *load(struct tui_replay *r, uint64_t ord, char *err, size_t errn)
{
	const char *line;
	size_t len;
	int64_t t;

	if (rec_cursor_line(&r->cur, ord, &line, &len, &t, err, errn) != 0)
		return NULL;
	return snap_model_parse(line, len, err, errn);
}

static struct gtm_snapshot *devices_only(const struct gtm_snapshot *s)
{
	struct gtm_snapshot *d = snapshot_new();
	for (int i = 0; i < s->n_devices; i++)
		*snapshot_add_device(d) = s->devices[i];
	d->taken_at_ns = s->taken_at_ns;
	return d;
}

static void cache_devices(struct tui_replay *r, uint64_t ord, const struct gtm_snapshot *s)
{
	struct hist_slot *slot = &r->cache[ord % HIST_CACHE];

	if (slot->used && slot->ord == ord)
		return;
	snapshot_free(slot->devs);
	*slot = (struct hist_slot){true, ord, devices_only(s)};
}

/* The devices of snapshot ord, from the cache or read; NULL when unreadable. */
static const struct gtm_snapshot *history_sample(struct tui_replay *r, uint64_t ord)
{
	struct hist_slot *slot = &r->cache[ord % HIST_CACHE];
	struct gtm_snapshot *s;
	char err[256];

	if (slot->used && slot->ord == ord)
		return slot->devs;
	s = load(r, ord, err, sizeof err);
	if (!s)
		return NULL;
	cache_devices(r, ord, s);
	snapshot_free(s);
	return slot->devs;
}

static void build_history(struct tui_replay *r, uint64_t ord, struct tui_history *h)
{
	uint64_t from = ord >= TUI_HIST_LEN - 1 ? ord - (TUI_HIST_LEN - 1) : 0;

	memset(h, 0, sizeof *h);
	for (uint64_t k = from; k < ord; k++) {
		const struct gtm_snapshot *s = history_sample(r, k);
		if (s)
			tui_history_push(h, s);
	}
}

static int64_t taken_of(struct tui_replay *r, uint64_t ord)
{
	const char *line;
	size_t len;
	int64_t t = 0;
	char err[128];

	return rec_cursor_line(&r->cur, ord, &line, &len, &t, err, sizeof err) == 0 ? t : 0;
}

static uint64_t clamp_ord(const struct tui_replay *r, int64_t ord)
{
	if (ord < 0)
		return 0;
	return (uint64_t)ord >= r->cur.n ? r->cur.n - 1 : (uint64_t)ord;
}

/* The next big VRAM change after pos: its ordinal, or pos with status saying none. */
static uint64_t next_change(struct tui_replay *r, uint64_t pos, char *status, size_t n)
{
	char err[256], at[32];
	struct gtm_snapshot *prev = load(r, pos, err, sizeof err);
	struct rec_change c;

	/* by the lines frames hold, not the counts their entries claim */
	for (uint64_t k = rec_cursor_next(&r->cur, pos); prev && k < r->cur.n; k = rec_cursor_next(&r->cur, k)) {
		struct gtm_snapshot *s = load(r, k, err, sizeof err);
		if (!s)
			continue;
		if (rec_vram_change(prev, s, &c)) {
			snapshot_free(prev);
			snapshot_free(s);
			rec_change_text(&c, status, n);
			return k;
		}
		snapshot_free(prev);
		prev = s;
	}
	snapshot_free(prev);
	rec_time_format(at, sizeof at, taken_of(r, pos));
	snprintf(status, n, "no big VRAM change after %s", at);
	return pos;
}

static uint64_t apply_op(struct tui_replay *r, uint64_t pos, const struct op *o, char *status, size_t n)
{
	switch (o->kind) {
	case OP_STEP:
		return clamp_ord(r, (int64_t)pos + o->arg);
	case OP_TIME_REL: {
		int64_t t = taken_of(r, pos) + o->arg;
		uint64_t k = rec_cursor_find(&r->cur, t);
		/* a minute on from a second with many snapshots still moves on */
		return o->arg > 0 && k <= pos ? clamp_ord(r, (int64_t)pos + 1) : k;
	}
	case OP_TIME_ABS:
		return rec_cursor_find(&r->cur, o->arg);
	case OP_NEXT_CHANGE:
		return next_change(r, pos, status, n);
	}
	return pos;
}

static void *replay_open(const void *arg)
{
	return (void *)arg;
}

static void replay_close(void *handle)
{
	(void)handle;
}

static uint64_t step_ns(int speed)
{
	return (uint64_t)(1e9 / speeds[speed]);
}

/* Waits up to 100 ms for a request or the next playback step; returns the
 * snapshot to show, or NULL when nothing is new. */
static struct gtm_snapshot *replay_collect(void *handle)
{
	struct tui_replay *r = handle;
	struct op ops[MAX_OPS];
	struct delivery d;
	int n_ops;
	uint64_t now = now_monotonic_ns(), target = r->pos;
	char err[256];

	memset(&d, 0, sizeof d);
	os_monitor_lock(r->mon);
	if (!r->n_ops && !(r->playing && now - r->last_step_ns >= step_ns(r->speed))) {
		uint64_t wait = r->playing ? step_ns(r->speed) - (now - r->last_step_ns) : 100000000ull;
		os_monitor_wait_until(r->mon, now + (wait < 100000000ull ? wait : 100000000ull));
		now = now_monotonic_ns();
	}
	n_ops = r->n_ops;
	memcpy(ops, r->ops, sizeof ops[0] * (size_t)n_ops);
	r->n_ops = 0;
	if (!n_ops && r->playing && now - r->last_step_ns >= step_ns(r->speed)) {
		/* past 20 steps a second, several snapshots a step */
		uint64_t k = (uint64_t)(speeds[r->speed] / 20) + 1;
		target = r->pos + k < r->cur.n ? r->pos + k : r->cur.n - 1;
		r->last_step_ns = now;
		if (target == r->pos) {
			r->playing = false;
			str_copy(d.status, "end of the recording", sizeof d.status);
		}
	} else if (!n_ops) {
		os_monitor_unlock(r->mon);
		return NULL;
	}
	os_monitor_unlock(r->mon);

	for (int i = 0; i < n_ops; i++)
		target = apply_op(r, target, &ops[i], d.status, sizeof d.status);
	d.snap = load(r, target, err, sizeof err);
	if (!d.snap) {
		/* an unreadable snapshot: the cursor stays, the status says why */
		d.snap = load(r, r->pos, d.status, sizeof d.status);
		snprintf(d.status, sizeof d.status, "snapshot %llu: %s", (unsigned long long)target + 1, err);
		target = r->pos;
		if (!d.snap)
			return NULL;
	}
	r->pos = target;
	cache_devices(r, target, d.snap); /* the next step back or on reads one snapshot, not 255 */
	d.ord = target;
	d.taken_s = d.snap->taken_at_ns ? (int64_t)(d.snap->taken_at_ns / 1000000000ull) : taken_of(r, target);
	build_history(r, target, &d.hist);

	os_monitor_lock(r->mon);
	if (r->n_del == N_DELIVERIES) {
		tui_history_free(&r->del[0].hist);
		memmove(&r->del[0], &r->del[1], sizeof r->del[0] * (N_DELIVERIES - 1));
		r->n_del--;
	}
	r->del[r->n_del++] = d;
	os_monitor_unlock(r->mon);
	return d.snap;
}

/* ---- the UI thread ---- */

static void cursor_text(struct tui_replay *r, struct tui_view *v)
{
	char at[32];
	bool playing;
	int speed;

	os_monitor_lock(r->mon);
	playing = r->playing;
	speed = r->speed;
	os_monitor_unlock(r->mon);
	rec_time_format(at, sizeof at, r->ui_taken_s);
	if (r->prompting)
		snprintf(v->cursor, sizeof v->cursor, "REPLAY go to: %s_  (ISO 8601 or HH:MM[:SS]; Enter, Escape)", r->prompt);
	else
		snprintf(v->cursor, sizeof v->cursor, "REPLAY %s %llu/%llu %s %gx%s%s", at,
			 (unsigned long long)r->ui_ord + 1, (unsigned long long)r->cur.n, playing ? "playing" : "paused",
			 speeds[speed], r->ui_status[0] ? "  " : "", r->ui_status);
}

static void post(struct tui_replay *r, enum op_kind kind, int64_t arg)
{
	os_monitor_lock(r->mon);
	if (r->n_ops < MAX_OPS)
		r->ops[r->n_ops++] = (struct op){kind, arg};
	os_monitor_wake(r->mon);
	os_monitor_unlock(r->mon);
}

static void prompt_done(struct tui_replay *r)
{
	char err[160];
	int64_t t;

	r->prompting = false;
	if (!r->prompt[0])
		return;
	if (rec_time_resolve(r->prompt, r->file->last_s, &t, err, sizeof err) != 0) {
		snprintf(r->ui_status, sizeof r->ui_status, "%s", err);
		return;
	}
	r->ui_status[0] = '\0';
	post(r, OP_TIME_ABS, t);
}

static int prompt_key(struct tui_replay *r, int key)
{
	size_t n = strlen(r->prompt);

	if (key == TUI_KEY_ENTER)
		prompt_done(r);
	else if (key == TUI_KEY_ESC)
		r->prompting = false;
	else if (key == TUI_KEY_BACKSPACE && n)
		r->prompt[n - 1] = '\0';
	else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof r->prompt)
		r->prompt[n] = (char)key, r->prompt[n + 1] = '\0';
	return TUI_ACT_REDRAW;
}

static void set_speed(struct tui_replay *r, int delta)
{
	os_monitor_lock(r->mon);
	r->speed += delta;
	r->speed = r->speed < 0 ? 0 : r->speed >= N_SPEEDS ? N_SPEEDS - 1 : r->speed;
	os_monitor_wake(r->mon);
	os_monitor_unlock(r->mon);
}

static int replay_key(void *ctx, struct tui_view *v, int key)
{
	struct tui_replay *r = ctx;

	if (r->prompting) {
		prompt_key(r, key);
	} else if (v->st.overlay != TUI_OVL_NONE) {
		return -1;
	} else {
		switch (key) {
		case ' ': case 'p':
			os_monitor_lock(r->mon);
			r->playing = !r->playing;
			r->last_step_ns = now_monotonic_ns();
			os_monitor_wake(r->mon);
			os_monitor_unlock(r->mon);
			break;
		case TUI_KEY_LEFT: post(r, OP_STEP, -1); break;
		case TUI_KEY_RIGHT: post(r, OP_STEP, 1); break;
		case '[': post(r, OP_TIME_REL, -60); break;
		case ']': post(r, OP_TIME_REL, 60); break;
		case 'g': r->prompting = true; r->prompt[0] = '\0'; break;
		case '+': case '=': set_speed(r, 1); break;
		case '-': set_speed(r, -1); break;
		case 'n':
			str_copy(r->ui_status, "looking for the next big VRAM change", sizeof r->ui_status);
			post(r, OP_NEXT_CHANGE, 0);
			break;
		default:
			return -1;
		}
	}
	cursor_text(r, v);
	return TUI_ACT_REDRAW;
}

static void replay_take(void *ctx, struct tui_view *v, struct gtm_snapshot *s)
{
	struct tui_replay *r = ctx;
	int found = -1;

	os_monitor_lock(r->mon);
	/* newest first: an address reused after a free is the newer snapshot's */
	for (int i = r->n_del - 1; i >= 0 && found < 0; i--)
		if (r->del[i].snap == s)
			found = i;
	if (found >= 0) {
		struct delivery d = r->del[found];
		for (int i = 0; i < found; i++)
			tui_history_free(&r->del[i].hist);
		memmove(&r->del[0], &r->del[found + 1], sizeof r->del[0] * (size_t)(r->n_del - found - 1));
		r->n_del -= found + 1;
		os_monitor_unlock(r->mon);
		tui_history_free(&v->hist);
		v->hist = d.hist;
		r->ui_ord = d.ord;
		r->ui_taken_s = d.taken_s;
		str_copy(r->ui_status, d.status, sizeof r->ui_status);
	} else {
		os_monitor_unlock(r->mon);
	}
	tui_view_take(v, s);
	cursor_text(r, v);
}

struct tui_replay *tui_replay_new(struct rec_file *f, uint64_t start, char *why, size_t cap)
{
	struct tui_replay *r = xcalloc(1, sizeof *r);

	r->mon = os_monitor_new(why, cap);
	if (!r->mon) {
		free(r);
		return NULL;
	}
	r->file = f;
	rec_cursor_init(&r->cur, f);
	r->speed = TUI_REPLAY_SPEED_1X;
	r->pos = start < r->cur.n ? start : r->cur.n ? r->cur.n - 1 : 0;
	r->ops[r->n_ops++] = (struct op){OP_STEP, 0};
	r->ctl = (struct tui_feed_ctl){replay_key, replay_take, r};
	r->feed = (struct tui_feed){replay_open, replay_collect, replay_close, r, NULL, &r->ctl};
	tui_help_set_feed_keys(replay_keys, replay_n_keys);
	return r;
}

void tui_replay_free(struct tui_replay *r)
{
	if (!r)
		return;
	tui_help_set_feed_keys(NULL, 0);
	for (int i = 0; i < r->n_del; i++)
		tui_history_free(&r->del[i].hist);
	for (size_t i = 0; i < HIST_CACHE; i++)
		snapshot_free(r->cache[i].devs);
	rec_cursor_free(&r->cur);
	os_monitor_free(r->mon);
	free(r);
}

const struct tui_feed *tui_replay_feed(struct tui_replay *r)
{
	return &r->feed;
}
