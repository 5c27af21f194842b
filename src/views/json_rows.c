/* Rows' text kept between snapshots for the recorder (json.h): most of a
 * process row (its identity, owner, command line and identification) is the
 * same from one refresh to the next, and writing it is most of a recording's
 * cost (docs/benchmarks.md). A slot per row keeps what the row's head and
 * tail were written from and the text; a row whose inputs compare equal gets
 * the text copied. What is compared is every field those members are written
 * from, so the document is the same byte for byte. A tail with runtimes,
 * models or llama.cpp flags (trees of their own) is kept by its
 * identification's stamp (ident.h: equal stamps, equal contents); one with
 * an explanation (the log and API of this refresh) is always written again. */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "identify/ident.h"
#include "views/json.h"

/* Slots in sets of ROW_WAYS a row's hash picks: a row takes its own slot of
 * the set, else the one used longest ago. More rows than slots are written
 * again more often, never wrongly. */
#define ROW_SLOTS 1024 /* a power of two */
#define ROW_WAYS 4

struct head_in {
	uint32_t pid, host_pid, exited_pid, ppid;
	uid_t uid;
	uint64_t start_time;
	enum gtm_owner owner, exited_pairing;
	struct gtm_proc_detail *detail; /* held: its address is not reused while kept */
	char label[24], owner_reason[96], name[64], user[33];
	const char *vram_inferred_by; /* a string constant: compared by address */
	bool wsl_vm_row;
};

struct tail_in {
	uint64_t stamp; /* the identification's; 0: none, or changed after it */
	bool has_ident, plain;
	enum ident_category category;
	int installed_omitted;
	char reason[128];
};

struct row_text {
	char *text;
	size_t len, cap;
	bool ok;
};

struct row_slot {
	uint64_t used;           /* the cache's clock when last used; 0: never */
	struct head_in head;
	struct tail_in tail;
	struct row_text head_text, tail_text;
};

struct json_row_cache {
	struct row_slot slots[ROW_SLOTS];
	uint64_t clock, copies;
};

struct json_row_cache *json_row_cache_new(void)
{
	return xcalloc(1, sizeof(struct json_row_cache));
}

uint64_t json_row_cache_copies(const struct json_row_cache *c)
{
	return c->copies;
}

void json_row_cache_free(struct json_row_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < ROW_SLOTS; i++) {
		proc_detail_unref(c->slots[i].head.detail);
		free(c->slots[i].head_text.text);
		free(c->slots[i].tail_text.text);
	}
	free(c);
}

