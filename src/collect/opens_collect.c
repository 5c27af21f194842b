/* --trace-opens in the refresh (opens_collect.h). The VRAM beside an open is
 * the process's measured VRAM at the last refresh before the tracer read the
 * open, and at the newest refresh within IDENT_OPENED_WINDOW_NS after it:
 * loading takes a while, and a refresh is at most an interval away. */
#include "collect/opens_collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "identify/app_folders.h"
#include "identify/ident.h"
#include "platform.h"

#define MAX_WATCHED 64

struct open_vram {           /* one table entry's VRAM around it */
	uint32_t pid;
	uint64_t start_time;
	char path[PLATFORM_OPEN_PATH_MAX];
	bool seen;               /* still in the table this refresh */
	gtm_u64 before, after;
};

struct proc_vram {           /* one row's VRAM at the last refresh */
	uint32_t pid;
	uint64_t start_time;
	gtm_u64 vram;
};

struct opens_collect {
	struct platform_opens *t;
	char refused[256];
	char *watched[MAX_WATCHED]; /* folders handed to the platform already */
	size_t n_watched;
	char watch_problem[256];
	struct platform_open *opens;
	size_t n_opens;
	struct open_vram *track;
	size_t n_track, cap_track;
	struct proc_vram *prev;
	size_t n_prev, cap_prev;
	uint64_t prev_mono_ns;   /* 0: no refresh yet */
};

static void watch(struct opens_collect *o, const char *dir)
{
	if (!dir || dir[0] != '/' || o->n_watched >= MAX_WATCHED)
		return;
	for (size_t i = 0; i < o->n_watched; i++)
		if (!strcmp(o->watched[i], dir))
			return;
	o->watched[o->n_watched++] = xstrdup(dir);
	char why[256];
	if (platform_opens_watch(o->t, dir, why, sizeof why) < 0)
		str_copy(o->watch_problem, why, sizeof o->watch_problem);
}

/* The model folders of d's environment (NULL: gputaskman's own). */
static const enum platform_folder model_folders[] = {PLATFORM_FOLDER_OLLAMA_MODELS, PLATFORM_FOLDER_LMSTUDIO_MODELS,
						      PLATFORM_FOLDER_HF_HUB};

static void watch_own_folders(struct opens_collect *o)
{
	for (size_t i = 0; i < platform_n_folder_rules; i++) {
		const struct platform_folder_rule *r = &platform_folder_rules[i];
		for (size_t k = 0; k < ARRAY_LEN(model_folders); k++) {
			if (r->folder != model_folders[k])
				continue;
			const char *v = r->env ? getenv(r->env) : "";
			char dir[APP_FOLDER_MAX];
			if (v && (!r->env || v[0] == '/') && snprintf(dir, sizeof dir, "%s%s", v, r->tail) < (int)sizeof dir)
				watch(o, dir);
		}
	}
}

static void watch_process_folders(struct opens_collect *o, const struct gtm_process *p)
{
	if (!p->detail || !ident_is_ai(p->ident))
		return;
	watch(o, p->detail->cwd);
	char dirs[APP_FOLDERS_MAX_RULES][APP_FOLDER_MAX];
	for (size_t k = 0; k < ARRAY_LEN(model_folders); k++) {
		int n = app_folders(p->detail, model_folders[k], dirs, APP_FOLDERS_MAX_RULES);
		for (int i = 0; i < n; i++)
			watch(o, dirs[i]);
	}
}

struct opens_collect *opens_collect_new(void)
{
	struct opens_collect *o = xcalloc(1, sizeof *o);
	o->t = platform_opens_start(o->refused, sizeof o->refused);
	if (o->t)
		watch_own_folders(o);
	o->opens = xcalloc(PLATFORM_OPENS_MAX, sizeof *o->opens);
	return o;
}

const char *opens_collect_refused(const struct opens_collect *o)
{
	return o && !o->t ? o->refused : NULL;
}

void opens_collect_pids(struct opens_collect *o, uint32_t **v, size_t *n, size_t *cap)
{
	if (!o || !o->t)
		return;
	struct platform_opens_status st;
	o->n_opens = platform_opens_copy(o->t, o->opens, PLATFORM_OPENS_MAX, &st);
	*v = grow_array(*v, sizeof **v, cap, *n + o->n_opens);
	for (size_t i = 0; i < o->n_opens; i++)
		(*v)[(*n)++] = o->opens[i].pid;
}

/* A row's VRAM over its devices: measured where every use measured it. */
static gtm_u64 row_vram(const struct gtm_process *p)
{
	gtm_u64 sum = GTM_U64_NA;
	for (int i = 0; i < p->n_uses; i++) {
		if (!gtm_u64_ok(p->uses[i].vram))
			return GTM_U64_NA;
		sum = gtm_u64_of(sum.v + p->uses[i].vram.v, p->uses[i].vram.prov);
	}
	return sum;
}

static gtm_u64 prev_vram(const struct opens_collect *o, uint32_t pid, uint64_t start)
{
	for (size_t i = 0; i < o->n_prev; i++)
		if (o->prev[i].pid == pid && o->prev[i].start_time == start)
			return o->prev[i].vram;
	return GTM_U64_NA;
}

static struct open_vram *track_of(struct opens_collect *o, const struct platform_open *e)
{
	for (size_t i = 0; i < o->n_track; i++) {
		struct open_vram *t = &o->track[i];
		if (t->pid == e->pid && t->start_time == e->start_time && !strcmp(t->path, e->path))
			return t;
	}
	o->track = grow_array(o->track, sizeof *o->track, &o->cap_track, o->n_track);
	struct open_vram *t = &o->track[o->n_track++];
	*t = (struct open_vram){.pid = e->pid, .start_time = e->start_time, .before = GTM_U64_NA, .after = GTM_U64_NA};
	str_copy(t->path, e->path, sizeof t->path);
	/* before: only a refresh that was taken before the open was read */
	if (o->prev_mono_ns && o->prev_mono_ns <= e->first_mono_ns)
		t->before = prev_vram(o, e->pid, e->start_time);
	return t;
}

static void apply_open(struct opens_collect *o, struct gtm_snapshot *snap, const struct platform_open *e)
{
	for (int i = 0; i < snap->n_processes; i++) {
		struct gtm_process *p = &snap->processes[i];
		if (p->pid != e->pid || p->start_time != e->start_time || !p->ident)
			continue;
		struct open_vram *t = track_of(o, e);
		t->seen = true;
		if (snap->monotonic_ns <= e->first_mono_ns + IDENT_OPENED_WINDOW_NS && snap->monotonic_ns >= e->first_mono_ns)
			t->after = row_vram(p);
		ident_add_model_opened(p->ident, e->path, e->first_unix_ns, e->count, t->before, t->after);
		return;
	}
}

static void keep_vram(struct opens_collect *o, const struct gtm_snapshot *snap)
{
	o->n_prev = 0;
	for (int i = 0; i < snap->n_processes; i++) {
		const struct gtm_process *p = &snap->processes[i];
		if (!p->pid || !p->n_uses)
			continue;
		o->prev = grow_array(o->prev, sizeof *o->prev, &o->cap_prev, o->n_prev);
		o->prev[o->n_prev++] = (struct proc_vram){p->pid, p->start_time, row_vram(p)};
	}
	o->prev_mono_ns = snap->monotonic_ns;
}

static void note_state(struct opens_collect *o, struct gtm_snapshot *snap)
{
	struct platform_opens_status st;
	platform_opens_copy(o->t, o->opens, 0, &st);
	if (!st.on) {
		snapshot_add_note(snap, "--trace-opens: no mount could be marked (%s): mapped models only",
				  o->watch_problem[0] ? o->watch_problem : "no model folder");
		return;
	}
	snapshot_add_note(snap, "--trace-opens: on, %u mount%s marked, %llu model file opens seen since start", st.n_marks,
			  st.n_marks == 1 ? "" : "s", (unsigned long long)st.model_opens);
	if (st.overflows)
		snapshot_add_note(snap, "--trace-opens: the kernel's queue overflowed %llu time%s: some opens were missed",
				  (unsigned long long)st.overflows, st.overflows == 1 ? "" : "s");
	if (st.mutes)
		snapshot_add_note(snap,
				  "--trace-opens: %llu busy folder%s muted (a model opened there while muted is missed)",
				  (unsigned long long)st.mutes, st.mutes == 1 ? "" : "s");
	if (st.mute_refused)
		snapshot_add_note(snap, "--trace-opens: this kernel cannot mute busy folders (FAN_MARK_IGNORE, Linux "
					"6.0): every open on the marked mounts is read");
	if (o->watch_problem[0])
		snapshot_add_note(snap, "--trace-opens: %s", o->watch_problem);
	if (st.unresolved && st.problem[0])
		snapshot_add_note(snap, "--trace-opens: %s", st.problem);
}

void opens_collect_apply(struct opens_collect *o, struct gtm_snapshot *snap)
{
	if (!o)
		return;
	if (!o->t) {
		snapshot_add_note(snap, "%s: mapped models only", o->refused);
		return;
	}
	for (int i = 0; i < snap->n_processes; i++)
		watch_process_folders(o, &snap->processes[i]);
	for (size_t i = 0; i < o->n_track; i++)
		o->track[i].seen = false;
	for (size_t i = 0; i < o->n_opens; i++)
		apply_open(o, snap, &o->opens[i]);
	size_t w = 0; /* forget the opens whose rows are gone */
	for (size_t i = 0; i < o->n_track; i++)
		if (o->track[i].seen)
			o->track[w++] = o->track[i];
	o->n_track = w;
	note_state(o, snap);
	keep_vram(o, snap);
}

void opens_collect_free(struct opens_collect *o)
{
	if (!o)
		return;
	platform_opens_stop(o->t);
	for (size_t i = 0; i < o->n_watched; i++)
		free(o->watched[i]);
	free(o->opens);
	free(o->track);
	free(o->prev);
	free(o);
}