static struct row_slot *slot_of(struct json_row_cache *c, const struct gtm_process *p)
{
	uint64_t h = 1469598103934665603ull;
	h = (h ^ p->pid) * 1099511628211ull;
	h = (h ^ p->start_time) * 1099511628211ull;
	for (const char *s = p->label; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	struct row_slot *set = &c->slots[((h ^ (h >> 29)) & (ROW_SLOTS / ROW_WAYS - 1)) * ROW_WAYS], *old = set;

	c->clock++;
	for (int i = 0; i < ROW_WAYS; i++) {
		struct row_slot *s = &set[i];
		if (s->used && s->head.pid == p->pid && s->head.start_time == p->start_time && !strcmp(s->head.label, p->label)) {
			s->used = c->clock;
			return s;
		}
		if (s->used < old->used)
			old = s;
	}
	/* another row's slot: nothing kept there is this row's */
	old->head_text.ok = old->tail_text.ok = false;
	old->used = c->clock;
	return old;
}

static bool head_same(const struct head_in *k, const struct gtm_process *p)
{
	return k->pid == p->pid && k->host_pid == p->host_pid && k->exited_pid == p->exited_pid && k->ppid == p->ppid &&
	       k->uid == p->uid && k->start_time == p->start_time && k->owner == p->owner &&
	       k->exited_pairing == p->exited_pairing && k->detail == p->detail && !strcmp(k->label, p->label) &&
	       !strcmp(k->owner_reason, p->owner_reason) && !strcmp(k->name, p->name) && !strcmp(k->user, p->user) &&
	       k->vram_inferred_by == p->vram_inferred_by && k->wsl_vm_row == p->wsl_vm_row;
}

static void head_keep(struct head_in *k, const struct gtm_process *p)
{
	proc_detail_unref(k->detail);
	*k = (struct head_in){p->pid, p->host_pid, p->exited_pid, p->ppid, p->uid, p->start_time, p->owner,
			      p->exited_pairing, proc_detail_ref(p->detail), "", "", "", "", p->vram_inferred_by,
			      p->wsl_vm_row};
	str_copy(k->label, p->label, sizeof k->label);
	str_copy(k->owner_reason, p->owner_reason, sizeof k->owner_reason);
	str_copy(k->name, p->name, sizeof k->name);
	str_copy(k->user, p->user, sizeof k->user);
}

/* Whether an identification is written from the fields tail_in holds alone. */
static bool ident_plain(const struct gtm_ident *id)
{
	return !id || (!id->n_runtimes && !id->n_models && !id->flags);
}

/* Whether the tail's text can be kept: a plain identification by its fields,
 * another by its stamp (a platform that identifies afresh every refresh gives
 * new stamps, and plain rows are still kept there). */
static bool tail_keepable(const struct gtm_process *p)
{
	return !p->explain && (ident_plain(p->ident) || p->ident->stamp);
}

static bool tail_same(const struct tail_in *k, const struct gtm_process *p)
{
	const struct gtm_ident *id = p->ident;
	if (k->has_ident != (id != NULL) || k->plain != ident_plain(id))
		return false;
	return !id || ((k->plain || k->stamp == id->stamp) && k->category == id->category &&
		       k->installed_omitted == id->n_installed_omitted && !strcmp(k->reason, id->category_reason));
}

static void tail_keep(struct tail_in *k, const struct gtm_process *p)
{
	*k = (struct tail_in){p->ident ? p->ident->stamp : 0, p->ident != NULL, ident_plain(p->ident),
			      p->ident ? p->ident->category : IDENT_CAT_OTHER,
			      p->ident ? p->ident->n_installed_omitted : 0, ""};
	if (p->ident)
		str_copy(k->reason, p->ident->category_reason, sizeof k->reason);
}

/* Keeps what was written since (flushed0, len0), unless part of it has left the buffer. */
static void keep_text(struct row_text *t, const struct jw *w, uint64_t flushed0, size_t len0)
{
	size_t n = w->len - len0;

	t->ok = false;
	if (w->flushed != flushed0 || w->failed)
		return;
	t->text = grow_array(t->text, 1, &t->cap, n);
	memcpy(t->text, w->buf + len0, n);
	t->len = n;
	t->ok = true;
}

/* Writes a run of p's members with run and keeps its text in t. */
static void write_kept(struct jw *w, struct row_text *t, void (*run)(struct jw *, const struct gtm_process *),
		       const struct gtm_process *p)
{
	uint64_t flushed0 = w->flushed;
	size_t len0 = w->len;

	run(w, p);
	keep_text(t, w, flushed0, len0);
}

void json_row_cache_members(struct json_row_cache *c, struct jw *w, const struct gtm_process *p)
{
	struct row_slot *s = slot_of(c, p);

	if (s->head_text.ok && head_same(&s->head, p)) {
		jw_members_text(w, s->head_text.text, s->head_text.len);
		c->copies++;
	} else {
		write_kept(w, &s->head_text, jw_process_head, p);
		head_keep(&s->head, p);
	}
	jw_process_readings(w, p);
	if (!tail_keepable(p)) {
		jw_process_tail(w, p);
	} else if (s->tail_text.ok && tail_same(&s->tail, p)) {
		jw_members_text(w, s->tail_text.text, s->tail_text.len);
		c->copies++;
	} else {
		write_kept(w, &s->tail_text, jw_process_tail, p);
		tail_keep(&s->tail, p);
	}
}
